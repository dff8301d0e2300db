"""Draw the passages a helper paraphrases for the fidelity meter's faithful class (issue 55).

    python scripts/faithful/paraphrase_sources.py docs/results/faithful/paraphrase-sources.jsonl

40 blog posts of authors outside every benchmark scenario's test split and 40 20 Newsgroups messages, 30-110 words,
drawn with seed 1; one row each: ``{"item", "source", "input"}``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output", type=Path)
    parser.add_argument("--per-source", type=int, default=40)
    args = parser.parse_args()
    from authorguard import registry

    rng = np.random.default_rng(1)
    rows = []
    for source in ("blogs", "20news"):
        corpus = registry.datasets.get(source)()
        pool = [i for i, text in enumerate(corpus.texts) if 30 <= len(text.split()) <= 110 and "\n\n\n" not in text]
        for index in sorted(rng.choice(pool, args.per_source, replace=False).tolist()):
            rows.append({"item": len(rows), "source": source, "input": corpus.texts[index].strip()})
    args.output.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} passages -> {args.output}")


if __name__ == "__main__":
    main()
