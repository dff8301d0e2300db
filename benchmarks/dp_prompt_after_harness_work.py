"""Does dp-prompt's generation slow down after other harness work in the same process? (docs/results/assess.md,
"An anomaly not explained"; run on demand.)

Times dp-prompt (ε = 10,000, seed 0) on 48 posts of the blog assessment's input, fresh, then again after each named
step in the same process: ``content`` (content metrics with MiniLM on 100 pairs), ``synonyms``, ``syntf`` (SynTF
with the GloVe vocabulary and its privacy report), or an attacker's name (fit on 150 posts, evaluated on 50).

Usage:  python benchmarks/dp_prompt_after_harness_work.py BLOGS_JSONL [content] [author-embedding] [syntf] ...
        (BLOGS_JSONL: written by scripts/assess/assess_corpora.py)
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from authorguard.attacks.base import make_attacker
from authorguard.data.release import Release
from authorguard.metrics.content import content_metrics
from authorguard.registry import methods


def main(path: str, steps: list[str]) -> None:
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    pick = np.random.default_rng(0).choice(len(rows), 200, replace=False)
    texts, authors = [rows[i]["text"] for i in pick], [rows[i]["author"] for i in pick]
    sample = texts[:48]

    def time_dp_prompt(tag: str) -> None:
        method = methods.get("dp-prompt")(epsilon=10_000.0, random_state=0).fit(sample)
        started = time.time()
        method.obfuscate(sample)
        print(f"{tag}: dp-prompt on 48 posts {time.time() - started:.1f} s", flush=True)

    time_dp_prompt("fresh")
    for step in steps:
        started = time.time()
        if step == "content":
            content_metrics(texts[:100], [t[::-1] for t in texts[:100]])
        elif step == "synonyms":
            methods.get("synonyms")(rate=0.3, random_state=0).fit(texts).obfuscate(texts)
        elif step == "syntf":
            syntf = methods.get("syntf")(vocabulary="embeddings", random_state=0)
            syntf.fit_transform(texts)
            syntf.privacy_report()
        else:
            make_attacker(step, "svm", 0).evaluate(
                Release.from_texts(texts[:150]), authors[:150], Release.from_texts(texts[150:]), authors[150:]
            )
        print(f"{step}: {time.time() - started:.1f} s", flush=True)
        time_dp_prompt(f"after {step}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
