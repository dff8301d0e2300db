"""Which normaliser rules earn their place (issue 55): each rule alone and the whole set less each rule, against the
character n-gram and function-word attackers, static (trained on original text) and adversarial (retrained on the
normalised text).

    python scripts/faithful/rule_ablation.py [--scenario BAC-20] [--per-author 20] [-o
    docs/results/faithful/rule-ablation.json]
    python scripts/faithful/rule_ablation.py --draw-seed 1 --only-all     # the original and all rules on another draw

The scenario's split (seed 0) at most ``--per-author`` documents an author in train and in test, as the benchmark's
``max_documents_per_author``; accuracy on the test documents; the share of words each rule changes beside it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", default="BAC-20")
    parser.add_argument("--per-author", type=int, default=20)
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--draw-seed", type=int, default=0, help="which posts of each author are drawn")
    parser.add_argument("--only-all", action="store_true", help="only the original and all rules")
    args = parser.parse_args()
    from authorguard import registry
    from authorguard.attacks.base import make_attacker
    from authorguard.data.release import Release
    from authorguard.data.splits import SCENARIOS
    from authorguard.text.normalise import RULES, normalise

    scenario = SCENARIOS[args.scenario]
    corpus = scenario.selection.select(registry.datasets.get(scenario.dataset)())
    rng = np.random.default_rng(args.draw_seed)
    authors = np.asarray(corpus.authors)
    splits = np.asarray(corpus.splits)
    chosen = {"train": [], "test": []}
    for split in chosen:
        for author in sorted(set(authors)):
            index = np.flatnonzero((authors == author) & (splits == split))
            chosen[split] += sorted(rng.permutation(index)[: args.per_author].tolist())
    texts = list(corpus.texts)
    train, test = chosen["train"], chosen["test"]

    def attack(name: str, train_texts, test_texts) -> float:
        attacker = make_attacker(name, "svm", 0)
        attacker.fit(Release.texts_only(train_texts), authors[train])
        return float(np.mean(attacker.predict(Release.texts_only(test_texts)) == authors[test]))

    settings = {"original": None, "all rules": tuple(RULES)}
    if not args.only_all:
        settings.update({f"only {r}": (r,) for r in RULES})
        settings.update({f"all but {r}": tuple(x for x in RULES if x != r) for r in RULES})
    rows = []
    original_train = [texts[i] for i in train]
    for label, rules in settings.items():
        released = {i: texts[i] if rules is None else normalise(texts[i], rules) for i in train + test}
        words_changed = np.mean([texts[i].split() != released[i].split() for i in test])
        row = {"setting": label, "documents_changed": round(float(words_changed), 3)}
        for name in ("char-ngrams", "function-words"):
            row[f"{name} static"] = attack(name, original_train, [released[i] for i in test])
            row[f"{name} adversarial"] = attack(name, [released[i] for i in train], [released[i] for i in test])
        rows.append(row)
        print(json.dumps(row), flush=True)
    result = {
        "scenario": args.scenario,
        "per_author": args.per_author,
        "draw_seed": args.draw_seed,
        "n_test": len(test),
        "rows": rows,
    }
    if args.output:
        args.output.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
