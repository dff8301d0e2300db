"""SynTF as a text method: each document's synthetic bag of words, reverse-vectorised (each released word
repeated by its count, in vocabulary order).

This is what the SynTF paper's text attackers read, and what a text pipeline (``authorguard obfuscate``, the text
benchmark) can consume. Word order, punctuation and function words are gone by construction; the privacy
guarantee is SynTF's (:class:`~authorguard.methods.syntf.SynTF`), whose parameters this method takes. Without a
``vocabulary`` it uses SynTF's public batch default (the 30,000 most frequent GloVe words), so nothing about the
private input leaks through the vocabulary.
"""

from __future__ import annotations

from authorguard.base import TextObfuscator
from authorguard.methods import syntf_defaults as defaults
from authorguard.utils.random import RandomState


class SynTFText(TextObfuscator):
    """Parameters: those of :class:`~authorguard.methods.syntf.SynTF` (``vocabulary=None`` means the public
    embedding vocabulary capped at ``max_features``)."""

    deterministic = False

    def __init__(
        self,
        epsilon: float = defaults.EPSILON,
        n_words: int = defaults.N_WORDS,
        bigram_weight: float = defaults.BIGRAM_WEIGHT,
        morphology: str = defaults.MORPHOLOGY,
        embeddings: str = "glove-6b-50d",
        vocabulary=None,
        max_features: int | None = 30_000,
        random_state: RandomState = None,
        secure: bool = False,
    ) -> None:
        self.epsilon = epsilon
        self.n_words = n_words
        self.bigram_weight = bigram_weight
        self.morphology = morphology
        self.embeddings = embeddings
        self.vocabulary = vocabulary
        self.max_features = max_features
        self.random_state = random_state
        self.secure = secure

    def fits_on_private_input(self) -> bool:
        return self.vocabulary == "fit"

    def fit(self, raw_documents=None, y=None):
        """Fit SynTF (on ``raw_documents`` only when ``vocabulary="fit"``; otherwise from public data)."""
        from authorguard.methods.syntf import EMBEDDINGS_VOCABULARY, SynTF

        vocabulary = EMBEDDINGS_VOCABULARY if self.vocabulary is None else self.vocabulary
        self.syntf_ = SynTF(
            epsilon=self.epsilon,
            n_words=self.n_words,
            bigram_weight=self.bigram_weight,
            morphology=self.morphology,
            embeddings=self.embeddings,
            vocabulary=None if vocabulary == "fit" else vocabulary,
            max_features=self.max_features,
            random_state=self.random_state,
            secure=self.secure,
        )
        self.syntf_.fit(list(raw_documents or []) if vocabulary == "fit" else [])
        return self

    def reseed(self, random_state: RandomState) -> SynTFText:
        """Restart the randomness from ``random_state``, keeping the fitted vocabulary and mechanism (fitting again
        would cost the exact loss, and a vocabulary fitted on the input could not be fitted from nothing)."""
        self.random_state = random_state
        if hasattr(self, "syntf_"):
            self.syntf_.reseed(random_state)
        return self

    def obfuscate_records(self, raw_documents, record_ids, seed: int | None) -> list[str]:
        """SynTF's own per-record streams (:meth:`SynTF.transform_records`), reverse-vectorised."""
        from authorguard.data.release import Release

        if not hasattr(self, "syntf_"):
            self.fit()
        counts = self.syntf_.transform_records(list(raw_documents), list(record_ids), seed)
        out = Release(counts, tuple(self.syntf_.get_feature_names_out())).reverse_texts()
        self.record_statuses_ = self.record_statuses(list(raw_documents), out)
        return out

    def obfuscate(self, raw_documents) -> list[str]:
        """One synthetic bag of words per document, as text; a list of the same length."""
        from authorguard.data.release import Release

        if not hasattr(self, "syntf_"):
            self.fit()
        counts = self.syntf_.transform(raw_documents)
        return Release(counts, tuple(self.syntf_.get_feature_names_out())).reverse_texts()
