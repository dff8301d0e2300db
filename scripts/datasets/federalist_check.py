"""The Federalist check: which author each attacker gives each of the 12 disputed papers.

Every registered attacker, with each classifier, is trained on the undisputed Hamilton (51) and Madison (14)
papers and attributes the disputed ones (Mosteller & Wallace, 1964: all 12 Madison).

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/datasets/federalist_check.py [--json]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from authorguard import registry
from authorguard.data.release import Release


def federalist_check(seed: int = 0) -> list[dict]:
    papers = registry.datasets.get("federalist")()
    train = [
        i
        for i, (a, s) in enumerate(zip(papers.authors, papers.splits))
        if s == "train" and a in ("hamilton", "madison")
    ]
    test = [i for i, s in enumerate(papers.splits) if s == "test"]
    release = Release.from_texts(papers.texts)
    authors = np.array(papers.authors, dtype=object)
    numbers = [papers.column("number")[i] for i in test]
    rows = []
    for name in registry.attackers.names():
        for classifier in ("nb", "svm"):
            attacker = registry.attackers.get(name)(classifier=classifier, random_state=seed)
            predicted = attacker.fit(release.rows(train), authors[train]).predict(release.rows(test))
            rows.append(
                {
                    "attacker": name,
                    "classifier": classifier,
                    "madison": int(np.sum(predicted == "madison")),
                    "papers": dict(zip(numbers, predicted.tolist())),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = federalist_check()
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for row in rows:
        hamilton = [n for n, a in row["papers"].items() if a != "madison"]
        print(
            f"{row['attacker']:>15} {row['classifier']:>3}: {row['madison']:>2}/12 Madison; to Hamilton: "
            f"{', '.join(hamilton) or '-'}"
        )


if __name__ == "__main__":
    main()
