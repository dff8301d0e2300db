"""A⁴NT (Shetty, Schiele & Fritz, USENIX Security 2018): adversarially trained style transfer that hides an
author attribute.

- :mod:`.config` — the typed configuration of a model and its training stages;
- :mod:`.text` — sentence splitting (Punkt trained on the corpus), word tokens, the vocabulary;
- :mod:`.networks` — the attribute classifiers (LSTM, CNN, LSTM+CNN), the word-level language model and the
  style-transfer network (one shared encoder, one decoder per target attribute, Gumbel-softmax sampling);
- :mod:`.data` — the training sentences of a setting;
- :mod:`.trainer` — the resumable stages: classifiers, language models, autoencoder pre-training, adversarial
  training;
- :mod:`.model` — a trained model folder, loaded, rewriting documents sentence by sentence;
- :mod:`.evaluation` — the paper's Tables II–IV measurements.
"""
