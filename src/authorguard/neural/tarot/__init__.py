"""TAROT (Loiseau et al.): a small language model fine-tuned to rewrite text so that an author encoder no longer
matches it to its writer — its configuration, data, stages (SFT, DPO, PPO), trainer and the packaged policy."""
