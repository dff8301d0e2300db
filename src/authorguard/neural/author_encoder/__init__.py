"""An author-embedding model in the spirit of LUAR (Rivera-Soto et al., EMNLP 2021).

all-MiniLM-L6-v2 with a LoRA adapter and a linear projection, trained contrastively so that episodes (a few texts)
of one author land close together and episodes of other authors in the batch are pushed away. Only authors that
no evaluation scenario uses are trained on (:mod:`.episodes`).

- :mod:`.config`: :class:`AuthorEncoderConfig`, the typed training configuration;
- :mod:`.model`: :class:`AuthorEncoder` (encode texts, author similarity, save / load);
- :mod:`.episodes`: the training and held-out author pools, episode sampling;
- :mod:`.trainer`: the contrastive training loop, checkpointed and resumable;
- :mod:`.retrieval`: MRR and recall@k of author retrieval on unseen authors.

The trained adapter and head ship in the models distribution (its ``author_encoder`` folder, with
``provenance.json``); :func:`.model.load_author_encoder`
prefers a model retrained under ``AUTHORGUARD_CACHE``.
"""
