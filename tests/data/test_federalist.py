"""The Federalist Papers: Mosteller-Wallace labels, the disputed test split, signature and notes."""

from __future__ import annotations

from collections import Counter

from authorguard.data.federalist import load_federalist, strip_notes


def test_labels_splits_and_texts():
    papers = load_federalist()
    assert len(papers) == 85 and papers.ids[0] == "federalist-01"
    assert Counter(papers.labels) == {
        "HAMILTON": 51,
        "MADISON": 14,
        "HAMILTON OR MADISON": 12,
        "JAY": 5,
        "HAMILTON AND MADISON": 3,
    }
    test = papers.split("test")
    assert sorted(int(n) for n in test.column("number")) == [49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 62, 63]
    assert set(test.authors) == {None} and set(test.column("pg_label")) == {"MADISON"}  # PG's label is not truth
    assert Counter(papers.split("train").authors) == {
        "hamilton": 51,
        "madison": 14,
        "jay": 5,
        "hamilton-and-madison": 3,
    }
    assert all(text.startswith("To the People of the State of New York") for text in papers.texts)
    assert sum(text.endswith("PUBLIUS") for text in papers.texts) == 83


def test_notes_after_the_signature_are_cut():
    assert strip_notes("Body.\n\nPUBLIUS\n\n1. A note.\n") == "Body.\n\nPUBLIUS"
    assert strip_notes("No signature.\n") == "No signature."
