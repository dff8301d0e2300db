"""The likelihood + stylometry obfuscation detector (Mahmood et al., 2020, "A Girl Has No Name: Automated
Authorship Obfuscation using Mutant-X" and its detection follow-up; their detector reads language-model
likelihoods of the text).

Each text becomes 20 numbers: from the reference language model (SmolLM2-135M,
:mod:`authorguard.generation.reference_lm`,
first ``max_tokens`` tokens) the mean, standard deviation, minimum and 10th / 50th / 90th percentiles of the token
log-probabilities, the mean predictive entropy, the mean surprise gap (−log p − entropy), the shares of tokens that
were the model's first choice and among its ten first; from the text itself the number of words (log), mean word
length, type–token ratio, function-word share, mean sentence length, and the shares of punctuation, upper-case,
digit and non-alphabetic characters and of immediately repeated words. A gradient-boosted tree ensemble
(scikit-learn's ``HistGradientBoostingClassifier``, seeded) separates original (0) from released (1).
Scoring costs a 135 M-parameter forward pass per text, so the defaults sample 300 training and 300 test documents
per version. Needs the ``lm`` extra.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from authorguard.attacks.detector import ObfuscationDetector

FEATURES = (
    "lp_mean",
    "lp_std",
    "lp_min",
    "lp_p10",
    "lp_p50",
    "lp_p90",
    "entropy_mean",
    "surprise_gap",
    "top1_share",
    "top10_share",
    "log_words",
    "word_length",
    "type_token_ratio",
    "function_word_share",
    "sentence_length",
    "punctuation_share",
    "upper_share",
    "digit_share",
    "non_alpha_share",
    "repeated_word_share",
)
_WORD = re.compile(r"[A-Za-z']+|\d+")
_SENTENCE_END = re.compile(r"[.!?]+")


def stylometric_features(text: str, function_words: frozenset) -> list[float]:
    """The ten text features (see the module docstring), in :data:`FEATURES` order."""
    words = _WORD.findall(text)
    lower = [w.lower() for w in words]
    n_chars = max(len(text), 1)
    n_words = max(len(words), 1)
    sentences = max(len([s for s in _SENTENCE_END.split(text) if s.strip()]), 1)
    return [
        np.log1p(len(words)),
        float(np.mean([len(w) for w in words])) if words else 0.0,
        len(set(lower)) / n_words,
        sum(w in function_words for w in lower) / n_words,
        len(words) / sentences,
        sum(not c.isalnum() and not c.isspace() for c in text) / n_chars,
        sum(c.isupper() for c in text) / n_chars,
        sum(c.isdigit() for c in text) / n_chars,
        sum(not c.isalpha() and not c.isspace() for c in text) / n_chars,
        sum(a == b for a, b in zip(lower, lower[1:])) / n_words,
    ]


def likelihood_features(log_probs: np.ndarray, entropies: np.ndarray, ranks: np.ndarray) -> list[float]:
    """The ten language-model features of one text from its per-token scores."""
    if len(log_probs) == 0:
        return [0.0] * 10
    p10, p50, p90 = np.percentile(log_probs, [10, 50, 90])
    return [
        log_probs.mean(),
        log_probs.std(),
        log_probs.min(),
        p10,
        p50,
        p90,
        entropies.mean(),
        (-log_probs - entropies).mean(),
        float(np.mean(ranks == 1)),
        float(np.mean(ranks <= 10)),
    ]


class LikelihoodStyleDetector(ObfuscationDetector):
    """Parameters: ``max_train_documents`` / ``max_test_documents`` per version (default 300 each),
    ``max_tokens`` scored per text (default 128), ``random_state``."""

    name = "lm-stylometric"

    def __init__(
        self,
        max_train_documents: int = 300,
        max_test_documents: int = 300,
        random_state: int | None = None,
        max_tokens: int = 128,
    ) -> None:
        super().__init__(max_train_documents, max_test_documents, random_state)
        self.max_tokens = max_tokens

    def features(self, texts: list[str]) -> np.ndarray:
        """(n_texts, 20) feature matrix; each distinct text is scored by the LM once per process."""
        from authorguard.generation.reference_lm import shared_reference_lm, token_log_likelihoods
        from authorguard.text.resources import english_stop_words

        words = english_stop_words()
        keys = [hashlib.sha1(f"{self.max_tokens}\0{t}".encode()).hexdigest() for t in texts]
        todo = sorted({k: i for k, i in zip(keys, range(len(texts))) if k not in _LM_FEATURES}.values())
        if todo:
            scores = token_log_likelihoods(
                [texts[i] for i in todo],
                *shared_reference_lm(),
                max_tokens=self.max_tokens,
                details=True,
                allow_empty=True,
            )  # an emptied text is a finding, not an error
            entropies, ranks = scores.token_entropies, scores.token_ranks
            assert entropies is not None and ranks is not None  # details=True gives both
            for position, i in enumerate(todo):
                _LM_FEATURES[keys[i]] = likelihood_features(
                    scores.token_log_probs[position], entropies[position], ranks[position]
                )
        return np.array(
            [_LM_FEATURES[k] + stylometric_features(t, words) for k, t in zip(keys, texts)], dtype=np.float64
        )

    def _fit_texts(self, texts: list[str], labels: np.ndarray) -> None:
        from sklearn.ensemble import HistGradientBoostingClassifier

        self.model_ = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, random_state=self.random_state)
        self.model_.fit(self.features(texts), labels)

    def _predict_texts(self, texts: list[str]) -> np.ndarray:
        return self.model_.predict(self.features(texts))


_LM_FEATURES: dict[str, list[float]] = {}  # text hash -> LM features; the original texts recur in every cell
