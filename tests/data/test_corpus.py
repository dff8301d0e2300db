"""The Corpus: label columns beyond author and label, subsets, and its description."""

from __future__ import annotations

import pytest

from authorguard.data.corpus import Corpus, describe
from authorguard.exceptions import InputError


def _corpus(**attributes):
    return Corpus(
        ids=["a", "b", "c"],
        texts=["one two", "three", "four five six"],
        authors=["x", "y", None],
        labels=["l1", "l2", "l1"],
        name="tiny",
        attributes=attributes,
    )


def test_attributes_are_columns_kept_by_subsets():
    corpus = _corpus(gender=["f", "m", "f"], age_group=["13-17", "23-27", "13-17"])
    assert corpus.columns == ["authors", "labels", "splits", "gender", "age_group"]
    assert corpus.column("gender") == ("f", "m", "f") and corpus.column("author") == ("x", "y", None)
    part = corpus.subset([2, 0])
    assert (
        part.ids == ("c", "a")
        and part.column("gender") == ("f", "f")
        and part.column("age_group") == ("13-17", "13-17")
    )
    assert corpus.split("all").attributes == corpus.attributes


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"gender": ["f", "m"]}, "attribute 'gender' has 2 entries, ids has 3"),
        ({"labels": ["a", "b", "c"]}, "attribute 'labels' shadows a built-in column"),
    ],
)
def test_bad_attributes_are_one_line_errors(attributes, message):
    with pytest.raises(InputError, match=message):
        _corpus(**attributes)


def test_unknown_column_names_the_known_ones():
    with pytest.raises(
        InputError, match="corpus 'tiny' has no column 'age' \\(columns: authors, labels, splits, gender\\)"
    ):
        _corpus(gender=["f", "m", "f"]).column("age")


def test_describe_counts_by_hand():
    summary = describe(_corpus(gender=["f", "m", "f"]), top=1)
    assert summary["documents"] == 3 and summary["authors"] == 2
    assert summary["words_mean"] == pytest.approx(2.0) and summary["words_median"] == 2.0
    assert summary["splits"] == {"all": 3}
    assert summary["columns"]["gender"] == {"distinct": 2, "missing": 0, "top": {"f": 2}}
    assert summary["columns"]["authors"]["missing"] == 1
