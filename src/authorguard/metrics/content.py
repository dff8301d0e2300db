"""How much of a document's content survives its rewrite: the text benchmark's content metrics.

Per (original, rewritten) pair, each in [0, 1], higher = closer to the original:

- ``meteor``: METEOR (Banerjee & Lavie, 2005) by NLTK, with WordNet synonyms, on lower-cased word tokens;
- ``bleu``: sentence BLEU by sacrebleu (exponential smoothing, its default for sentences), / 100;
- ``chrf``: chrF (Popović, 2015) by sacrebleu, / 100;
- ``rouge1``, ``rouge2``, ``rougeL``: ROUGE F-measures by rouge-score (its tokenizer: lower case, alphanumerics);
- ``embedding_cosine``: cosine of the all-MiniLM-L6-v2 sentence embeddings (when the ``minilm`` extra is
  installed; long documents are truncated by the encoder to 256 word pieces, said in the report);
- ``unchanged``: 1 when the rewrite is the original, character for character;
- ``words_kept``: the share of the original's words found, in order, in the rewrite (ROUGE-L's recall: the longest
  common subsequence over the original's length) — what ``generalise``'s levels are documented by.

:func:`content_metrics` returns every per-document value and their means; a rewrite list of another length
than the originals is an error, never a silent truncation.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_texts

METRICS = ("meteor", "bleu", "chrf", "rouge1", "rouge2", "rougeL", "embedding_cosine", "unchanged", "words_kept")
_TOKEN = re.compile(r"\w+|[^\w\s]")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def meteor(original: str, rewritten: str) -> float:
    """METEOR of ``rewritten`` against the reference ``original`` (0 when either has no token)."""
    from nltk.translate.meteor_score import meteor_score

    from authorguard.text.resources import wordnet

    reference, hypothesis = _tokens(original), _tokens(rewritten)
    if not reference or not hypothesis:
        return float(reference == hypothesis)
    return float(meteor_score([reference], hypothesis, wordnet=wordnet()))


def content_metrics(
    originals: Sequence[str], rewritten: Sequence[str], *, embeddings: bool = True, batch_size: int = 32
) -> dict[str, dict]:
    """Every content metric for each pair: ``{"per_document": {metric: list of float}, "mean": {metric: float}}``.

    ``embeddings=False`` (or no ``minilm`` extra) leaves ``embedding_cosine`` out.
    """
    import sacrebleu
    from rouge_score import rouge_scorer

    originals = check_texts(originals, "content_metrics")
    rewritten = check_texts(rewritten, "content_metrics")
    if len(originals) != len(rewritten):
        raise InputError(f"content metrics: {len(originals)} originals but {len(rewritten)} rewritten documents")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    ngram_scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"])
    values: dict[str, list[float]] = {name: [] for name in METRICS if name != "embedding_cosine"}
    for original, new in zip(originals, rewritten):
        values["meteor"].append(meteor(original, new))
        values["bleu"].append(sacrebleu.sentence_bleu(new, [original]).score / 100.0)
        values["chrf"].append(sacrebleu.sentence_chrf(new, [original]).score / 100.0)
        if original == new:
            # ROUGE-L's LCS table is quadratic in pure Python (minutes for a corpus of long documents); a text's
            # longest common subsequence with itself is the text, so its F-measure is ROUGE-1's: 1, or 0 without tokens
            rouge = ngram_scorer.score(original, new)
            rouge_l = kept = rouge["rouge1"].fmeasure
        else:
            rouge = scorer.score(original, new)
            rouge_l, kept = rouge["rougeL"].fmeasure, rouge["rougeL"].recall
        values["rouge1"].append(float(rouge["rouge1"].fmeasure))
        values["rouge2"].append(float(rouge["rouge2"].fmeasure))
        values["rougeL"].append(float(rouge_l))
        values["unchanged"].append(float(original == new))
        values["words_kept"].append(float(kept))
    if embeddings and originals:
        cosines = embedding_cosines(originals, rewritten, batch_size=batch_size)
        if cosines is not None:
            values["embedding_cosine"] = cosines
    return {
        "per_document": values,
        "mean": {name: float(np.mean(v)) if v else float("nan") for name, v in values.items()},
    }


@functools.cache
def _encoder():
    """The MiniLM encoder, loaded once per process; None without the ``minilm`` extra."""
    from authorguard.embeddings.sentence import load_sentence_encoder
    from authorguard.exceptions import DataNotFoundError

    try:
        return load_sentence_encoder()
    except DataNotFoundError:
        return None


def embedding_cosines(originals: Sequence[str], rewritten: Sequence[str], batch_size: int = 32) -> list[float] | None:
    """Cosine of the MiniLM sentence embeddings of each pair; None when the ``minilm`` extra is missing."""
    encoder = _encoder()
    if encoder is None:
        return None
    cosines = np.ones(len(originals))
    changed = [i for i, (a, b) in enumerate(zip(originals, rewritten)) if a != b]  # an unchanged pair's cosine is 1
    if changed:
        first = encoder.encode(
            [originals[i] for i in changed], batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        second = encoder.encode(
            [rewritten[i] for i in changed], batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        cosines[changed] = np.einsum("ij,ij->i", first, second)
    return [float(x) for x in cosines]
