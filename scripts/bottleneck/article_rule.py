"""Does the bottleneck's language model earn its place? Its roles-level output against a rule that writes the same
roles view without the model (docs/results/bottleneck-rule.md).

BAC-10 (split seed 0): the whole test split and at most ``--train-per-author`` training posts a blogger (the
retrained attacker's training set; the static attacker trains on the same posts as written). Each release is
written once, checkpointed a batch at a time (``OUT/<label>.jsonl``, resumable), then attacked.

    python scripts/bottleneck/article_rule.py realise runs/bottleneck-rule --label bottleneck
    python scripts/bottleneck/article_rule.py realise runs/bottleneck-rule --label rule
    python scripts/bottleneck/article_rule.py realise runs/bottleneck-rule --label normalise
    python scripts/bottleneck/article_rule.py articles runs/bottleneck-rule
    python scripts/bottleneck/article_rule.py attack runs/bottleneck-rule \
        --json docs/results/bottleneck-rule/attacks.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

#: label -> (method, params) of each release compared
RELEASES = {
    "normalise": ("normalise", {}),
    "rule": ("bottleneck", {"realiser": "rule"}),
    "bottleneck": ("bottleneck", {"realiser": "model"}),
}
ATTACKERS = ("char-ngrams", "bow", "function-words", "writeprints-text")
THREATS = ("static", "adversarial")
SEED = 0
BATCH = 32


def documents(train_per_author: int):
    """(texts, authors, splits) of BAC-10's test split and at most ``train_per_author`` training posts a
    blogger, in corpus order."""
    from authorguard.experiments.config import config_from_dict
    from authorguard.experiments.views import cached_view

    config = config_from_dict(
        {
            "scenarios": ["BAC-10"],
            "split_seed": 0,
            "max_train_documents_per_author": train_per_author,
            "methods": [{"name": "original"}],
        }
    )
    corpus = cached_view(config, "BAC-10").corpus
    return list(corpus.texts), np.asarray(corpus.authors), np.asarray(corpus.splits)


def done_indices(path: Path) -> dict[int, str]:
    if not path.is_file():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {row["index"]: row["text"] for row in rows}


def realise(out: Path, label: str, train_per_author: int) -> None:
    """Write release ``label`` of every document, a batch of ``BATCH`` at a time (re-seeded from (SEED, batch));
    batches already in ``OUT/<label>.jsonl`` are skipped."""
    from authorguard.methods.build import build_text_method

    texts, _, _ = documents(train_per_author)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{label}.jsonl"
    done = done_indices(path)
    name, params = RELEASES[label]
    method = build_text_method(name, params, SEED)
    started, written = time.monotonic(), 0
    with open(path, "a", encoding="utf-8") as handle:
        for batch, start in enumerate(range(0, len(texts), BATCH)):
            indices = list(range(start, min(start + BATCH, len(texts))))
            if all(i in done for i in indices):
                continue
            if "random_state" in method.get_params():
                method.reseed(int(np.random.SeedSequence([SEED, batch]).generate_state(1)[0]))
            outputs = method.obfuscate([texts[i] for i in indices])
            for i, text in zip(indices, outputs, strict=True):
                handle.write(json.dumps({"index": i, "text": text}) + "\n")
            handle.flush()
            written += sum(len(texts[i].split()) for i in indices)
            elapsed = time.monotonic() - started
            print(f"{label}: {indices[-1] + 1}/{len(texts)} ({written / elapsed:.0f} input words/s)", file=sys.stderr)


def load_release(out: Path, label: str, n: int) -> list[str]:
    done = done_indices(out / f"{label}.jsonl")
    missing = [i for i in range(n) if i not in done]
    if missing:
        raise SystemExit(f"{label}: {len(missing)} of {n} documents not written yet (run realise)")
    return [done[i] for i in range(n)]


def article_counts(out: Path, train_per_author: int) -> dict:
    """Articles in each release against the roles view's optional ones: kept, dropped, added; and the share of
    words that differ from normalise's text."""
    import difflib

    from authorguard.text.views.constraints import FREE_WORDS

    texts, _, _ = documents(train_per_author)
    releases = {label: load_release(out, label, len(texts)) for label in RELEASES}
    result = {}
    base = [t.lower().split() for t in releases["normalise"]]
    for label, outputs in releases.items():
        changed = total = articles = 0
        for words, output in zip(base, outputs):
            other = output.lower().split()
            matcher = difflib.SequenceMatcher(a=words, b=other, autojunk=False)
            same = sum(block.size for block in matcher.get_matching_blocks())
            changed += max(len(words), len(other)) - same
            total += len(words)
            articles += sum(w.strip(".,;:!?\"'") in FREE_WORDS for w in other)
        result[label] = {"articles": articles, "words_differing_from_normalise": changed / max(total, 1)}
    return result


def attack(out: Path, train_per_author: int) -> list[dict]:
    """Accuracy of each attacker x threat model on each release's test posts, with each post's answer kept for
    the paired comparison."""
    from authorguard.attacks.base import make_attacker
    from authorguard.data.release import Release

    texts, authors, splits = documents(train_per_author)
    train, test = np.flatnonzero(splits == "train"), np.flatnonzero(splits == "test")
    original = Release.from_texts(texts)
    rows = []
    for label in RELEASES:
        released = Release.from_texts(load_release(out, label, len(texts)))
        for attacker in ATTACKERS:
            for threat in THREATS:
                source = original if threat == "static" else released
                model = make_attacker(attacker, "svm", SEED).fit(source.rows(train), authors[train])
                correct = model.predict(released.rows(test)) == authors[test]
                rows.append(
                    {
                        "release": label,
                        "attacker": attacker,
                        "threat_model": threat,
                        "accuracy": float(correct.mean()),
                        "correct": correct.astype(int).tolist(),
                    }
                )
                print(f"{label} {attacker} {threat}: {correct.mean():.3f}", file=sys.stderr)
    return rows


def table(rows: list[dict]) -> list[dict]:
    """Per release: the worst case over attackers x threat models with its Wilson interval, and the paired
    difference of its worst attack's per-post answers from the bottleneck's (bootstrap 95 % interval, exact
    McNemar p)."""
    from authorguard.metrics.statistics import mcnemar_exact, paired_bootstrap_interval, wilson_interval

    worst = {}
    for row in rows:
        if row["release"] not in worst or row["accuracy"] > worst[row["release"]]["accuracy"]:
            worst[row["release"]] = row
    reference = np.asarray(worst["bottleneck"]["correct"])
    out = []
    for label, row in worst.items():
        correct = np.asarray(row["correct"])
        low, high = wilson_interval(row["accuracy"], len(correct))
        d_low, d_high = paired_bootstrap_interval(reference, correct, np.random.default_rng(SEED))
        out.append(
            {
                "release": label,
                "worst": row["accuracy"],
                "interval": [low, high],
                "attack": f"{row['attacker']} / {row['threat_model']}",
                "delta_vs_bottleneck": float(correct.mean() - reference.mean()),
                "delta_interval": [d_low, d_high],
                "mcnemar_p": mcnemar_exact(correct, reference),
            }
        )
    cells = {(r["release"], r["attacker"], r["threat_model"]): np.asarray(r["correct"]) for r in rows}
    for (release, attacker, threat), correct in cells.items():
        if release == "rule":
            model = cells[("bottleneck", attacker, threat)]
            out.append(
                {
                    "cell": f"{attacker} / {threat}",
                    "rule": float(correct.mean()),
                    "bottleneck": float(model.mean()),
                    "mcnemar_p": mcnemar_exact(correct, model),
                }
            )
    return out


HELDOUT = Path("docs/results/faithful/heldout-4")
BLIND = Path("docs/results/bottleneck-rule/heldout-4/blind")


def heldout_labels() -> dict:
    """The rule's outputs on the fourth frozen held-out set by blind labels: an output identical to the language
    model's (labelled blind before) keeps that label, the others were labelled blind beside 30 of the model's
    outputs as controls; and how the controls' new labels agree with their first ones."""
    import collections

    def rows(path: Path) -> list[dict]:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    first_key = {r["id"]: r for r in rows(HELDOUT / "blind" / "key.jsonl")}
    first = {
        first_key[r["id"]]["item"]: r["label"]
        for part in range(3)
        for r in rows(HELDOUT / "blind" / f"labels-{part}.jsonl")
        if first_key[r["id"]]["method"] == "bottleneck"
    }
    key = {r["id"]: r for r in rows(BLIND / "key.jsonl")}
    new = {r["id"]: r["label"] for part in range(2) for r in rows(BLIND / f"labels-{part}.jsonl")}
    relabelled = {key[i]["item"]: label for i, label in new.items() if key[i]["method"] == "rule"}
    controls = [(first[key[i]["item"]], label) for i, label in new.items() if key[i]["method"] == "bottleneck"]
    carried = {item: first[item] for item in first if item not in relabelled}
    rule = collections.Counter({**carried, **relabelled}.values())
    return {
        "rule": dict(rule),
        "carried_from_identical_outputs": len(carried),
        "labelled_blind": len(relabelled),
        "model_first_labels": dict(collections.Counter(first.values())),
        "controls_agreeing": sum(a == b for a, b in controls),
        "controls": len(controls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["realise", "articles", "attack", "table", "labels"])
    parser.add_argument("out", type=Path)
    parser.add_argument("--label", choices=sorted(RELEASES))
    parser.add_argument("--train-per-author", type=int, default=60)
    parser.add_argument("--json", type=Path, help="where the attack step writes its rows")
    args = parser.parse_args()
    if args.step == "realise":
        if args.label is None:
            parser.error("realise needs --label")
        realise(args.out, args.label, args.train_per_author)
    elif args.step == "labels":
        print(json.dumps(heldout_labels(), indent=1))
    elif args.step == "table":
        if args.json is None:
            parser.error("table needs --json (the attack step's rows)")
        print(json.dumps(table(json.loads(args.json.read_text(encoding="utf-8"))), indent=1))
    elif args.step == "articles":
        print(json.dumps(article_counts(args.out, args.train_per_author), indent=1))
    else:
        rows = attack(args.out, args.train_per_author)
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
