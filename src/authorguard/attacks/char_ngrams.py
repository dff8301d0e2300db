"""Character n-gram attacker: tf-idf of character 1–4-grams + a linear SVM or naive Bayes.

The standard strong baseline of authorship attribution (Stamatatos, 2009: "A Survey of Modern Authorship
Attribution Methods"): character n-grams catch spelling, punctuation, affixes and function-word habits together.
It reads text (:meth:`Release.document_texts`): a text release's texts, a vector release's reverse-vectorised
counts. Sublinear tf, n-grams in at least 2 training documents, at most 200,000 of them (memory stays bounded on
large scenarios such as BAC-20).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import Pipeline

from authorguard.attacks.base import Attacker
from authorguard.data.release import Release
from authorguard.metrics.classification import estimator_scores, make_classifier

MAX_FEATURES = 200_000


class CharNgramAttacker(Attacker):
    """Parameters: ``classifier`` in {"nb", "svm"}; ``ngram_range`` (default (1, 4)); ``random_state``."""

    name = "char-ngrams"

    def __init__(
        self, classifier: str = "svm", ngram_range: tuple[int, int] = (1, 4), random_state: int | None = None
    ) -> None:
        self.classifier = classifier
        self.ngram_range = ngram_range
        self.random_state = random_state

    def fit(self, release: Release, authors: Sequence[str]) -> CharNgramAttacker:
        texts = release.document_texts()
        vectorizer = TfidfVectorizer(
            analyzer="char",
            ngram_range=tuple(self.ngram_range),
            sublinear_tf=True,
            lowercase=False,
            min_df=2 if len(texts) > 20 else 1,
            max_features=MAX_FEATURES,
            dtype=np.float32,
        )
        self.model_ = Pipeline([("tfidf", vectorizer), ("clf", make_classifier(self.classifier, self.random_state))])
        self.model_.fit(texts, np.asarray(authors))
        self.classes_ = self.model_.classes_
        return self

    def predict(self, release: Release) -> np.ndarray:
        return self.model_.predict(release.document_texts())

    def scores(self, release: Release) -> np.ndarray:
        return estimator_scores(self.model_, release.document_texts())
