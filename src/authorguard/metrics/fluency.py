"""Fluency: how natural a text reads to the reference language model (SmolLM2-135M-Instruct).

``perplexity`` is the corpus-level per-token perplexity exp(−Σ log p / Σ tokens) over the texts' first
``max_tokens`` tokens each (every token weighs the same); ``perplexity_median`` the median of the per-text
perplexities (robust to a few garbled texts); ``lm_tokens`` how many tokens were scored; ``lm_empty`` how many
texts were empty (no token to score: left out of both perplexities, counted here). Lower reads more
fluently; compare a method with the original text of the same documents. Needs the ``lm`` extra.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fluency_scores(texts: Sequence[str], *, max_tokens: int = 128, batch_size: int = 8) -> dict[str, float]:
    """``{"perplexity", "perplexity_median", "lm_tokens", "lm_empty"}`` of ``texts``."""
    from authorguard.generation.reference_lm import shared_reference_lm, token_log_likelihoods

    scores = token_log_likelihoods(
        texts, *shared_reference_lm(), max_tokens=max_tokens, batch_size=batch_size, allow_empty=True
    )
    per_text = scores.perplexity
    return {
        "perplexity": scores.corpus_perplexity(),
        "perplexity_median": float(np.nanmedian(per_text)) if np.isfinite(per_text).any() else float("nan"),
        "lm_tokens": int(scores.n_tokens.sum()),
        "lm_empty": int((scores.n_tokens == 0).sum()),
    }
