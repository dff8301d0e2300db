"""Development pairs of the same kind as the judge's frozen held-out set, from the development corpora only: short
passages of blog posts and 20 Newsgroups messages of authors no evaluation scenario selects, each with the rewrite a
helper writes for it (an honest paraphrase that changes many words, or one change of a class of
``frozen_pairs.CHANGES``).

    python scripts/judge/development_written.py docs/results/judge/development --seed 8201 --scale 2

Writes ``pair-sources.jsonl`` (``{"item", "source", "tags", "rewrite", "input"}``), ``scale`` times the frozen set's
quotas. The label of a written pair is the class it was written to (``faithful`` for a paraphrase, ``changed`` for a
change); these pairs train and calibrate, and are never the evidence (the frozen set is).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "faithful"))

from frozen_pairs import CHANGES, PARAPHRASES, _source_tags
from heldout_set import _paragraphs, _windows

_UNWANTED = ("http", "www.", "@", ">", "|", "--", "==", "**")


def _pool(seed: int) -> list[dict]:
    from authorguard.neural.judge.data import development_documents

    pool = []
    for dataset in ("blogs", "20news"):
        for document, text in enumerate(development_documents(per_author=1, seed=seed, datasets=(dataset,))[:4000]):
            for paragraph in _paragraphs(text):
                for window in _windows(paragraph, 15, 60, 2):
                    clean = window[:1].isupper() and window[-1:] in ".!?" and not any(u in window for u in _UNWANTED)
                    if clean:
                        pool.append({"source": dataset, "document": f"{dataset}-{document}", "input": window})
    return pool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--seed", type=int, default=8201)
    parser.add_argument("--scale", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    pool = _pool(args.seed)
    pool = [pool[i] for i in rng.permutation(len(pool))]
    used_documents: set[str] = set()
    per_source: dict[str, int] = {}
    pairs: list[dict] = []
    wanted = [(f"change:{k}", tag, n * args.scale) for k, (n, tag) in CHANGES.items()]
    wanted += [(f"paraphrase:{k}", None, n * args.scale) for k, n in PARAPHRASES.items()]
    half = sum(count for _, _, count in wanted) // 2 + 1
    for kind, tag, count in wanted:
        found = 0
        for row in pool:
            if found == count:
                break
            tags = _source_tags(row["input"])
            if row["document"] in used_documents or (tag is not None and tag not in tags):
                continue
            if per_source.get(row["source"], 0) >= half:  # as many passages of blogs as of 20 Newsgroups
                continue
            used_documents.add(row["document"])
            per_source[row["source"]] = per_source.get(row["source"], 0) + 1
            pairs.append({"source": row["source"], "tags": tags, "rewrite": kind, "input": row["input"]})
            found += 1
        if found < count:
            raise SystemExit(f"only {found} sources for {kind}")
    pairs = [pairs[i] for i in rng.permutation(len(pairs))]
    args.output.mkdir(parents=True, exist_ok=True)
    with open(args.output / "pair-sources.jsonl", "w", encoding="utf-8") as out:
        for item, row in enumerate(pairs):
            out.write(json.dumps({"item": item, **row}, ensure_ascii=False) + "\n")
    print(f"{len(pairs)} pair sources -> {args.output}")


if __name__ == "__main__":
    main()
