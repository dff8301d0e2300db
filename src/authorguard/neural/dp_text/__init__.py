"""Synthetic text with differential privacy per author: a small language model fine-tuned by author-level DP-SGD
(LoRA, each author's gradient clipped, Gaussian noise; :mod:`authorguard.privacy.dp_sgd` accounts for it) on the
corpus's labelled posts, then sampled. Every synthetic post is post-processing of the noisy model."""
