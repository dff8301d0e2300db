"""Privacy accounting for SynTF: the three bounds on the loss of one released document, and a report.

For a document released as n words, each drawn by an epsilon-DP exponential mechanism over L words
(sensitivity 1), the loss between any two documents is bounded by

- standard: ``epsilon * n`` (sequential composition of n epsilon-DP draws);
- improved (paper's Corollary 3.5): ``(epsilon + ln eta) * n`` with
  ``eta = (exp(-epsilon/2) + L - 1) / (exp(epsilon/2) + L - 1)`` (uses that the rating lies in [0, 1]);
- tight (paper's Eq. 1): ``l * n`` with ``l = max_w ln(max_v pi[v, w] / min_v pi[v, w])``, the actual
  worst-case log-ratio of *this* mechanism, computed exactly by :meth:`ExponentialMechanism.loss_per_word`.

The three are reported together; the tight one is what the release really costs.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from authorguard.utils.validation import check_number


def standard_epsilon(epsilon: float, n_words: int) -> float:
    """epsilon * n."""
    return float(epsilon) * int(n_words)


def improved_loss_per_word(epsilon: float, vocabulary_size: int) -> float:
    """epsilon + ln eta, eta = (e^{-epsilon/2} + L - 1) / (e^{epsilon/2} + L - 1) (computed in log space)."""
    epsilon = float(epsilon)
    L = int(vocabulary_size)
    if L <= 1:
        return 0.0
    log_l1 = math.log(L - 1)
    # ln(e^x + L - 1) = logaddexp(x, ln(L - 1)), stable for large epsilon
    log_numerator = _logaddexp(-epsilon / 2.0, log_l1)
    log_denominator = _logaddexp(epsilon / 2.0, log_l1)
    return epsilon + log_numerator - log_denominator


def improved_epsilon(epsilon: float, n_words: int, vocabulary_size: int) -> float:
    """(epsilon + ln eta) * n."""
    return improved_loss_per_word(epsilon, vocabulary_size) * int(n_words)


def tight_epsilon(loss_per_word: float, n_words: int) -> float:
    """l * n."""
    return float(loss_per_word) * int(n_words)


def _logaddexp(a: float, b: float) -> float:
    top = max(a, b)
    return top + math.log(math.exp(a - top) + math.exp(b - top))


@dataclass(frozen=True)
class SynTFPrivacyReport:
    """What one SynTF release costs, per document.

    Attributes
    ----------
    standard_epsilon, improved_epsilon, tight_epsilon : float
        Bounds on the privacy loss of one released document (n words); tight_epsilon is None when no
        embeddings were given (the tight loss depends on the mechanism itself).
    loss_per_word : float or None
        The exact worst-case loss l of one sampled word.
    vocabulary_source : str
        ``"fitted"`` (from the private input: the vocabulary itself leaks which words occur, which no epsilon
        covers) or ``"public"``.
    """

    standard_epsilon: float
    improved_epsilon: float
    tight_epsilon: float | None
    loss_per_word: float | None
    epsilon: float
    n_words: int
    vocabulary_size: int
    bigram_weight: float | None = None
    embeddings: str | None = None
    morphology: str | None = None
    synsets: bool | None = None
    vocabulary_source: str | None = None
    documents_without_vocabulary: int | None = None
    secure_random: bool | None = None

    @classmethod
    def compute(
        cls, epsilon: float, n_words: int, vocabulary_size: int, loss_per_word: float | None = None, **details
    ) -> SynTFPrivacyReport:
        epsilon = check_number(epsilon, "epsilon", "SynTFPrivacyReport", low=0.0)
        n_words = check_number(n_words, "n_words", "SynTFPrivacyReport", kind=int, low=1, closed="left")
        vocabulary_size = check_number(
            vocabulary_size, "vocabulary_size", "SynTFPrivacyReport", kind=int, low=1, closed="left"
        )
        return cls(
            standard_epsilon=standard_epsilon(epsilon, n_words),
            improved_epsilon=improved_epsilon(epsilon, n_words, vocabulary_size),
            tight_epsilon=None if loss_per_word is None else tight_epsilon(loss_per_word, n_words),
            loss_per_word=loss_per_word,
            epsilon=epsilon,
            n_words=n_words,
            vocabulary_size=vocabulary_size,
            **details,
        )

    def to_dict(self) -> dict:
        """JSON-ready dict; the four bound keys come first."""
        return asdict(self)
