"""The check's three default attackers, learnt from summed block counts (:mod:`authorguard.check.features`).

Each is the registered attacker of the same name with the same features and classifier — character 1-4-grams
(sublinear tf-idf, n-grams in two training pieces at least, linear SVM), function-word rates (the 100 most frequent
of NLTK's list, Burrows' z-scores, linear SVM), WritePrints-Limited with word and POS n-grams (each ranked group's
50 most frequent, max-abs scaling, linear SVM) — computed from a piece's counts instead of its text, so that the
background is never re-read. Two differences, both from counting in blocks: an n-gram crossing two blocks is not
counted, and WritePrints' ranked groups are chosen among the pool's vocabulary (its 5,000 most frequent word
bigrams and trigrams). ``tests/check/test_models.py`` measures how often each ranks like the registered attacker.

A model is fitted with ``fit(counts, labels, vocabulary)`` — ``counts``: {family: (n_pieces, width) sparse},
``vocabulary``: {family: column names} — and gives ``scores(counts)`` of shape (n_pieces, n_classes) in the order of
``classes_``, and ``terms(counts, writer, rival)``: per feature, its value times (the writer's weight - the
rival's), with the feature's name, which is what the evidence reads.
"""

from __future__ import annotations

import string
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from authorguard.check.features import FW_TOKENS
from authorguard.check.gram_svm import linear_svm, sparse_product
from authorguard.metrics.classification import estimator_scores

#: the classifier of every model: LinearSVC(C=1)'s model (:func:`~authorguard.check.gram_svm.linear_svm`) up to this
#: many candidates; beyond, :class:`CosineCentroids`
#: (liblinear's one-vs-rest SVM trains one binary SVM a candidate over every piece: at 1,000 candidates, ~14,000
#: pieces, minutes on 2 cores)
SVM_CANDIDATES = 200


class CosineCentroids:
    """The many-candidates classifier (Koppel, Schler & Argamon, 2011, "Authorship attribution in the wild": cosine
    similarity to each candidate's profile; on z-scored function-word rates it is Smith & Aldridge's Cosine Delta):
    a candidate's profile is the mean of its training rows, and a text's score for it is the cosine between the
    two. ``coef_``: the profiles scaled to unit length, so ``x @ coef_.T / |x|`` is the score (the evidence reads
    each feature's share of it). Written here because scikit-learn's ``NearestCentroid`` has Euclidean distances
    and no scores."""

    def fit(self, features, labels) -> CosineCentroids:
        labels = np.asarray(labels)
        self.classes_, owner = np.unique(labels, return_inverse=True)
        onehot = sp.csr_matrix(
            (np.ones(len(owner)), (owner, np.arange(len(owner)))), shape=(len(self.classes_), len(owner))
        )
        sums = onehot @ features  # sparse features keep sparse profiles (1,000 x 65,535 dense would be 0.5 GB)
        if sp.issparse(sums):
            norms = np.sqrt(np.asarray(sums.multiply(sums).sum(1)).ravel())
            self.coef_ = (sp.diags(1 / np.where(norms > 0, norms, 1.0)) @ sums).tocsr()
        else:
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            self.coef_ = sums / np.where(norms > 0, norms, 1.0)
        return self

    def decision_function(self, features) -> np.ndarray:
        if sp.issparse(features) and sp.issparse(self.coef_):
            scores = sparse_product(features, self.coef_.T)
        else:
            scores = features @ self.coef_.T
            scores = np.asarray(scores.todense() if sp.issparse(scores) else scores, dtype=np.float64)
        if sp.issparse(features):
            norms = np.sqrt(np.asarray(features.multiply(features).sum(1)).ravel())
        else:
            norms = np.linalg.norm(np.asarray(features, dtype=np.float64), axis=1)
        return scores / np.where(norms > 0, norms, 1.0)[:, None]


_REST = "\x00rest"  # sorts before every author's name


class LinearScores:
    """A fitted one-vs-rest linear classifier as its weights: ``decision_function(X) = X @ coef_.T + intercept_``."""

    def __init__(self, classes, coef: np.ndarray, intercept: np.ndarray) -> None:
        self.classes_, self.coef_, self.intercept_ = np.asarray(classes), np.asarray(coef), np.asarray(intercept)

    def decision_function(self, features) -> np.ndarray:
        return np.asarray(features @ self.coef_.T, dtype=np.float64) + self.intercept_


def merge_parts(parts: Sequence[CountModel]) -> CountModel:
    """One model from the parts of :meth:`CountModel.fit` (``part=(k, n)``, k = 0..n-1): their classes' weights
    in class order; the features (fitted alike in every part) are the first part's."""
    classes = np.concatenate([p.model_.classes_ for p in parts])
    order = np.argsort(classes, kind="stable")
    merged = parts[0]
    merged.model_ = LinearScores(
        classes[order],
        np.vstack([p.model_.coef_ for p in parts])[order],
        np.concatenate([p.model_.intercept_ for p in parts])[order],
    )
    merged.classes_ = merged.model_.classes_
    return merged


def _classifier(n_classes: int, n_samples: int, seed: int):
    if n_classes <= SVM_CANDIDATES:
        return linear_svm(n_samples, seed)
    return CosineCentroids()


class CountModel(ABC):
    """Base: ``families`` read; ``fit`` prepares features (``_prepare``) then the classifier."""

    name = ""
    families: tuple = ()
    #: the features' names, column order (set by each model's ``_prepare``)
    feature_names_: list[str]

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(
        self, counts: dict, labels: Sequence[str] | np.ndarray, vocabulary: dict, part: tuple[int, int] | None = None
    ) -> CountModel:
        """Fit on ``counts`` ({family: (n_pieces, width)}) of pieces by ``labels``. ``part=(k, n)``: only the
        one-vs-rest SVMs of every n-th class from the k-th (the others merged into one "rest" label, so each of
        these binary problems is the full one-vs-rest problem of its class); :func:`merge_parts` joins the n parts
        (two worker processes fit one large model in halves)."""
        features = self._prepare(counts, vocabulary)
        labels = np.asarray(labels)
        if part is None:
            self.model_ = _classifier(len(set(labels)), len(labels), self.seed).fit(features, labels)
        else:
            mine = np.unique(labels)[part[0] :: part[1]]
            relabelled = np.where(np.isin(labels, mine), labels, _REST)
            svm = linear_svm(len(labels), self.seed).fit(features, relabelled)
            classes = list(svm.classes_)
            if len(classes) == 2:  # one row: the second class's margin
                sign = np.array([1.0 if c == classes[1] else -1.0 for c in mine])
                coef, intercept = sign[:, None] * svm.coef_[[0] * len(mine)], sign * svm.intercept_[[0] * len(mine)]
            else:
                rows = [classes.index(c) for c in mine]
                coef, intercept = svm.coef_[rows], svm.intercept_[rows]
            self.model_ = LinearScores(mine, coef, intercept)
        self.classes_ = self.model_.classes_
        return self

    @abstractmethod
    def _prepare(self, counts: dict, vocabulary: dict):
        """Fit what the features need on the training ``counts`` (columns kept, idf, means, ranked groups) and
        return the training pieces' features."""

    @abstractmethod
    def features(self, counts: dict):
        """The features of ``counts``' pieces, (n_pieces, n_features), as the classifier reads them."""

    def scores(self, counts: dict) -> np.ndarray:
        return estimator_scores(self.model_, self.features(counts))

    def terms(self, counts: dict, writer: int, rival: int) -> tuple[np.ndarray, list]:
        """(value x (writer's weight - rival's) per feature for the first row of ``counts``, feature names)."""
        values = self.features(counts)
        values = values.toarray()[0] if sp.issparse(values) else np.asarray(values)[0]
        weights = self.model_.coef_

        def row(i: int) -> np.ndarray:
            return np.asarray(weights[i].todense()).ravel() if sp.issparse(weights) else np.asarray(weights[i])

        direction = (row(0) if writer == 1 else -row(0)) if weights.shape[0] == 1 else row(writer) - row(rival)
        return values * direction, self.feature_names_


class CharNgramModel(CountModel):
    """Character 1-4-grams: sublinear tf x smooth idf of the training pieces, l2-normalised rows (scikit-learn's
    ``TfidfVectorizer(sublinear_tf=True)``), n-grams in at least two training pieces."""

    name = "char-ngrams"
    families = ("char",)

    def _prepare(self, counts: dict, vocabulary: dict):
        matrix = counts["char"]
        n = matrix.shape[0]
        df = np.bincount(matrix.indices, minlength=matrix.shape[1])
        self.columns_ = np.flatnonzero(df >= (2 if n > 20 else 1))
        self.idf_ = (np.log((1 + n) / (1 + df[self.columns_])) + 1).astype(np.float32)
        self.feature_names_ = [vocabulary["char"][j] for j in self.columns_]
        return self.features(counts)

    def features(self, counts: dict):
        matrix = counts["char"][:, self.columns_].tocsr().astype(np.float32)
        matrix.sum_duplicates()
        # scaled in place (a product with a diagonal matrix copies, and costs seconds at 1,000 candidates)
        matrix.data = ((1 + np.log(matrix.data)) * self.idf_[matrix.indices]).astype(np.float32)
        norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(1)).ravel())
        matrix.data /= np.repeat(np.where(norms > 0, norms, 1), np.diff(matrix.indptr)).astype(np.float32)
        return matrix


class FunctionWordModel(CountModel):
    """Function-word rates (the 100 most frequent of the list in training), z-scored with the training mean and
    standard deviation."""

    name = "function-words"
    families = ("fw",)
    n_words = 100

    def _prepare(self, counts: dict, vocabulary: dict):
        from authorguard.text.resources import english_stop_words

        names = vocabulary["fw"]
        self.tokens_column_ = names.index(FW_TOKENS) if FW_TOKENS in names else None
        stop = sorted(english_stop_words())
        place = {k: j for j, k in enumerate(names)}
        self.word_columns_ = np.asarray([place.get(w, -1) for w in stop])
        self.stop_ = stop
        rates = self._rates(counts)
        self.columns_ = np.argsort(-rates.mean(axis=0), kind="stable")[: self.n_words]
        chosen = rates[:, self.columns_]
        self.mean_ = chosen.mean(axis=0)
        spread = chosen.std(axis=0)
        self.scale_ = np.where(spread > 0, spread, 1.0)
        self.feature_names_ = [stop[j] for j in self.columns_]
        return self.features(counts)

    def _rates(self, counts: dict) -> np.ndarray:
        matrix = counts["fw"].toarray()
        found = np.where(self.word_columns_[None, :] >= 0, matrix[:, np.maximum(self.word_columns_, 0)], 0.0)
        tokens = matrix[:, self.tokens_column_] if self.tokens_column_ is not None else np.zeros(len(matrix))
        return found / np.maximum(tokens, 1.0)[:, None]

    def features(self, counts: dict):
        return (self._rates(counts)[:, self.columns_] - self.mean_) / self.scale_


_LETTERS = string.ascii_lowercase
_SPECIAL = "~@#$%^&*-_=+><[]{}/\\|.,;:!?'\"()"
_MAX_WORD_LENGTH = 20
_TOP = 50


class WritePrintsModel(CountModel):
    """WritePrints-Limited with the word and POS n-gram groups (``authorguard.attacks.writeprints``), each group's
    share computed from the pieces' counts; max-abs scaled."""

    name = "writeprints-text"
    families = ("char", "words", "tokens", "pos")

    def _prepare(self, counts: dict, vocabulary: dict):
        from authorguard.text.resources import english_stop_words

        chars = vocabulary["char"]
        width = len(chars)

        def column_map(pick) -> tuple[sp.csr_matrix, list]:
            """A (width, k) 0/1 matrix summing the char columns each output key collects."""
            keys: dict[str, int] = {}
            rows, cols = [], []
            for j, gram in enumerate(chars):
                key = pick(gram)
                if key is not None:
                    rows.append(j)
                    cols.append(keys.setdefault(key, len(keys)))
            return sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(width, len(keys))), list(
                keys
            )

        letters = set(_LETTERS)
        self.unigrams_, unigram_names = column_map(lambda g: g if len(g) == 1 else None)
        self.unigram_names_ = unigram_names
        self.letter_grams_, self.letter_gram_names_ = column_map(
            lambda g: g.lower() if len(g) in (2, 3) and set(g.lower()) <= letters else None
        )
        words = vocabulary["words"]
        self.word_names_ = words
        self.word_lengths_ = np.minimum(np.asarray([len(w) for w in words]), _MAX_WORD_LENGTH)
        place = {w: j for j, w in enumerate(words)}
        self.function_words_ = np.asarray([place.get(w, -1) for w in sorted(english_stop_words())])
        self.function_word_names_ = sorted(english_stop_words())
        # the ranked groups: the training pieces' most frequent members
        sums = {family: np.asarray(counts[family].sum(0)).ravel() for family in ("char", "words", "tokens", "pos")}
        gram_totals = np.asarray(sums["char"] @ self.letter_grams_).ravel()
        self.bigrams_ = self._top(
            [j for j, g in enumerate(self.letter_gram_names_) if len(g) == 2], gram_totals, self.letter_gram_names_
        )
        self.trigrams_ = self._top(
            [j for j, g in enumerate(self.letter_gram_names_) if len(g) == 3], gram_totals, self.letter_gram_names_
        )
        self.frequent_ = self._top(range(len(words)), sums["words"], words)
        tokens, tags = vocabulary["tokens"], vocabulary["pos"]
        self.token_groups_ = [
            (n, self._top([j for j, k in enumerate(tokens) if k.startswith(f"{n}:")], sums["tokens"], tokens))
            for n in (2, 3)
        ]
        self.tag_groups_ = [
            (n, self._top([j for j, k in enumerate(tags) if k.startswith(f"{n}:")], sums["pos"], tags))
            for n in (1, 2, 3)
        ]
        self.feature_names_ = (
            ["total_characters", "total_words", "share_letters", "share_upper", "share_digits"]
            + [f"letter:{c}" for c in _LETTERS]
            + [f"bigram:{self.letter_gram_names_[j]}" for j in self.bigrams_]
            + [f"trigram:{self.letter_gram_names_[j]}" for j in self.trigrams_]
            + [f"digit:{d}" for d in string.digits]
            + [f"word_length:{n}" for n in range(1, _MAX_WORD_LENGTH + 1)]
            + ["hapax_legomena", "dis_legomena", "yules_k"]
            + [f"special:{c}" for c in _SPECIAL]
            + [f"function_word:{w}" for w in self.function_word_names_]
            + [f"word:{words[j]}" for j in self.frequent_]
            + [f"word_{n}gram:{tokens[j][2:]}" for n, top in self.token_groups_ for j in top]
            + [f"pos_{n}gram:{tags[j][2:]}" for n, top in self.tag_groups_ for j in top]
        )
        raw = self._raw(counts)
        self.scale_ = np.where(np.abs(raw).max(0) > 0, np.abs(raw).max(0), 1.0)
        return raw / self.scale_

    @staticmethod
    def _top(columns, totals: np.ndarray, names: list) -> list:
        columns = [j for j in columns if totals[j] > 0]
        return sorted(columns, key=lambda j: (-totals[j], names[j]))[:_TOP]

    def _raw(self, counts: dict) -> np.ndarray:
        char, words = counts["char"], counts["words"]
        unigrams = np.asarray((char @ self.unigrams_).todense())
        place = {c: j for j, c in enumerate(self.unigram_names_)}

        def chars(members) -> np.ndarray:
            cols = [place[c] for c in members if c in place]
            return unigrams[:, cols].sum(1) if cols else np.zeros(len(unigrams))

        n_chars = unigrams.sum(1)
        upper = chars([c for c in self.unigram_names_ if c.isupper()])
        letter_counts = np.column_stack([chars([c, c.upper()]) for c in _LETTERS])
        letters = letter_counts.sum(1)
        digit_counts = np.column_stack([chars([d]) for d in string.digits])
        digits = digit_counts.sum(1)
        special = np.column_stack([chars([c]) for c in _SPECIAL])
        punctuation = chars([c for c in self.unigram_names_ if not (c.isalnum() or c == "_" or c.isspace())])
        grams = np.asarray((char @ self.letter_grams_).todense())
        word_counts = words.tocsr()
        n_words = np.asarray(word_counts.sum(1)).ravel()
        n_tokens = n_words + punctuation
        lengths = np.column_stack(
            [np.asarray(word_counts[:, self.word_lengths_ == n].sum(1)).ravel() for n in range(1, _MAX_WORD_LENGTH + 1)]
        )
        ones = word_counts.copy()
        ones.data = (ones.data == 1).astype(np.float32)
        twos = word_counts.copy()
        twos.data = (twos.data == 2).astype(np.float32)
        types = np.diff(word_counts.indptr).astype(float)
        squares = word_counts.copy()
        squares.data = squares.data.astype(np.float64) ** 2
        square_sum = np.asarray(squares.sum(1)).ravel()

        def share(values, total) -> np.ndarray:
            values = np.asarray(values, dtype=float)
            total = np.asarray(total, dtype=float)
            out = np.zeros_like(values)
            np.divide(
                values,
                total[:, None] if values.ndim == 2 else total,
                out=out,
                where=(total[:, None] if values.ndim == 2 else total) > 0,
            )
            return out

        dense_words = word_counts[:, np.maximum(self.function_words_, 0)].toarray() * (self.function_words_ >= 0)
        frequent = word_counts[:, self.frequent_].toarray() if self.frequent_ else np.zeros((len(n_words), 0))
        yules_k = share(1e4 * (square_sum - n_words), n_words**2)
        groups = []
        for n, top in self.token_groups_:
            groups.append(share(counts["tokens"][:, top].toarray(), np.maximum(n_tokens - n + 1, 0)))
        for n, top in self.tag_groups_:
            groups.append(share(counts["pos"][:, top].toarray(), np.maximum(n_tokens - n + 1, 0)))
        return np.column_stack(
            [
                n_chars,
                n_words,
                share(letters, n_chars),
                share(upper, n_chars),
                share(digits, n_chars),
                share(letter_counts, letters),
                share(grams[:, self.bigrams_], np.maximum(letters - 1, 0)),
                share(grams[:, self.trigrams_], np.maximum(letters - 2, 0)),
                share(digit_counts, digits),
                share(lengths, n_words),
                share(np.asarray(ones.sum(1)).ravel(), types),
                share(np.asarray(twos.sum(1)).ravel(), types),
                yules_k,
                share(special, n_chars),
                share(dense_words, n_words),
                share(frequent, n_words),
            ]
            + groups
        )

    def features(self, counts: dict) -> np.ndarray:
        return self._raw(counts) / self.scale_


#: attacker name -> its count model (the check runs these attackers from cached counts)
MODELS = {model.name: model for model in (CharNgramModel, FunctionWordModel, WritePrintsModel)}
