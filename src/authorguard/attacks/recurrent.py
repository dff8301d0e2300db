"""A⁴NT's attribute classifiers as attackers of the text benchmark: word-level LSTM or CNN sentence classifiers.

The attacker learns from the training documents' sentences (Punkt trained on them, lower-cased word tokens,
numbers -> ``NUM``, a vocabulary of the ``vocabulary_size`` most frequent tokens), each labelled with its
document's target (author or attribute class), sampled class-balanced; a document's prediction is the class with
the highest sum of its sentences' log-probabilities (paper, Section 6.1). Needs torch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from authorguard.attacks.base import Attacker
from authorguard.data.release import Release
from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number


class SentenceClassifierAttacker(Attacker):
    """Parameters: ``random_state``; ``width`` (LSTM units or filters per kernel width), ``embedding_dim``,
    ``steps`` (RMSprop steps of ``batch_size`` sentences), ``learning_rate``, ``vocabulary_size``,
    ``max_tokens`` (longer sentences are cut into pieces), ``max_sentences`` per class (seeded sample)."""

    own_classifier = "neural"
    kind = "lstm"

    def __init__(
        self,
        random_state: int | None = None,
        width: int = 128,
        embedding_dim: int = 64,
        steps: int = 600,
        batch_size: int = 64,
        learning_rate: float = 1e-3,
        vocabulary_size: int = 10000,
        max_tokens: int = 30,
        max_sentences: int = 20000,
    ) -> None:
        self.random_state = random_state
        self.width = width
        self.embedding_dim = embedding_dim
        self.steps = steps
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.vocabulary_size = vocabulary_size
        self.max_tokens = max_tokens
        self.max_sentences = max_sentences
        for name in ("width", "embedding_dim", "steps", "batch_size", "vocabulary_size", "max_tokens", "max_sentences"):
            check_number(getattr(self, name), name, type(self).__name__, kind=int, low=1, closed="left")
        check_number(learning_rate, "learning_rate", type(self).__name__, low=0, closed="neither")

    def fit(self, release: Release, authors: Sequence[str]) -> SentenceClassifierAttacker:
        import torch

        from authorguard.neural.a4nt.data import Preprocessor, SettingData, pad_batch
        from authorguard.neural.a4nt.loop import balanced_batch, clip_step
        from authorguard.neural.a4nt.networks import build_classifier
        from authorguard.neural.a4nt.text import SentenceSplitter, Vocabulary

        texts = release.document_texts()
        self.classes_ = sorted(set(authors))
        if len(self.classes_) < 2:
            raise InputError(f"{type(self).__name__}: fewer than two classes to learn")
        self.preprocessor_ = Preprocessor(SentenceSplitter.train(texts, 300000), self.max_tokens)
        documents = self.preprocessor_.sentences(texts)
        self.vocabulary_ = Vocabulary.build((s for d in documents for s in d), self.vocabulary_size)
        rng = np.random.default_rng(self.random_state)
        per_class = []
        for name in self.classes_:
            pool = [self.vocabulary_.encode(s) for d, a in zip(documents, authors) if a == name for s in d if s]
            if len(pool) > self.max_sentences:
                pool = [pool[i] for i in rng.choice(len(pool), self.max_sentences, replace=False)]
            per_class.append(pool or [[Vocabulary.unk]])
        data = SettingData(self.classes_, per_class, [], [], {})
        torch.manual_seed(int(rng.integers(2**31)))
        spec = {
            "kind": self.kind,
            "width": self.width,
            "layers": 1,
            "vocab_size": len(self.vocabulary_),
            "n_classes": len(self.classes_),
            "embedding_dim": self.embedding_dim,
            "dropout": 0.2,
        }
        self.model_ = build_classifier(spec)
        optimizer = torch.optim.RMSprop(self.model_.parameters(), lr=self.learning_rate)
        self.model_.train()
        self.losses_ = []
        for _ in range(self.steps):
            sentences, labels = balanced_batch(data, self.batch_size, rng)
            ids, mask = pad_batch(sentences)
            loss = torch.nn.functional.cross_entropy(self.model_(ids, mask), torch.tensor(labels))
            clip_step(optimizer, self.model_.parameters(), loss)
            self.losses_.append(loss.item())
        self.model_.eval()
        return self

    def predict(self, release: Release) -> np.ndarray:
        return np.asarray(self.classes_, dtype=object)[self.scores(release).argmax(1)]

    def scores(self, release: Release) -> np.ndarray:
        """The sum over a document's sentences of the classifier's per-sentence scores."""
        from authorguard.neural.a4nt.classifiers import sentence_scores
        from authorguard.neural.a4nt.text import Vocabulary

        rows = []
        for sentences in self.preprocessor_.sentences(release.document_texts()):
            encoded = [self.vocabulary_.encode(s) for s in sentences] or [[Vocabulary.unk]]
            rows.append(np.asarray(sentence_scores(self.model_, encoded), dtype=float).sum(0))
        return np.stack(rows) if rows else np.zeros((0, len(self.classes_)))


class LSTMAttacker(SentenceClassifierAttacker):
    name = "lstm"
    kind = "lstm"


class CNNAttacker(SentenceClassifierAttacker):
    name = "cnn"
    kind = "cnn"
