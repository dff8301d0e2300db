"""Run `authorguard assess` with the cost rates an earlier run was planned with, so that it picks the same documents
and methods and reuses that run's cells (a plan with today's rates picks others, and no cell would be reused);
without the earlier cells it measures them again.

    python scripts/assess/assess_regenerate.py INPUT OUTPUT --author-field A [--label-field L]
        [--rate METHOD=SECONDS_PER_100_WORDS ...] [--setup METHOD=SECONDS ...]

METHOD is a method name of the default set (all its settings change). docs/results/assess.md gives the rates each
of its runs was planned with.
"""

from __future__ import annotations

import argparse
import dataclasses

from authorguard.assess.plan import CANDIDATES
from authorguard.assess.run import AssessOptions, run_assessment


def _pairs(values: list[str]) -> dict[str, float]:
    pairs = {}
    for value in values:
        name, _, number = value.partition("=")
        if not number or name not in {c.method for c in CANDIDATES}:
            raise SystemExit(
                f"error: {value!r} is not METHOD=NUMBER with a default method "
                f"({', '.join(sorted({c.method for c in CANDIDATES}))})"
            )
        pairs[name] = float(number)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--author-field", required=True)
    parser.add_argument("--label-field")
    parser.add_argument("--budget-minutes", type=float, default=20.0)
    parser.add_argument("--rate", action="append", default=[], help="METHOD=seconds per 100 words read")
    parser.add_argument("--setup", action="append", default=[], help="METHOD=set-up seconds")
    args = parser.parse_args()
    rates, setups = _pairs(args.rate), _pairs(args.setup)
    candidates = tuple(
        dataclasses.replace(
            c,
            seconds_per_100_words=rates.get(c.method, c.seconds_per_100_words),
            setup_seconds=setups.get(c.method, c.setup_seconds),
        )
        for c in CANDIDATES
    )
    options = AssessOptions(
        author_field=args.author_field, label_field=args.label_field, budget_minutes=args.budget_minutes
    )
    assessment = run_assessment(args.input, args.output, options, candidates=candidates)
    print(assessment["recommendation"]["reason"])
    print(f"report: {args.output}/report.md")


if __name__ == "__main__":
    main()
