"""The Blog Authorship Corpus sample: real counts, deduplicated bloggers, label columns, bad files."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import pytest

from authorguard.data.blogs import age_group, duplicate_bloggers, load_blogs
from authorguard.exceptions import ChecksumError, InputError


@pytest.fixture(scope="module")
def blogs():
    return load_blogs()


def test_counts_after_removing_duplicate_bloggers_and_empty_posts(blogs):
    # 113,253 posts of 2,388 bloggers in the sample; 8 bloggers repeat another's posts; 395 posts are empty
    assert blogs.metadata["bloggers_dropped_as_duplicates"] == 8
    assert blogs.metadata["posts_of_duplicate_bloggers"] == 1861 and blogs.metadata["empty_posts"] == 395
    assert len(blogs) == 113_253 - 1861 - 395 == 110_997
    assert len(set(blogs.authors)) == 2388 - 8
    assert blogs.metadata["duplicate_bloggers"]["1093691"] == "1093457"  # two of the most prolific, one writer
    assert not set(blogs.metadata["duplicate_bloggers"]) & set(blogs.authors)
    assert all(text.strip() for text in blogs.texts)


def test_top_ten_bloggers_match_tarot_bac10_size(blogs):
    top = Counter(blogs.authors).most_common(10)
    # TAROT's BAC-10 has 23,534 texts; ours differ by the empty posts left out
    assert sum(n for _, n in top) == 23_504 and top[0] == ("449628", 4219)


def test_label_columns(blogs):
    assert set(blogs.column("age_group")) == {"13-17", "23-27", "33-48"}
    assert set(blogs.column("gender")) == {"female", "male"}
    assert len(set(blogs.labels)) == 40 and blogs.labels == blogs.column("topic")
    for group, age in list(zip(blogs.column("age_group"), blogs.column("age")))[::5000]:
        assert group == age_group(int(age))


def test_age_outside_the_groups_is_an_error():
    with pytest.raises(InputError, match="age 20 is outside the corpus's age groups"):
        age_group(20)


def test_duplicate_detection_keeps_the_smallest_id():
    records = [
        {"id": 30, "text": "a"},
        {"id": 30, "text": "b"},
        {"id": 7, "text": "a"},
        {"id": 7, "text": "b"},
        {"id": 9, "text": "a"},
    ]
    assert duplicate_bloggers(records) == {"30": "7"}


def _write_sample(folder, lines):
    (folder / "blogs").mkdir()
    with gzip.open(folder / "blogs" / "blogs_sample.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.write("".join(lines))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json\n", "line 1 is not JSON"),
        (
            json.dumps(
                {
                    "id": 1,
                    "gender": "male",
                    "age": 15,
                    "topic": "Arts",
                    "sign": "Leo",
                    "date": "1,May,2004",
                    "post_index": 0,
                }
            )
            + "\n",
            "line 1 has no field 'text'",
        ),
    ],
)
def test_bad_lines_name_the_line(tmp_path, line, message):
    _write_sample(tmp_path, [line])
    with pytest.raises(InputError, match=message):
        load_blogs(data_dir=tmp_path, verify=False)


def test_a_copy_that_is_not_the_published_sample_is_refused(tmp_path):
    _write_sample(tmp_path, [])
    with pytest.raises(ChecksumError, match="sha256"):
        load_blogs(data_dir=tmp_path)
