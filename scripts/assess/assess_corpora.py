"""Write the three corpora docs/results/assess.md runs `authorguard assess` on, as a data owner would hand them over:
one JSONL record per document with id, text, author and (where there is one) the task's label.

    python scripts/assess/assess_corpora.py OUT_DIR        # needs the data directory (authorguard setup /
    AUTHORGUARD_DATA)

- 20news-top10.jsonl: the messages of 20 Newsgroups' Top10-Any authors (both splits), label = newsgroup;
- federalist.jsonl: the 73 Federalist papers with a known author (the 12 disputed ones have none), no label;
- blogs-20.jsonl: every post of 20 bloggers drawn at random (seed 0) among those with at least 20 posts, label = gender.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from authorguard.data import load_dataset
from authorguard.data.scenarios import AuthorshipScenario


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(f"{path}: {len(rows)} records, {len({r['author'] for r in rows})} authors")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    news = load_dataset("20news")
    chosen = set(AuthorshipScenario(10).authors(news))
    _write(
        out / "20news-top10.jsonl",
        [
            {"id": i, "text": t, "author": a, "newsgroup": g}
            for i, t, a, g in zip(news.ids, news.texts, news.authors, news.labels)
            if a in chosen
        ],
    )
    federalist = load_dataset("federalist")
    _write(
        out / "federalist.jsonl",
        [
            {"id": i, "text": t, "author": a}
            for i, t, a in zip(federalist.ids, federalist.texts, federalist.authors)
            if a is not None
        ],
    )
    blogs = load_dataset("blogs")
    counts: dict = {}
    for author in blogs.authors:
        counts[author] = counts.get(author, 0) + 1
    eligible = sorted(a for a, n in counts.items() if n >= 20)
    bloggers = set(np.random.default_rng(0).choice(eligible, 20, replace=False).tolist())
    gender = blogs.column("gender")
    _write(
        out / "blogs-20.jsonl",
        [
            {"id": i, "text": t, "author": a, "gender": g}
            for i, t, a, g in zip(blogs.ids, blogs.texts, blogs.authors, gender)
            if a in bloggers
        ],
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", type=Path, help="Folder the three JSONL files are written to (created if missing).")
    main(parser.parse_args().out_dir)
