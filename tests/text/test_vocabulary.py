"""The shipped common-words table: what it counts (authors, not occurrences), that it loads in rank order, and a
corrupt table's one-line error."""

from __future__ import annotations

import gzip

import pytest

from authorguard.exceptions import AuthorguardError
from authorguard.text.vocabulary import author_counts, is_common, table_header, word_ranks, write_table


def test_a_word_counts_once_per_author(tmp_path):
    counts = author_counts({"a": ["the dog the dog", "the cat"], "b": ["The dog's bone"], "c": ["zirconium"]})
    assert counts["the"] == 2 and counts["dog"] == 1 and counts["dog's"] == 1 and counts["zirconium"] == 1
    path = tmp_path / "table.tsv.gz"
    assert write_table(counts, path, "test", min_authors=2) == 1  # only "the" is used by two authors
    assert word_ranks(str(path)) == {"the": 1} and table_header(str(path)) == "test"


def test_the_shipped_table_ranks_function_words_first_and_names_its_held_out_writers():
    ranks = word_ranks()
    assert len(ranks) > 20_000 and ranks["the"] < 5 and ranks["dog"] < ranks["poodle"]
    assert is_common("THE", 10) and not is_common("zirconium", 2000)
    assert "held out for generalise's check target" in table_header()


def test_a_corrupt_table_is_a_one_line_error(tmp_path):
    broken = tmp_path / "broken.tsv.gz"
    with gzip.open(broken, "wt", encoding="utf-8") as handle:
        handle.write("# header\nthe\tmany\n")
    with pytest.raises(AuthorguardError, match="corrupt at row 1"):
        word_ranks(str(broken))
    (tmp_path / "not-gzip.tsv.gz").write_bytes(b"plain")
    with pytest.raises(AuthorguardError, match="cannot be read"):
        word_ranks(str(tmp_path / "not-gzip.tsv.gz"))
