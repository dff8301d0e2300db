"""The Federalist Papers with Mosteller and Wallace's authorship labels: the classic disputed-authorship test.

85 papers (Project Gutenberg eBook #1404, split at the ``FEDERALIST No. N`` headings; ``shared/data/federalist``).
Labels follow Mosteller & Wallace (1964): HAMILTON 51, MADISON 14, JAY 5, HAMILTON AND MADISON 3 (18–20), and
the 12 disputed papers HAMILTON OR MADISON (49–58, 62, 63), which Mosteller & Wallace gave to Madison. (The
Gutenberg text prints MADISON on the disputed papers: that is the later consensus, never ground truth here.)

Columns: ``authors`` = ``hamilton`` / ``madison`` / ``jay`` / ``hamilton-and-madison`` for the undisputed papers and
None for the disputed ones (unknown, by definition); ``labels`` = the Mosteller–Wallace label; ``splits`` =
``test`` for the 12 disputed papers, ``train`` for the others; attributes ``number``, ``disputed`` (yes/no) and
``pg_label``. Texts run from "To the People of the State of New York:" to the closing ``PUBLIUS``; the notes
after the signature (editorial, not the author's) are cut. The JSON-lines file is the data team's parse of the
Gutenberg text with the labels attached (no download of its own: place it under ``$AUTHORGUARD_DATA/federalist/``);
it is checked against its sha256.

References
----------
.. [MW64] Mosteller & Wallace, *Inference and Disputed Authorship: The Federalist*, Addison-Wesley, 1964.
"""

from __future__ import annotations

import os

from authorguard.data.corpus import Corpus
from authorguard.data.download import RemoteFile, locate
from authorguard.data.io import read_gzip_jsonl
from authorguard.exceptions import InputError

PAPERS = RemoteFile(
    "federalist",
    "federalist_papers.jsonl.gz",
    "https://www.gutenberg.org/ebooks/1404",
    ("93a835d5b96dbd7a85015b7c63b352e2962529c39a03d3a8e7a29652fb979aab",),
)
AUTHORS = {
    "HAMILTON": "hamilton",
    "MADISON": "madison",
    "JAY": "jay",
    "HAMILTON AND MADISON": "hamilton-and-madison",
    "HAMILTON OR MADISON": None,
}
_FIELDS = ("number", "author_label_pg1404", "author_label_mw", "disputed", "text")


def strip_notes(text: str) -> str:
    """The paper up to and including its last line that is exactly ``PUBLIUS`` (the whole text if none)."""
    lines = text.rstrip().split("\n")
    ends = [i for i, line in enumerate(lines) if line.strip() == "PUBLIUS"]
    return "\n".join(lines[: ends[-1] + 1]) if ends else text.rstrip()


def load_federalist(*, data_dir: str | os.PathLike | None = None, verify: bool = True) -> Corpus:
    """The 85 papers as a :class:`Corpus` (disputed papers in the ``test`` split, with no author)."""
    path = locate(PAPERS, data_dir=data_dir, download=False, verify=verify)
    papers = read_gzip_jsonl(path, _FIELDS)
    for paper in papers:
        if paper["author_label_mw"] not in AUTHORS:
            raise InputError(
                f"{path}: paper {paper['number']}: unknown Mosteller-Wallace label {paper['author_label_mw']!r}"
            )
    papers.sort(key=lambda p: int(p["number"]))
    return Corpus(
        ids=tuple(f"federalist-{int(p['number']):02d}" for p in papers),
        texts=tuple(strip_notes(p["text"]) for p in papers),
        authors=tuple(AUTHORS[p["author_label_mw"]] for p in papers),
        labels=tuple(p["author_label_mw"] for p in papers),
        splits=tuple("test" if p["disputed"] else "train" for p in papers),
        name="federalist",
        metadata={"source": str(path)},
        attributes={
            "number": [str(int(p["number"])) for p in papers],
            "disputed": ["yes" if p["disputed"] else "no" for p in papers],
            "pg_label": [p["author_label_pg1404"] for p in papers],
        },
    )
