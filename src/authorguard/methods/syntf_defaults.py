"""SynTF's default setting, in a module light enough for the CLI's option defaults (no numpy, no scikit-learn).

Chosen from measurements (docs/results/syntf-20news.md, ``configs/syntf-20news-s.toml``): on 20 Newsgroups
Top10-Any at the paper's tight loss of 25.4 per word (n = 150), GloVe 6B 50d with s = 0 kept the most utility of
every setting measured (topic F1 0.60 of 0.70) while still beating the paper's attacker (WritePrints on released
vectors: 0.575 -> 0.35). epsilon = 54 gives that loss: 25.4 on the 37k-lemma vocabulary fitted on 20 Newsgroups'
training split and 25.2 on the batch default (the 30,000 most frequent GloVe words).
"""

EPSILON = 54.0
N_WORDS = 150
BIGRAM_WEIGHT = 0.0
MORPHOLOGY = "lemma"
#: the public vocabulary's size: the embeddings' most frequent words (``--vocabulary embeddings``, ``anonymize``)
PUBLIC_VOCABULARY_SIZE = 30_000
