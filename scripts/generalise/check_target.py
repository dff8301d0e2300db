"""The writer's check target of issue 66: "Generalise what gives me away" on held-out bloggers.

    python scripts/generalise/check_target.py [--writers 5] [--seed 66] [--rounds 1] [-o …/check-target.json]

The writers are drawn (``--seed``) from the 20 bloggers the common-words table held out (named in its header; none
in any evaluation scenario, none counted in the table or the first-names list) among those with at least 10 posts
of 300 words or more. For each: the text is the first 300 words of one such post (drawn), the known writing their
other posts of 300 words or more (first 300 words each), the background the staged blog pool, at 10 and 100
candidates, under the char n-gram attacker (the check's strongest on blogs). The check runs, then "Generalise what
gives me away" (every evidence word and every name generalised, :mod:`authorguard.check.generalisation`), pressed
up to ``--rounds`` times (each on the new evidence, until the writer is not first), and the same fitted attackers
rank the generalised text. Written: per writer the rank and probability before and after at
each size, the changes and the fidelity meter's verdict; the count of writers taken out of first place at 100
candidates among those the attacker ranked first.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--writers", type=int, default=5)
    parser.add_argument("--seed", type=int, default=66)
    parser.add_argument("--rounds", type=int, default=1, help="times the button is pressed (at most)")
    parser.add_argument("-o", "--output", type=Path, default=Path("docs/results/generalise/check-target.json"))
    args = parser.parse_args()
    from authorguard import registry
    from authorguard.check import CheckConfig, check
    from authorguard.check.background import load_background
    from authorguard.text.vocabulary import table_header

    held_out = set(table_header().rsplit(":", 1)[1].split())
    blogs = registry.datasets.get("blogs")()
    posts: dict[str, list[str]] = defaultdict(list)
    for author, text in zip(blogs.authors, blogs.texts):
        if str(author) in held_out and len(text.split()) >= 300:
            posts[str(author)].append(" ".join(text.split()[:300]))
    pool = sorted(a for a, texts in posts.items() if len(texts) >= 10)
    rng = np.random.default_rng(args.seed)
    writers = sorted(rng.choice(pool, min(args.writers, len(pool)), replace=False).tolist())
    background = load_background("blog")
    config = CheckConfig(sizes=(10, 100), attackers=("char-ngrams",), seed=0)
    rows = []
    for writer in writers:
        texts = posts[writer]
        pick = int(rng.integers(len(texts)))
        text, known = texts[pick], texts[:pick] + texts[pick + 1 :]
        result = check(text, known, background=background, config=config, generalise=args.rounds)
        found = result.generalised
        row = {
            "writer": writer,
            "known posts": len(known),
            "before": {r.candidates: [r.rank, round(r.probability, 3)] for r in result.rankings},
            "after": {r.candidates: [r.rank, round(r.probability, 3)] for r in found.rankings},
            "evidence words": [e.feature for e in result.evidence if e.kind == "a word you use"],
            "changes": found.changes,
            "fidelity": found.fidelity,
            "text": text,
            "generalised": found.text,
        }
        rows.append(row)
        print(writer, row["before"], "->", row["after"], len(found.changes), "changes", found.fidelity, flush=True)
    first = [r for r in rows if r["before"][100][0] == 1]
    moved = [r for r in first if r["after"][100][0] > 1]
    summary = {
        "writers": len(rows),
        "ranked first at 100 candidates before": len(first),
        "taken out of first place": len(moved),
        "rounds at most": args.rounds,
        "rows": rows,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(moved)} of {len(first)} writers ranked first taken out of first place -> {args.output}")


if __name__ == "__main__":
    main()
