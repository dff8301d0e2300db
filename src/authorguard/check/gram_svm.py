"""scikit-learn's ``LinearSVC`` (squared hinge, L2 penalty, one-vs-rest, ``intercept_scaling=1``), solved where
the check has few pieces and many features: in the dual, over the pieces' Gram matrix.

The check's character n-gram attacker learns 100 candidates from ~720 pieces of ~56,000 columns (~3,200 non-zero a
row). liblinear's dual coordinate descent (what ``LinearSVC`` runs) updates one piece's weight at a time and pays a
sparse dot product with that piece's row for it, 100 times over (one binary problem a candidate): 14-15 s on one
core. The same descent over the Gram matrix ``X Xᵀ + 1`` (computed once for every candidate; the ``+ 1`` is
liblinear's bias feature) pays a row of 720 numbers instead and needs no update at all for the pieces that stay
outside the margin. It solves the same strictly convex problem — the weights are ``Xᵀ (α ∘ y)``, the bias
``Σ α ∘ y`` — with liblinear's stopping rule (the projected gradient's spread within ``tol``), so its decision values
agree with ``LinearSVC``'s to the solver's tolerance (``tests/check/test_gram_svm.py`` compares the two; rankings
are the same). liblinear has no precomputed-kernel mode and libsvm's (``SVC(kernel="precomputed")``) solves
another problem (hinge loss, an unpenalised bias), so the descent is written here, with numba.

Reference: Hsieh, Chang, Lin, Keerthi & Sundararajan (2008), "A dual coordinate descent method for large-scale
linear SVM", ICML — Algorithm 1 with ``D_ii = 1 / (2C)`` (the squared hinge) and ``U = ∞``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit, prange

#: beyond this many pieces the Gram matrix (n² float64) costs more than it saves: ``LinearSVC`` is used
MAX_GRAM_SAMPLES = 6_000
#: the seeded visiting orders the descent cycles through (liblinear draws a new one each pass)
_ORDERS = 16


@njit(cache=True, parallel=True, nogil=True)
def _dual_descent(gram, signs, diagonal, tol, max_iter, orders):  # pragma: no cover - compiled
    """α (m, n) of m binary squared-hinge SVMs sharing the Gram matrix ``gram`` (n, n; the bias's 1 included):
    problem c's labels are ``signs[c]`` (±1). Returns α and each problem's passes."""
    problems, n = signs.shape
    alphas = np.zeros((problems, n))
    passes = np.zeros(problems, dtype=np.int64)
    for c in prange(problems):
        y = signs[c]
        alpha = alphas[c]
        margin = np.zeros(n)  # gram @ (alpha * y)
        done = 0
        for iteration in range(max_iter):
            order = orders[iteration % orders.shape[0]]
            highest, lowest = -np.inf, np.inf
            for position in range(n):
                i = order[position]
                gradient = y[i] * margin[i] - 1.0 + diagonal * alpha[i]
                projected = min(gradient, 0.0) if alpha[i] == 0.0 else gradient
                highest = max(highest, projected)
                lowest = min(lowest, projected)
                if projected != 0.0:
                    new = max(alpha[i] - gradient / (gram[i, i] + diagonal), 0.0)
                    step = (new - alpha[i]) * y[i]
                    if step != 0.0:
                        alpha[i] = new
                        row = gram[i]
                        for j in range(n):
                            margin[j] += step * row[j]
            done = iteration + 1
            if highest - lowest <= tol:
                break
        passes[c] = done
    return alphas, passes


#: columns turned dense at a time: a block of ~1,500 pieces x 8,192 columns is 50 MB of float32
_BLOCK_COLUMNS = 8192


def _column_blocks(features):
    """``features``' columns in dense float32 blocks, in order: the products with them run in BLAS (a sparse
    product of the 720 x 56,000 pieces with themselves takes 3.6 s, the dense blocks 0.7 s)."""
    if not sp.issparse(features):
        yield np.asarray(features, dtype=np.float32)
        return
    columns = features.tocsc()
    for start in range(0, columns.shape[1], _BLOCK_COLUMNS):
        yield columns[:, start : start + _BLOCK_COLUMNS].toarray().astype(np.float32, copy=False)


@njit(cache=True, parallel=True, nogil=True)
def _sparse_rows_times(indptr, indices, data, other_indptr, other_indices, other_data, width):  # pragma: no cover
    out = np.zeros((len(indptr) - 1, width))
    for i in prange(len(indptr) - 1):
        row = out[i]
        for k in range(indptr[i], indptr[i + 1]):
            column, value = indices[k], data[k]
            for m in range(other_indptr[column], other_indptr[column + 1]):
                row[other_indices[m]] += value * other_data[m]
    return out


#: a column is multiplied densely (BLAS) when the product of its two densities is at least this: BLAS does ~20
#: multiply-adds in the time the sparse loop does one
DENSE_PRODUCT_SHARE = 1 / 16


def sparse_product(left, right) -> np.ndarray:
    """``left @ right`` of two sparse matrices as a dense float64 array (n, m): the check's scores of thousands of
    pieces against a thousand profiles (3,240 x 65,640 by 65,640 x 811), whose result is dense. scipy's
    sparse-sparse product builds it as a sparse matrix, in two passes, single-threaded: 31 s here. Columns of the
    inner dimension that are dense on both sides (the common character n-grams) go through float32 BLAS in blocks
    of :data:`_BLOCK_COLUMNS`, the rest through a compiled sparse loop: 1.7 s, equal to 3e-7."""
    left, right = sp.csc_matrix(left), sp.csr_matrix(right)
    share = np.diff(left.indptr) / max(left.shape[0], 1) * np.diff(right.indptr) / max(right.shape[1], 1)
    dense = np.flatnonzero(share >= DENSE_PRODUCT_SHARE)
    out = np.zeros((left.shape[0], right.shape[1]))
    for start in range(0, len(dense), _BLOCK_COLUMNS):
        block = dense[start : start + _BLOCK_COLUMNS]
        out += left[:, block].toarray().astype(np.float32) @ right[block].toarray().astype(np.float32)
    rest = np.setdiff1d(np.arange(left.shape[1]), dense, assume_unique=True)
    sparse_left, sparse_right = left[:, rest].tocsr(), right[rest]
    out += _sparse_rows_times(
        sparse_left.indptr,
        sparse_left.indices,
        sparse_left.data.astype(np.float64),
        sparse_right.indptr,
        sparse_right.indices,
        sparse_right.data.astype(np.float64),
        right.shape[1],
    )
    return out


class GramLinearSVC:
    """``LinearSVC(C=C, tol=tol, max_iter=max_iter)``'s model, fitted over the Gram matrix: ``fit(X, y)`` with
    ``X`` (n_pieces, n_features), sparse or dense; then ``classes_``, ``coef_`` (n_classes, n_features; one row
    for two classes, the second class's margin), ``intercept_``, ``n_iter_`` (the most passes of one binary
    problem) and ``decision_function(X)`` (n, n_classes), as scikit-learn's. ``seed`` orders the descent."""

    def __init__(self, C: float = 1.0, tol: float = 1e-4, max_iter: int = 1000, seed: int = 0) -> None:
        self.C, self.tol, self.max_iter, self.seed = C, tol, max_iter, seed

    def fit(self, features, labels) -> GramLinearSVC:
        labels = np.asarray(labels)
        self.classes_ = np.unique(labels)
        if len(self.classes_) < 2:
            raise ValueError("GramLinearSVC needs two classes at least")
        positives = self.classes_[1:] if len(self.classes_) == 2 else self.classes_
        signs = np.where(labels[None, :] == positives[:, None], 1.0, -1.0)
        gram = np.ones((len(labels), len(labels)))  # the bias feature's 1 in every product
        for block in _column_blocks(features):
            gram += block @ block.T
        rng = np.random.default_rng(self.seed)
        orders = np.stack([rng.permutation(len(labels)) for _ in range(_ORDERS)]).astype(np.int64)
        alphas, passes = _dual_descent(gram, signs, 0.5 / self.C, self.tol, self.max_iter, orders)
        weights = alphas * signs  # (problems, n): w = Xᵀ (α ∘ y), bias = Σ α ∘ y
        self.coef_ = np.hstack([weights @ block for block in _column_blocks(features)])
        self.intercept_ = weights.sum(axis=1)
        self.n_iter_ = int(passes.max())
        return self

    def decision_function(self, features) -> np.ndarray:
        scores = np.asarray(features @ self.coef_.T, dtype=np.float64) + self.intercept_
        return scores.ravel() if len(self.classes_) == 2 else scores


def linear_svm(n_samples: int, seed: int):
    """The check's linear SVM (``LinearSVC(C=1)``'s model): :class:`GramLinearSVC` up to
    :data:`MAX_GRAM_SAMPLES` pieces, ``LinearSVC`` beyond."""
    if n_samples <= MAX_GRAM_SAMPLES:
        return GramLinearSVC(C=1.0, seed=seed)
    from sklearn.svm import LinearSVC

    return LinearSVC(C=1.0, random_state=seed)
