"""A paraphrase's new words, judged where they stand: is an output word the input does not support a substitution
for a word its aligned input sentence lost ("fierce" -> "heavy", "community" -> "town"), or an invention?

The fidelity meter (:mod:`authorguard.metrics.fidelity`) supports an output word by WordNet (lemma, synonyms,
hypernyms, derivations). Honest paraphrases use words WordNet does not relate, so a meter reading every such word as
invention calls them ``changed`` (34 of 67 honest held-out paraphrases). Here each unsupported
output word is paired with the input words its sentence lost: the output sentence is aligned to the input sentence
whose content words it shares most, and the word's best cosine (GloVe 6B 50-d, the project's default word vectors)
to a lost word of that sentence decides. Word vectors cannot tell a synonym from a co-hyponym or an antonym (``dog``
/ ``cat`` 0.92, ``good`` / ``bad`` 0.80): a substitution found here is never read as faithful — it makes the verdict
``unsure`` unless something else settles it: the sentence it stands in (:func:`paraphrased`). An output sentence
holding new words whose all-MiniLM-L6-v2 embedding is as close to its aligned input sentence as honest paraphrases
are (a cosine threshold chosen on development labels) says what that sentence said — its new words are the
paraphrase's, not inventions. Without the ``minilm`` extra nothing is settled this way.
"""

from __future__ import annotations

import functools
import re
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


@functools.cache
def _sentence_encoder():
    """all-MiniLM-L6-v2, loaded once per process; None without the ``minilm`` extra."""
    from authorguard.embeddings.sentence import load_sentence_encoder
    from authorguard.exceptions import DataNotFoundError

    try:
        return load_sentence_encoder()
    except DataNotFoundError:
        return None


@functools.lru_cache(maxsize=50_000)
def _sentence_vector(text: str) -> np.ndarray:
    return _sentence_encoder().encode([text], normalize_embeddings=True, convert_to_numpy=True)[0]


_LETTERS = re.compile(r"[^\W\d_]+")
#: the share of their words (Jaccard) above which two aligned sentences are one with a word swapped, not a
#: paraphrase (set before looking at any figure: a paraphrase rewrites, a substitution keeps the rest)
KEPT_WORDS = 0.6


def paraphrased(
    words: Sequence[str],
    output_sentences: Sequence[frozenset[str]],
    input_sentences: Sequence[frozenset[str]],
    output_texts: Sequence[str],
    input_texts: Sequence[str],
    threshold: float,
) -> float | None:
    """The lowest MiniLM cosine between an output sentence holding one of ``words`` and the input sentence it
    aligns with (:func:`aligned`), when every such sentence aligns with one, is rewritten (shares less than
    :data:`KEPT_WORDS` of its words with it) and reaches ``threshold``: those words are a paraphrase's. None when
    one does not (or the encoder is missing, or the sentences were not kept)."""
    from authorguard.utils.extras import importable

    # the encoder's packages may be gone (an install without the extra; a test that hides them) even after a load
    if not importable("sentence_transformers") or _sentence_encoder() is None:
        return None
    if len(output_texts) != len(output_sentences):
        return None
    lowest = 1.0
    for sentence, text in zip(output_sentences, output_texts):
        if not any(w in sentence for w in words):
            continue
        k = aligned(sentence, input_sentences)
        if k is None or k >= len(input_texts):
            return None
        # a sentence that keeps most of its words and swaps one is a substitution, not a paraphrase: its embedding
        # barely moves for "her house" -> "her car"
        said, wrote = set(_LETTERS.findall(input_texts[k].lower())), set(_LETTERS.findall(text.lower()))
        if len(said & wrote) / max(len(said | wrote), 1) >= KEPT_WORDS:
            return None
        cosine = float(_sentence_vector(text) @ _sentence_vector(input_texts[k]))
        if cosine < threshold:
            return None
        lowest = min(lowest, cosine)
    return round(lowest, 3)
