"""What assess says of the author-level DP release: measured by TSTR on held-out authors when the corpus has enough of
them, recommended only when no text release is and it keeps the utility floor, and the command that applies it."""

from __future__ import annotations

import pytest

pytest.importorskip("opendp")

from authorguard.assess.author_release import (
    MIN_AUTHORS,
    SENTENCE,
    _held_out,
    evaluate_author_release,
    with_author_release,
)
from authorguard.assess.recommend import Recommendation
from authorguard.assess.report import apply_command


def test_an_author_is_held_out_with_all_their_documents():
    authors = [f"a{i % 40}" for i in range(400)]
    side = _held_out(authors, 0.3, seed=0)
    for author in set(authors):
        mine = {bool(side[i]) for i, a in enumerate(authors) if a == author}
        assert len(mine) == 1
    assert 0.1 < side.mean() < 0.5
    assert (side != _held_out(authors, 0.3, seed=1)).any()


def test_the_release_is_measured_on_authors_it_never_saw(newsgroups):
    train = newsgroups.split("train")
    keep = [i for i, a in enumerate(train.authors) if a][::3][:2_000]
    texts = [train.texts[i] for i in keep]
    authors = [train.authors[i] for i in keep]
    labels = [train.labels[i] for i in keep]
    found = evaluate_author_release(texts, authors, labels, seed=0)
    assert found["authors"] >= MIN_AUTHORS and found["epsilon"] <= 4.0 and found["sentence"] == SENTENCE
    assert found["majority"] < found["original_accuracy"] and 0.0 <= found["tstr_accuracy"] <= 1.0
    assert found["utility"] is not None and found["utility"] >= 0.0
    few = evaluate_author_release(texts[:60], authors[:60], labels[:60])
    assert "skipped" in few and f"at least {MIN_AUTHORS}" in few["skipped"]


def test_it_is_recommended_only_when_no_text_release_is_and_it_keeps_the_floor():
    none = Recommendation(None, None, None, [], "No method keeping utility ≥ 0.80 lowers the worst case.")
    chosen = Recommendation("normalise", {}, "normalise", [], "normalise has the lowest worst case.")
    good = {"epsilon": 4.0, "utility": 0.9, "tstr_accuracy": 0.6, "original_accuracy": 0.62, "majority": 0.05}
    poor = {**good, "utility": 0.3}
    taken = with_author_release(none, good, 0.8)
    assert taken.choice == "synth" and taken.params == {"epsilon": 4.0} and SENTENCE in taken.reason
    assert "No text release is recommended" in taken.reason
    kept = with_author_release(chosen, good, 0.8)
    assert kept.choice == "normalise" and "keeps utility 0.90" in kept.reason
    refused = with_author_release(none, poor, 0.8)
    assert refused.choice is None and "below 0.80, not recommended" in refused.reason
    skipped = with_author_release(none, {"skipped": "12 authors"}, 0.8)
    assert skipped.choice is None and "was not measured: 12 authors" in skipped.reason


def test_the_command_that_applies_it(tmp_path):
    assessment = {
        "input": "posts.jsonl",
        "options": {"author_field": "blogger", "label_field": "age", "text_field": "text", "id_field": None},
        "recommendation": {"choice": "synth", "method_name": "synth", "params": {"epsilon": 4.0}},
    }
    assert apply_command(assessment, tmp_path) == (
        "authorguard synth posts.jsonl --author-field blogger --label-field age --epsilon 4 --text-field text "
        "-o release.jsonl"
    )
