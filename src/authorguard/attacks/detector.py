"""The obfuscation detector: can an adversary tell a released document from an original one?

An obfuscator that hides the author but leaves a tell-tale trace (odd synonyms, missing words, a bag of words in
column order) invites a second look; Afroz et al. (IEEE S&P 2012) detected human obfuscation from its style.
The detector is a binary classifier, character 1–4-gram tf-idf + linear SVM (the same features as the
character n-gram attacker), trained on training documents in both versions (original = 0, released = 1) and
scored on the attacked test documents in both versions. Accuracy 0.5 is chance: the release is undetectable;
1.0: every release is recognised. Training is capped at ``max_train_documents`` documents per version (a seeded
sample) so the cost stays bounded on large scenarios.
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import Pipeline

from authorguard.data.release import Release
from authorguard.exceptions import InputError
from authorguard.metrics.classification import classification_scores, make_classifier


class ObfuscationDetector:
    """Parameters: ``max_train_documents`` (per version, default 2,000); ``random_state`` (sample and SVM)."""

    def __init__(self, max_train_documents: int = 2_000, random_state: int | None = None) -> None:
        self.max_train_documents = max_train_documents
        self.random_state = random_state

    def fit(self, original: Release, released: Release) -> ObfuscationDetector:
        """Learn original (0) vs released (1) from the same documents in both versions."""
        if len(original) != len(released):
            raise InputError(f"detector: {len(original)} original but {len(released)} released training documents")
        rng = np.random.default_rng(self.random_state)
        keep = np.arange(len(original))
        if len(keep) > self.max_train_documents:
            keep = np.sort(rng.choice(len(keep), self.max_train_documents, replace=False))
        texts = original.rows(keep).document_texts() + released.rows(keep).document_texts()
        labels = np.repeat([0, 1], len(keep))
        vectorizer = TfidfVectorizer(analyzer="char", ngram_range=(1, 4), sublinear_tf=True, lowercase=False,
                                     min_df=2 if len(texts) > 20 else 1, max_features=200_000, dtype=np.float32)
        self.model_ = Pipeline([("tfidf", vectorizer), ("clf", make_classifier("svm", self.random_state))])
        self.model_.fit(texts, labels)
        return self

    def predict(self, release: Release) -> np.ndarray:
        """1 where a document looks released, 0 where it looks original; shape (n_documents,)."""
        return self.model_.predict(release.document_texts())

    def evaluate(self, train_original: Release, train_released: Release, test_original: Release,
                 test_released: Release) -> dict[str, float]:
        """Accuracy and macro F1 of telling the test documents' two versions apart (0.5 = chance)."""
        self.fit(train_original, train_released)
        predicted = np.concatenate([self.predict(test_original), self.predict(test_released)])
        truth = np.repeat([0, 1], [len(test_original), len(test_released)])
        return classification_scores(truth, predicted)
