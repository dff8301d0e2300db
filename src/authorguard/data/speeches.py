"""Political speeches of Barack Obama and Donald Trump (A4NT's speech setting), with a same-source control.

Three sets, one document per ``SPEECH n`` block (``shared/data/speeches/MANIFEST.md``):

- ``obama``: 50 Obama speeches, 2008–2016, Miller Center transcripts;
- ``trump-campaign``: Trump's 2016 campaign speeches, the A4NT Trump source: 10 blocks, two of which join many
  speeches (no finer boundaries exist);
- ``trump-millercenter``: 34 Trump presidential speeches, 2017–2020, from the same source as the Obama set.

Obama (Miller Center) against Trump (campaign) mixes sources and eras, so a classifier can learn the genre
instead of the speaker; Obama against ``trump-millercenter`` is the same-source control. Columns: ``authors``
and ``labels`` = the speaker (``obama`` / ``trump``); attributes ``set`` (above), ``source`` (``millercenter`` /
``campaign``) and ``date`` (YYYY-MM-DD for Miller Center speeches, None for the campaign blocks).

The files are a documented repack (BOM removed, line ends normalised, headers cut) of the pinned upstream
sources named in the MANIFEST, with no download of their own: place them under ``$AUTHORGUARD_DATA/speeches/``;
each is checked against its sha256.
"""

from __future__ import annotations

import csv
import gzip
import os
import re

from authorguard.data.corpus import Corpus
from authorguard.data.download import RemoteFile, locate
from authorguard.exceptions import InputError

SETS = {
    # set name: (file, speaker, source, sha256, upstream)
    "obama": (
        "obama.txt.gz",
        "obama",
        "millercenter",
        "e6f1f3ddb08055fbca85abf6c0a1175a02faae70e39642e9d62e4b2d85fd2dee",
        "https://github.com/kfogel/presidential-speeches/tree/a4c8b38eeba49703f515a701db03e60417e042e6/data",
    ),
    "trump-campaign": (
        "trump.txt.gz",
        "trump",
        "campaign",
        "ce0faef0099a7a71f85ccf2afc26c76b1707bceec0a4500a3be4eb698d77779f",
        "https://github.com/ryanmcdermott/trump-speeches/blob/2e1a841fa30bc53504c2d4ee5ff0b483b44c2e42/speeches.txt",
    ),
    "trump-millercenter": (
        "trump_millercenter.txt.gz",
        "trump",
        "millercenter",
        "7160c35fb573ceffb6dbd9379e582bdc63f2d6c3179ed260e9b6ed2148710ace",
        "https://github.com/kfogel/presidential-speeches/tree/a4c8b38eeba49703f515a701db03e60417e042e6/data",
    ),
}
INDEX = RemoteFile(
    "speeches",
    "speech_index.tsv",
    SETS["obama"][4],
    ("e5eae059b6abf9cfbc6f85214ccb12f792432460dcecaa0c1c857882b3979692",),
)
_SPEECH = re.compile(r"(?m)^SPEECH (\d+)\s*$")


def split_speeches(text: str, source: str = "text") -> list[tuple[int, str]]:
    """(number, text) of each ``SPEECH n`` block, in order; text before the first block is an error."""
    matches = list(_SPEECH.finditer(text))
    if not matches:
        raise InputError(f"{source}: no 'SPEECH n' line")
    if text[: matches[0].start()].strip():
        raise InputError(f"{source}: text before the first 'SPEECH n' line")
    bounds = [m.start() for m in matches[1:]] + [len(text)]
    return [(int(m.group(1)), text[m.end() : end].strip()) for m, end in zip(matches, bounds)]


def _dates(data_dir, verify: bool) -> dict[tuple[str, int], str]:
    path = locate(INDEX, data_dir=data_dir, download=False, verify=verify)
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    for column in ("file", "speech_no", "date"):
        if rows and column not in rows[0]:
            raise InputError(f"{path}: no column {column!r}")
    return {(row["file"], int(row["speech_no"])): row["date"] for row in rows}


def load_speeches(
    sets: tuple[str, ...] = tuple(SETS), *, data_dir: str | os.PathLike | None = None, verify: bool = True
) -> Corpus:
    """The speeches of ``sets`` (default: all three) as a :class:`Corpus`, one document per speech block."""
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        raise InputError(f"unknown speech set {unknown[0]!r} (known: {', '.join(SETS)})")
    dates = _dates(data_dir, verify)
    ids, texts, speakers, set_names, sources, speech_dates = [], [], [], [], [], []
    for name in sets:
        filename, speaker, source, digest, upstream = SETS[name]
        path = locate(
            RemoteFile("speeches", filename, upstream, (digest,)), data_dir=data_dir, download=False, verify=verify
        )
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            blocks = split_speeches(handle.read(), str(path))
        stem = filename.removesuffix(".txt.gz")
        for number, text in blocks:
            if not text:
                raise InputError(f"{path}: SPEECH {number} is empty")
            ids.append(f"{name}-{number:03d}")
            texts.append(text)
            speakers.append(speaker)
            set_names.append(name)
            sources.append(source)
            speech_dates.append(dates.get((stem, number)))
    return Corpus(
        ids=tuple(ids),
        texts=tuple(texts),
        authors=tuple(speakers),
        labels=tuple(speakers),
        name="speeches",
        attributes={"set": set_names, "source": sources, "date": speech_dates},
    )
