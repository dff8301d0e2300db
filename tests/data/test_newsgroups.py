"""The 20 Newsgroups loader: real archive, parsing, checksums, download to the cache."""

from __future__ import annotations

import io
import tarfile
from collections import Counter
from dataclasses import replace

import pytest

from authorguard.data import download, newsgroups
from authorguard.exceptions import ChecksumError, DataNotFoundError, InputError


def test_real_archive_counts_and_metadata(newsgroups):
    assert Counter(newsgroups.splits) == {"train": 11314, "test": 7532}
    assert len(set(newsgroups.labels)) == 20
    assert (
        Counter(newsgroups.labels[i] for i in range(len(newsgroups)) if newsgroups.splits[i] == "train")[
            "rec.sport.hockey"
        ]
        == 600
    )
    assert newsgroups.ids[0] == "train/alt.atheism/49960" and newsgroups.authors[0] == "mathew@mantis.co.uk"
    assert sum(a is not None for a in newsgroups.authors) > 18_700
    assert all(a is None or a == a.lower() for a in newsgroups.authors)
    assert newsgroups.texts[0].startswith("Archive-name: atheism/resources")  # headers stripped


def test_latin1_messages_are_decoded():
    corpus = newsgroups.load_20newsgroups(subset="train", remove=())
    message = corpus.texts[corpus.ids.index("train/comp.sys.mac.hardware/51894")]
    assert "\r" not in message  # the bare CR became a newline
    assert message.startswith("From:")


@pytest.mark.parametrize(
    ("header", "address"),
    [
        ("Leonard Abrams <ABRAMS@cs.Columbia.EDU>", "abrams@cs.columbia.edu"),
        ("abrams@cs.columbia.edu (Leonard Abrams)", "abrams@cs.columbia.edu"),
        ('"Mr. X" <x@y.org>.', "x@y.org"),
        ("nobody", None),
        ("", None),
    ],
)
def test_normalize_address(header, address):
    assert newsgroups.normalize_address(header) == address


def test_strip_quotes_and_footer():
    body = "In article <1@x.edu> bob@x.edu writes:\n> quoted\n|also quoted\nMy reply.\n\n--\nBob\nbob@x.edu\n"
    assert newsgroups.strip_footer(newsgroups.strip_quotes(body)).strip() == "My reply."
    long_tail = "text\n--\n" + "line\n" * 30
    assert newsgroups.strip_footer(long_tail) == long_tail  # a delimiter far from the end is no signature


def _tiny_archive(path):
    with tarfile.open(path, "w:gz") as archive:
        for name, body in [
            ("20news-bydate-train/sci.space/1", b"From: A <a@b.c>\nSubject: x\n\nOrbit launch\n"),
            ("20news-bydate-test/sci.space/2", b"From: d@e.f\n\nMoon\n"),
        ]:
            info = tarfile.TarInfo(name)
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    return path


def test_download_to_cache_verifies_checksum(tmp_path, monkeypatch):
    source = _tiny_archive(tmp_path / "remote.tar.gz")
    remote = replace(newsgroups.ARCHIVE, url=source.as_uri(), sha256=(download.sha256_of(source),))
    monkeypatch.setattr(newsgroups, "ARCHIVE", remote)
    cache = tmp_path / "cache"
    corpus = newsgroups.load_20newsgroups(data_dir=tmp_path / "empty", cache_dir=cache)
    assert corpus.ids == ("train/sci.space/1", "test/sci.space/2") and corpus.authors == ("a@b.c", "d@e.f")
    assert (cache / "20news" / "20news-bydate.tar.gz").is_file()
    source.unlink()  # a second load is served from the cache
    assert len(newsgroups.load_20newsgroups(data_dir=tmp_path / "empty", cache_dir=cache)) == 2


def test_download_with_wrong_checksum_leaves_nothing(tmp_path, monkeypatch):
    source = _tiny_archive(tmp_path / "remote.tar.gz")
    monkeypatch.setattr(newsgroups, "ARCHIVE", replace(newsgroups.ARCHIVE, url=source.as_uri()))
    with pytest.raises(ChecksumError, match="matches none of the known digests"):
        newsgroups.load_20newsgroups(data_dir=tmp_path / "empty", cache_dir=tmp_path / "cache")
    assert not any((tmp_path / "cache" / "20news").iterdir())


def test_tampered_local_copy_is_refused(tmp_path):
    (tmp_path / "20news").mkdir()
    _tiny_archive(tmp_path / "20news" / "20news-bydate.tar.gz")
    with pytest.raises(ChecksumError):
        newsgroups.load_20newsgroups(data_dir=tmp_path)
    assert len(newsgroups.load_20newsgroups(data_dir=tmp_path, verify=False)) == 2


def test_offline_without_copy_says_where_it_looked(tmp_path):
    with pytest.raises(DataNotFoundError, match="20news-bydate.tar.gz not found in .*allow downloading"):
        newsgroups.load_20newsgroups(data_dir=tmp_path, cache_dir=tmp_path / "cache", download=False)


def test_corrupt_archive(tmp_path):
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(InputError, match="not a readable 20news-bydate tar.gz archive"):
        newsgroups.read_20newsgroups_archive(bad)
