"""Drexel AMT (EBG) and drexel_1: real counts, the attack documents, demographics, bad archives."""

from __future__ import annotations

import csv
import io
import tarfile
from collections import Counter
from pathlib import Path

import pytest

from authorguard.data.amt import document_kind, load_amt, parse_demographics
from authorguard.exceptions import InputError
from tests.conftest import SHARED_DATA


@pytest.fixture(scope="module")
def amt():
    return load_amt()


def test_counts_match_the_manifest(amt):
    assert len(set(amt.authors)) == 45
    assert Counter(amt.column("kind")) == {"regular": 699, "imitation": 49, "obfuscation": 45, "verification": 9}
    regular = [len(t.split()) for t, k in zip(amt.texts, amt.column("kind")) if k == "regular"]
    assert 490 < sum(regular) / len(regular) < 495  # ~500-word samples
    assert Counter(amt.column("gender")[i] for i in [amt.authors.index(a) for a in set(amt.authors)]) == {
        "male": 24,
        "female": 21,
    }


def test_background_is_the_binary_label_of_every_document(amt):
    by_author = dict(zip(amt.authors, amt.labels))
    assert Counter(by_author.values()) == {"yes": 28, "no": 17}
    with open(Path(SHARED_DATA) / "amt" / "amt_demographics.tsv", encoding="utf-8", newline="") as handle:
        table = {row["author"]: row for row in csv.DictReader(handle, delimiter="\t")}
    for author, label in by_author.items():
        assert label == {"Y,Y,Y,Y,Y": "yes", "N,N,N,N,N": "no"}[table[author]["background"]]
        assert amt.column("age")[amt.authors.index(author)] == table[author]["age"]


def test_drexel_1_has_regular_samples_only():
    drexel = load_amt("drexel_1")
    assert len(drexel) == 113 and len(set(drexel.authors)) == 13 and set(drexel.column("kind")) == {"regular"}
    assert set(drexel.labels) == {None} and drexel.metadata["cp1252_files"] == 11
    assert all("\r" not in text for text in drexel.texts)


@pytest.mark.parametrize(
    ("stem", "kind"),
    [
        ("01_1", "regular"),
        ("02_1_2", "regular"),
        ("obfuscation", "obfuscation"),
        ("imitation_02", "imitation"),
        ("verification", "verification"),
    ],
)
def test_document_kinds(stem, kind):
    assert document_kind(stem) == kind


def test_bad_names_and_demographics_are_errors():
    with pytest.raises(InputError, match="cannot tell what the file"):
        document_kind("notes")
    with pytest.raises(InputError, match="x: no 'background' line"):
        parse_demographics("Age: 3\nLanguage: e\nGender: f\nEducation: -\nOccupation: -", "x")
    with pytest.raises(InputError, match="unknown collection 'ebg'"):
        load_amt("ebg")


def _archive(folder: Path, files: dict[str, str]) -> None:
    (folder / "amt").mkdir()
    with tarfile.open(folder / "amt" / "jsan_amt_drexel1_corpora.tar.gz", "w:gz") as archive:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


DEMOGRAPHICS = "Age: 30\nLanguage: English\nGender: female\nEducation: BA\nOccupation: x\nBackground: {}\n"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"corpora/amt/q/q_01_1.txt": "text"}, "author 'q' has no demographics file"),
        (
            {"corpora/amt/q/q_01_1.txt": "text", "corpora/amt/q/q_demographics.txt": DEMOGRAPHICS.format("Y,N")},
            "background answer 'Y,N' is neither",
        ),
        (
            {"corpora/amt/q/q_01_1.txt": "  ", "corpora/amt/q/q_demographics.txt": DEMOGRAPHICS.format("Y,Y,Y,Y,Y")},
            "q_01_1.txt is empty",
        ),
        ({"corpora/drexel_1/a/a_01.txt": "text"}, "no amt documents"),
    ],
)
def test_bad_archives_are_one_line_errors(tmp_path, files, message):
    _archive(tmp_path, files)
    with pytest.raises(InputError, match=message):
        load_amt(data_dir=tmp_path, verify=False)
