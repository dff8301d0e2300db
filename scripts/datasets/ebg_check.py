"""The EBG human-obfuscation check (Brennan, Afroz & Greenstadt, 2012): do attackers still name the author of a
document written to hide (``obfuscation``) or to imitate another writer's style (``imitation``)?

Every author of the ``amt`` corpus with both attack documents is kept. Each author's regular samples are split
80/20 (seeded, within author); every attacker, with each classifier, trains on the 80 % and attributes (a) the
held-out 20 % (the baseline), (b) the authors' obfuscation documents, (c) their imitation documents. Brennan et
al. report that both attacks pushed every method they tried towards (or below) chance, 1 / number of authors.

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/datasets/ebg_check.py [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from authorguard import registry
from authorguard.data.release import Release
from authorguard.data.splits import TopAuthors


def ebg_check(seed: int = 0, attackers: list[str] | None = None) -> dict:
    amt = registry.datasets.get("amt")()
    kinds = np.array(amt.column("kind"), dtype=object)
    authors = np.array(amt.authors, dtype=object)
    with_attacks = sorted(set(authors[kinds == "obfuscation"]) & set(authors[kinds == "imitation"]))
    # 80 / 20 within each author (TopAuthors' split with an empty validation share is not allowed: use 80/10/10
    # and score the baseline on validation + test together)
    regular = TopAuthors(len(with_attacks), rank="first", where={"kind": ("regular",)}, seed=seed, name="EBG")
    chosen = set(with_attacks)
    corpus = amt.subset(np.array([a in chosen for a in amt.authors]))
    selected = regular.select(corpus)
    split_of = dict(zip(selected.ids, selected.splits))
    kinds = np.array(corpus.column("kind"), dtype=object)
    authors = np.array(corpus.authors, dtype=object)
    train = np.array([split_of.get(i) == "train" for i in corpus.ids])
    baseline = np.array([split_of.get(i) in ("validation", "test") for i in corpus.ids])
    release = Release.from_texts(corpus.texts)
    tests = {"regular (held out)": baseline, "obfuscation": kinds == "obfuscation", "imitation": kinds == "imitation"}
    rows = []
    for name in attackers or registry.attackers.names():
        for classifier in ("nb", "svm"):
            attacker = registry.attackers.get(name)(classifier=classifier, random_state=seed)
            attacker.fit(release.rows(np.flatnonzero(train)), authors[train])
            row = {"attacker": name, "classifier": classifier}
            for label, mask in tests.items():
                predicted = attacker.predict(release.rows(np.flatnonzero(mask)))
                row[label] = float(np.mean(predicted == authors[mask]))
            rows.append(row)
    return {
        "authors": len(with_attacks),
        "chance": 1 / len(with_attacks),
        "seed": seed,
        "documents": {label: int(mask.sum()) for label, mask in tests.items()},
        "train_documents": int(train.sum()),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = ebg_check(args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{result['authors']} authors (chance {result['chance']:.3f}); train {result['train_documents']} regular "
        "samples; "
        f"test documents: {result['documents']}"
    )
    print(f"| attacker | classifier | {' | '.join(result['documents'])} |")
    print("| --- | --- |" + " --- |" * len(result["documents"]))
    for row in result["rows"]:
        print(
            f"| {row['attacker']} | {row['classifier']} | "
            + " | ".join(f"{row[k]:.3f}" for k in result["documents"])
            + " |"
        )


if __name__ == "__main__":
    main()
