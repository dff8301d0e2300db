"""Author retrieval on unseen authors: MRR and recall@k (LUAR's evaluation, Rivera-Soto et al., 2021).

Each held-out author gives a query episode and a target episode of ``episode_size`` texts (disjoint, seeded); an
episode's embedding is the normalised mean of its texts'. Every query ranks all authors' targets by cosine;
the reciprocal rank of the author's own target is averaged (MRR), and recall@k is the share of queries whose
own target is among the k nearest. With A authors, chance MRR ≈ ln(A) / A and recall@k = k / A.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def retrieval_scores(
    pool: dict, embed: Callable[[list[str]], np.ndarray], episode_sizes=(1, 4), k: int = 8, seed: int = 0
) -> dict:
    """``{episode_size: {"mrr", "recall@k", "authors"}}`` for ``embed`` (texts -> (n, d) array) on ``pool``."""
    rng = np.random.default_rng(seed)
    keys = sorted(pool)
    largest = max(episode_sizes)
    picks = {key: rng.choice(len(pool[key]), 2 * largest, replace=False) for key in keys}
    texts = [pool[key][i] for key in keys for i in picks[key]]
    vectors = np.asarray(embed(texts), dtype=np.float64).reshape(len(keys), 2 * largest, -1)
    results = {}
    for size in episode_sizes:
        queries = _normalised(vectors[:, :size].mean(1))
        targets = _normalised(vectors[:, largest : largest + size].mean(1))
        similarity = queries @ targets.T
        own = np.diag(similarity)
        ranks = 1 + (similarity > own[:, None]).sum(1)
        results[size] = {
            "mrr": float(np.mean(1.0 / ranks)),
            f"recall@{k}": float(np.mean(ranks <= k)),
            "authors": len(keys),
        }
    return results


def _normalised(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def char_ngram_embedder(fit_texts: list[str]) -> Callable[[list[str]], np.ndarray]:
    """Baseline: tf-idf of character 1–4-grams (sublinear tf), dense rows, fitted on ``fit_texts``."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(
        analyzer="char",
        ngram_range=(1, 4),
        sublinear_tf=True,
        lowercase=False,
        min_df=2,
        max_features=50_000,
        dtype=np.float32,
    ).fit(fit_texts)
    return lambda texts: vectorizer.transform(texts).toarray()


def minilm_embedder(batch_size: int = 32) -> Callable[[list[str]], np.ndarray]:
    """Baseline: the untrained all-MiniLM-L6-v2 sentence embeddings (normalised)."""
    from authorguard.embeddings.sentence import load_sentence_encoder

    encoder = load_sentence_encoder()
    return lambda texts: encoder.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)
