"""A paraphrase's new words, judged where they stand: is an output word the input does not support a substitution
for a word its aligned input sentence lost ("fierce" -> "heavy", "community" -> "town"), or an invention?

The fidelity meter (:mod:`authorguard.metrics.fidelity`) supports an output word by WordNet (lemma, synonyms,
hypernyms, derivations). Honest paraphrases use words WordNet does not relate, so a meter reading every such word as
invention calls them ``changed`` (issue 65 measured 34 of 67 honest held-out paraphrases). Here each unsupported
output word is paired with the input words its sentence lost: the output sentence is aligned to the input sentence
whose content words it shares most, and the word's best cosine (GloVe 6B 50-d, the project's default word vectors)
to a lost word of that sentence decides. Word vectors cannot tell a synonym from a co-hyponym or an antonym (``dog``
/ ``cat`` 0.92, ``good`` / ``bad`` 0.80): a substitution found here is never read as faithful — it makes the verdict
``unsure`` unless something else settles it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np


@functools.cache
def _vectors() -> tuple[dict[str, int], np.ndarray]:
    from authorguard.embeddings.loading import load_word_vectors

    vectors = load_word_vectors("glove-6b-50d")
    matrix = np.asarray(vectors.vectors, dtype=np.float32)
    matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    return {w: i for i, w in enumerate(vectors.words)}, matrix


def similarity(a: str, b: str) -> float | None:
    """The cosine of two words' GloVe vectors (lower case), None when either is unknown."""
    index, matrix = _vectors()
    i, j = index.get(a.lower()), index.get(b.lower())
    return None if i is None or j is None else float(matrix[i] @ matrix[j])


def aligned(sentence: frozenset[str], others: Sequence[frozenset[str]]) -> int | None:
    """The index of the sentence of ``others`` sharing most content words with ``sentence`` (None when none
    shares any)."""
    best, best_overlap = None, 0
    for k, other in enumerate(others):
        overlap = len(sentence & other)
        if overlap > best_overlap:
            best, best_overlap = k, overlap
    return best


def substitutions(
    unsupported: Sequence[str],
    lost: Sequence[str],
    output_sentences: Sequence[frozenset[str]],
    input_sentences: Sequence[frozenset[str]],
    threshold: float,
) -> dict[str, tuple[str, float]]:
    """``{output word: (the lost input word it stands for, cosine)}`` for each unsupported output word whose best
    cosine to a word lost from its aligned input sentence (from the whole input, when the sentence aligns with
    none) reaches ``threshold``."""
    lost_set = set(lost)
    found: dict[str, tuple[str, float]] = {}
    for word in unsupported:
        candidates: set[str] = set()
        for sentence in output_sentences:
            if word in sentence:
                k = aligned(sentence, input_sentences)
                candidates |= (input_sentences[k] & lost_set) if k is not None else lost_set
        best = max(
            ((c, s) for c in candidates if (s := similarity(word, c)) is not None), key=lambda p: p[1], default=None
        )
        if best is not None and best[1] >= threshold:
            found[word] = (best[0], round(best[1], 3))
    return found
