"""One benchmark table from several runs of the same scenarios and seeds (e.g. the classical and the neural text
benchmark): the worst case is then taken over every attacker of every run, and each detector gets its column.

Usage:  python scripts/benchmark/combined_table.py runs/text-benchmark runs/text-benchmark-neural [--view BAC-10]
"""

from __future__ import annotations

import argparse

import pandas as pd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--view", action="append", help="Views to print (default: every view of the first run).")
    args = parser.parse_args()
    from authorguard.experiments.results import benchmark_table
    from authorguard.experiments.runner import read_results

    frames = [read_results(run) for run in args.runs]
    frame = pd.concat(frames, ignore_index=True)
    for view in args.view or sorted(set(frames[0]["view"])):
        # only method settings present in every run: a worst case over some attackers would mislead
        keys = set.intersection(
            *(set(zip(f.loc[f["view"] == view, "method"], f.loc[f["view"] == view, "params"])) for f in frames)
        )
        part = frame[[(m, p) in keys for m, p in zip(frame["method"], frame["params"])]]
        table = benchmark_table(part, view, part_name="summary")
        print(f"\n{view}\n")
        print(table.to_markdown(index=False))


if __name__ == "__main__":
    main()
