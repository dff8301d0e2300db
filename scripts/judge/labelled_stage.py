"""A second training stage for the consistency judge on human-labelled pairs of the development corpora (blogs and
20 Newsgroups), beside a sample of the rule-made ones, and its calibration on the labelled pairs it was not trained
on.

    python scripts/judge/labelled_stage.py --start /work/judge-run/final --output /work/judge-stage2

The labelled pairs (every one of blog posts or 20 Newsgroups messages; none of the speeches, the Federalist papers or
the AMT essays): docs/results/faithful/paraphrases.jsonl (written for the purpose), the blind sets of
``normalise``, ``synonyms`` and the bottleneck (docs/results/faithful/blind*.jsonl), the word-in-context synonym
labels, the bottleneck's and TAROT's first blind sample and the TAROT validity sets — read as
scripts/faithful/meter_agreement.py reads them. Split by a hash of the input: 75 % train (with 3,000 rule-made
pairs, so that the rules' lessons stay), 25 % calibrate (the thresholds: scripts/judge/calibrate.py's fit).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "faithful"))
sys.path.insert(0, str(ROOT / "scripts" / "judge"))


def labelled_development_pairs() -> list[dict]:
    from meter_agreement import labelled_pairs

    return [p for p in labelled_pairs() if p["label"] in ("faithful", "partial", "changed", "generalised")]


def _side(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--rule-pairs", type=Path, default=Path("/work/judge-run/pairs.jsonl"))
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    import numpy as np
    from calibrate import calibrate

    from authorguard.metrics.fidelity.judge.config import JudgeConfig
    from authorguard.neural.judge.pairs import Pair
    from authorguard.neural.judge.trainer import train_judge

    labelled = labelled_development_pairs()
    train = [p for p in labelled if _side(p["input"]) != 0]
    held = [p for p in labelled if _side(p["input"]) == 0]
    # a partial output says nothing false: the judge's three classes read it as not changed (the rules see the loss)
    as_class = {"faithful": "faithful", "partial": "faithful", "generalised": "generalised", "changed": "changed"}
    human = [Pair(p["input"], p["output"], as_class[p["label"]], ("labelled",)) for p in train]
    rows = [json.loads(line) for line in args.rule_pairs.read_text(encoding="utf-8").splitlines()[1:]]
    rng = np.random.default_rng(0)
    ruled = [
        Pair(r["source"], r["rewrite"], r["label"], tuple(r["rules"]))
        for r in (rows[i] for i in rng.permutation(len(rows))[:3000])
    ]
    mixed = list(human * 2 + ruled)
    mixed = [mixed[i] for i in rng.permutation(len(mixed))]
    config = JudgeConfig(epochs=args.epochs, validation=0, learning_rate=2e-4, warmup_steps=20, checkpoint_every=50)
    result = train_judge(config, args.output, pairs=mixed, start_from=args.start, command=" ".join(sys.argv))
    note = "the development corpora's labelled pairs on the calibration side (scripts/judge/labelled_stage.py)"
    inputs = ROOT / "docs" / "results" / "judge" / "calibration-inputs.jsonl"
    calibration = calibrate(result.folder, held, inputs, ("source", "label"), note)
    print(
        json.dumps(
            {
                "trained_on": len(human),
                "rule_pairs": len(ruled),
                "calibration": calibration,
                "losses": result.losses[-5:],
            }
        )
    )


if __name__ == "__main__":
    main()
