"""The fidelity meter on the frozen held-out pairs of issue 65 (never tuned on): agreement with the blind labels.

    python scripts/faithful/heldout_meter.py [-o docs/results/faithful/heldout/meter.json]
    python scripts/faithful/heldout_meter.py --set docs/results/faithful/heldout-2 -o
    docs/results/faithful/heldout-2/meter.json

Reads ``docs/results/faithful/heldout/pairs-blind.jsonl`` (the pairs as the annotator saw them) and
``pairs-labels.jsonl`` (the blind labels); scores every pair with the meter as committed; prints agreement on
faithful vs not, Cohen's κ, the share of the pairs the labels call damaged (partial or changed) that the meter
calls ``faithful``, the share of the honest paraphrases (labelled faithful) it calls ``changed``, and its speed.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

HELD_OUT = Path("docs/results/faithful/heldout")


def kappa(a: list[bool], b: list[bool]) -> float:
    """Cohen's κ of two binary readings of the same pairs (nan for none)."""
    n = len(a)
    if not n:
        return float("nan")
    observed = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--set", type=Path, default=HELD_OUT, help="the frozen set's folder")
    args = parser.parse_args()
    held_out = args.set
    from authorguard.metrics.fidelity import FidelityMeter

    pairs = [json.loads(line) for line in (held_out / "pairs-blind.jsonl").read_text(encoding="utf-8").splitlines()]
    labels = {
        row["id"]: row["label"]
        for row in map(json.loads, (held_out / "pairs-labels.jsonl").read_text(encoding="utf-8").splitlines())
    }
    inputs, outputs = [p["input"] for p in pairs], [p["output"] for p in pairs]
    start = time.time()
    scores = FidelityMeter(n_process=1).score(inputs, outputs)
    seconds = time.time() - start
    words = sum(len(t.split()) for t in inputs + outputs)
    truth = [labels[p["id"]] for p in pairs]
    said = [s.verdict for s in scores]
    faithful_truth = [t == "faithful" for t in truth]
    faithful_said = [s == "faithful" for s in said]
    damaged = [i for i, t in enumerate(truth) if t != "faithful"]
    honest = [i for i, t in enumerate(truth) if t == "faithful"]
    result = {
        "pairs": len(pairs),
        "labels": dict(Counter(truth)),
        "meter": dict(Counter(said)),
        "agreement": round(sum(x == y for x, y in zip(faithful_truth, faithful_said)) / len(pairs), 3),
        "kappa": round(kappa(faithful_truth, faithful_said), 3),
        "damaged_called_faithful": round(sum(said[i] == "faithful" for i in damaged) / len(damaged), 3),
        "paraphrases_called_changed": round(sum(said[i] == "changed" for i in honest) / len(honest), 3),
        "words_per_second": round(words / seconds),
        "confusion (label -> meter)": {
            f"{t} -> {s}": n for (t, s), n in sorted(Counter(zip(truth, [x or "none" for x in said])).items())
        },
        "misread": [
            {"id": p["id"], "label": t, "meter": s.verdict, "reason": s.reason}
            for p, t, s in zip(pairs, truth, scores)
            if (t == "faithful") != (s.verdict == "faithful")
        ],
    }
    print(json.dumps({k: v for k, v in result.items() if k != "misread"}, indent=1))
    if args.output:
        args.output.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
