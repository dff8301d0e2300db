"""Obfuscation detectors: can an adversary tell a released document from an original one?

An obfuscator that hides the author but leaves a tell-tale trace (odd synonyms, missing words, a bag of words in
column order) invites a second look; Afroz et al. (IEEE S&P 2012) detected human obfuscation from its style and
Mahmood et al. (2020) machine obfuscation from language-model likelihoods (F1 ≈ 0.87). A detector is a binary
classifier trained on training documents in both versions (original = 0, released = 1) and scored on test
documents in both versions: F1 / accuracy 0.5 is chance (undetectable), 1.0 recognises every release.
Training and test are each capped at ``max_train_documents`` / ``max_test_documents`` documents per version (a
seeded sample) so the cost stays bounded on large scenarios.

Registered detectors (``registry.detectors``): ``char-ngrams`` (:class:`CharNgramDetector`, here) and
``lm-stylometric`` (:class:`authorguard.attacks.lm_detector.LikelihoodStyleDetector`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import Pipeline

from authorguard.data.release import Release
from authorguard.exceptions import InputError
from authorguard.metrics.classification import classification_scores, make_classifier


class ObfuscationDetector(ABC):
    """Original (0) vs released (1). Subclasses build ``model_`` from texts in :meth:`_fit_texts` and predict in
    :meth:`_predict_texts`. Parameters: ``max_train_documents``, ``max_test_documents`` (per version; 0 = all),
    ``random_state`` (samples and model)."""

    name: str = ""

    def __init__(
        self, max_train_documents: int = 2_000, max_test_documents: int = 0, random_state: int | None = None
    ) -> None:
        self.max_train_documents = max_train_documents
        self.max_test_documents = max_test_documents
        self.random_state = random_state

    @abstractmethod
    def _fit_texts(self, texts: list[str], labels: np.ndarray) -> None: ...

    @abstractmethod
    def _predict_texts(self, texts: list[str]) -> np.ndarray: ...

    def _sample(self, n: int, cap: int, salt: int) -> np.ndarray:
        keep = np.arange(n)
        if 0 < cap < n:
            rng = np.random.default_rng(None if self.random_state is None else [self.random_state, salt])
            keep = np.sort(rng.choice(n, cap, replace=False))
        return keep

    def fit(self, original: Release, released: Release) -> ObfuscationDetector:
        """Learn original (0) vs released (1) from the same documents in both versions."""
        if len(original) != len(released):
            raise InputError(f"detector: {len(original)} original but {len(released)} released training documents")
        keep = self._sample(len(original), self.max_train_documents, 0)
        texts = original.rows(keep).document_texts() + released.rows(keep).document_texts()
        self._fit_texts(texts, np.repeat([0, 1], len(keep)))
        return self

    def predict(self, release: Release) -> np.ndarray:
        """1 where a document looks released, 0 where it looks original; shape (n_documents,)."""
        return self._predict_texts(release.document_texts())

    def evaluate(
        self, train_original: Release, train_released: Release, test_original: Release, test_released: Release
    ) -> dict[str, float]:
        """Accuracy and macro F1 of telling the test documents' two versions apart (0.5 = chance)."""
        if len(test_original) != len(test_released):
            raise InputError(
                f"detector: {len(test_original)} original but {len(test_released)} released test documents"
            )
        self.fit(train_original, train_released)
        keep = self._sample(len(test_original), self.max_test_documents, 1)
        predicted = np.concatenate([self.predict(test_original.rows(keep)), self.predict(test_released.rows(keep))])
        scores = classification_scores(np.repeat([0, 1], len(keep)), predicted)
        scores["n_test"] = 2 * len(keep)
        return scores


class CharNgramDetector(ObfuscationDetector):
    """Character 1–4-gram tf-idf + linear SVM (the character n-gram attacker's features)."""

    name = "char-ngrams"

    def _fit_texts(self, texts: list[str], labels: np.ndarray) -> None:
        vectorizer = TfidfVectorizer(
            analyzer="char",
            ngram_range=(1, 4),
            sublinear_tf=True,
            lowercase=False,
            min_df=2 if len(texts) > 20 else 1,
            max_features=200_000,
            dtype=np.float32,
        )
        self.model_ = Pipeline([("tfidf", vectorizer), ("clf", make_classifier("svm", self.random_state))])
        self.model_.fit(texts, labels)

    def _predict_texts(self, texts: list[str]) -> np.ndarray:
        return self.model_.predict(texts)
