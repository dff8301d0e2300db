"""Drexel AMT (Extended-Brennan-Greenstadt) and drexel_1 (Brennan-Greenstadt): writing samples with the authors'
own obfuscation and imitation attacks.

``amt``: 45 Amazon-Mechanical-Turk authors (letters ``a`` … ``ww``), 699 regular samples of ~500 words, and per
author the documents they wrote to hide their style (``obfuscation``) and to imitate Cormac McCarthy's
(``imitation``), plus 9 held-out ``verification`` samples; each author's demographics. ``drexel_1``: the 13
authors of the original Brennan-Greenstadt set, regular samples only (no demographics, no attack documents).
Layout and counts: ``shared/data/amt/MANIFEST.md`` (JStylo's distribution, BSD-3 repository; research use).

Columns: ``authors`` = the author's letters; ``labels`` = ``background`` (amt only): the questionnaire's
"Background" answer, ``Y,Y,Y,Y,Y`` -> ``yes`` (28 authors) and ``N,N,N,N,N`` -> ``no`` (17), TAROT's binary
utility task; any other answer is an error. Attributes ``kind`` (regular / obfuscation / imitation /
verification) and, for amt, ``gender``, ``age``, ``education``, ``occupation``, ``language`` as typed. Texts
are UTF-8, or cp1252 for the files that are not (counted in ``metadata["cp1252_files"]``), line ends LF.

The tarball repacks JStylo's folders (no download of its own: place it under ``$AUTHORGUARD_DATA/amt/``); it is
checked against its sha256.

References
----------
.. [BAG12] Brennan, Afroz, Greenstadt, "Adversarial Stylometry: Circumventing Authorship Recognition to Preserve
   Privacy and Anonymity", ACM TISSEC 15(3), 2012.
"""

from __future__ import annotations

import os
import re
import tarfile

from authorguard.data.corpus import Corpus
from authorguard.data.download import RemoteFile, locate
from authorguard.exceptions import InputError

UPSTREAM = "https://github.com/psal/jstylo/tree/bdc5a9e79adb35795819de147bb21ce2908ae45d/jsan_resources/corpora"
ARCHIVE = RemoteFile(
    "amt",
    "jsan_amt_drexel1_corpora.tar.gz",
    UPSTREAM,
    ("1ee7cfa1423ded3fe49ebf6bd2c7305aa0fcb325a532f20cd8b708e2b539a203",),
)
COLLECTIONS = ("amt", "drexel_1")
BACKGROUND = {"Y,Y,Y,Y,Y": "yes", "N,N,N,N,N": "no"}
_DEMOGRAPHICS = ("age", "language", "gender", "education", "occupation", "background")
_MEMBER = re.compile(r"^corpora/(amt|drexel_1)/([a-z]+)/([a-z]+)_(.+)\.txt$")


def document_kind(stem: str) -> str:
    """What a file is, from the part of its name after the author: ``03_2`` -> regular, ``obfuscation`` …"""
    for kind in ("demographics", "obfuscation", "imitation", "verification"):
        if stem.startswith(kind):
            return kind
    if re.fullmatch(r"\d+(?:_\d+)*", stem):
        return "regular"
    raise InputError(f"cannot tell what the file '*_{stem}.txt' is")


def _decode(data: bytes) -> tuple[str, bool]:
    try:
        text, fallback = data.decode("utf-8"), False
    except UnicodeDecodeError:
        text, fallback = data.decode("cp1252", errors="replace"), True
    return text.replace("\r\n", "\n").replace("\r", "\n").strip(), fallback


def parse_demographics(text: str, source: str) -> dict[str, str]:
    """``Key: value`` lines -> the six demographic fields (lower-case keys); a missing one is an error."""
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip().lower()] = value.strip()
    missing = [key for key in _DEMOGRAPHICS if key not in fields]
    if missing:
        raise InputError(f"{source}: no {missing[0]!r} line")
    return {key: fields[key] for key in _DEMOGRAPHICS}


def load_amt(collection: str = "amt", *, data_dir: str | os.PathLike | None = None, verify: bool = True) -> Corpus:
    """Every document of ``collection`` (``amt`` or ``drexel_1``), attack documents included (``kind`` says which)."""
    if collection not in COLLECTIONS:
        raise InputError(f"unknown collection {collection!r} (known: {', '.join(COLLECTIONS)})")
    path = locate(ARCHIVE, data_dir=data_dir, download=False, verify=verify)
    documents: list[tuple[str, str, str, str]] = []  # (id, author, kind, text)
    demographics: dict[str, dict[str, str]] = {}
    fallbacks = 0
    with tarfile.open(path, "r:gz") as archive:
        for member in archive:
            match = _MEMBER.match(member.name)
            if not member.isfile() or not match or match.group(1) != collection:
                continue
            _, folder, author, stem = match.groups()
            if author != folder:
                raise InputError(f"{path}: {member.name} is not named after its folder's author")
            handle = archive.extractfile(member)
            assert handle is not None  # extractfile gives None only for a non-file member, skipped above
            text, fallback = _decode(handle.read())
            fallbacks += fallback
            kind = document_kind(stem)
            if kind == "demographics":
                demographics[author] = parse_demographics(text, f"{path}:{member.name}")
            elif not text:
                raise InputError(f"{path}: {member.name} is empty")
            else:
                documents.append((f"{collection}/{author}/{author}_{stem}", author, kind, text))
    if not documents:
        raise InputError(f"{path}: no {collection} documents")
    documents.sort()
    authors = [author for _, author, _, _ in documents]
    attributes: dict[str, list] = {"kind": [kind for _, _, kind, _ in documents]}
    labels: tuple[str | None, ...] = (None,) * len(authors)  # no labels outside amt (as Corpus's default)
    if collection == "amt":
        missing = sorted(set(authors) - set(demographics))
        if missing:
            raise InputError(f"{path}: author {missing[0]!r} has no demographics file")
        unknown = sorted({d["background"] for d in demographics.values()} - set(BACKGROUND))
        if unknown:
            raise InputError(f"{path}: background answer {unknown[0]!r} is neither {' nor '.join(BACKGROUND)}")
        labels = tuple(BACKGROUND[demographics[a]["background"]] for a in authors)
        for key in ("gender", "age", "education", "occupation", "language"):
            attributes[key] = [demographics[a][key] for a in authors]
    return Corpus(
        ids=tuple(d for d, _, _, _ in documents),
        texts=tuple(t for _, _, _, t in documents),
        authors=tuple(authors),
        labels=labels,
        name=collection,
        metadata={"source": str(path), "cp1252_files": fallbacks},
        attributes=attributes,
    )


def load_drexel_1(*, data_dir: str | os.PathLike | None = None, verify: bool = True) -> Corpus:
    """The 13-author Brennan-Greenstadt set (regular samples only)."""
    return load_amt("drexel_1", data_dir=data_dir, verify=verify)
