"""Issue 69: the transformer attributor at full size on a GPU, prepared here and run there in one command.

``prepare`` (here, on the CPU): writes a folder that travels to the GPU machine (which reaches nothing outside
and receives at most 64 MiB a call): BAC-10's posts (train and test split, authors) and each test view's texts —
as written, ``normalise``, ``generalise`` at each ``--levels`` level, and the bottleneck's rewrites when
``--bottleneck`` names the JSONL that ``authorguard obfuscate`` wrote for the test posts — plus all-MiniLM-L6-v2
in float16 (44 MB; all-mpnet-base-v2, ~420 MB, cannot travel). It prints the folder's size.

``run`` (there): fine-tunes the attributor on every training window (``device=auto``), scores each view's test
posts (accuracy with its Wilson 95 % interval), and the char n-gram SVM on the same documents (static threat model:
both trained on the posts as written); writes ``results.json`` to ``--out``.

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/benchmark/attributor_gpu.py prepare .carry69 [--levels names]
        [--bottleneck rewritten-test.jsonl] [--limit-train N --limit-test N]   (a dry run: small N)
        python scripts/benchmark/attributor_gpu.py run .carry69 --out $OUT [--epochs 3] [--batch-size 64]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from pathlib import Path

import numpy as np


def prepare(folder: Path, levels: list[str], bottleneck: str | None, limit_train: int, limit_test: int) -> None:
    from authorguard.api import build_method
    from authorguard.experiments.config import config_from_dict
    from authorguard.experiments.views import build_view
    from authorguard.neural.attributor.weights import save_half_precision

    folder.mkdir(parents=True, exist_ok=True)
    view = build_view(config_from_dict({"scenarios": ["BAC-10"], "methods": [{"name": "original"}]}), "BAC-10")
    attack = view.attacks[0]
    rng = np.random.default_rng(0)  # a dry run's posts: a seeded sample of each split (every author, likely)
    train, test = (
        positions if limit is None else np.sort(rng.choice(positions, min(limit, len(positions)), replace=False))
        for positions, limit in ((attack.train, limit_train), (attack.test, limit_test))
    )
    texts, ids = list(view.corpus.texts), [str(i) for i in view.corpus.ids]
    with gzip.open(folder / "posts.jsonl.gz", "wt", encoding="utf-8") as out:
        for split, positions in (("train", train), ("test", test)):
            for i in positions:
                out.write(
                    json.dumps({"id": ids[i], "split": split, "author": str(attack.targets[i]), "text": texts[i]})
                    + "\n"
                )
    test_texts = [texts[i] for i in test]
    views = {"as written": test_texts, "normalise": build_method("normalise").obfuscate(test_texts)}
    for level in levels:
        views[f"generalise {level}"] = build_method("generalise", params={"level": level}).obfuscate(test_texts)
    if bottleneck:
        rewritten = {}
        with open(bottleneck, encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                rewritten[str(record["id"])] = record["text"]
        missing = [ids[i] for i in test if ids[i] not in rewritten]
        if missing:
            raise SystemExit(f"{bottleneck}: no rewrite for {len(missing)} test posts (first: {missing[0]})")
        views["bottleneck"] = [rewritten[ids[i]] for i in test]
    with gzip.open(folder / "views.jsonl.gz", "wt", encoding="utf-8") as out:
        for name, outputs in views.items():
            for i, text in zip(test, outputs):
                out.write(json.dumps({"view": name, "id": ids[i], "text": text}) + "\n")
    save_half_precision(folder / "minilm-fp16")
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    print(f"{folder}: {len(train)} training and {len(test)} test posts, views {list(views)}; {size / 2**20:.1f} MiB")
    if size > 60 * 2**20:
        raise SystemExit(f"{folder} is {size / 2**20:.1f} MiB: over what a device call can carry with the code")


def run(folder: Path, out: Path, epochs: int, batch_size: int) -> None:
    from authorguard import registry
    from authorguard.data.release import Release
    from authorguard.metrics.statistics import wilson_interval
    from authorguard.neural.attributor.config import AttributorConfig
    from authorguard.neural.attributor.trainer import FineTunedClassifier

    with gzip.open(folder / "posts.jsonl.gz", "rt", encoding="utf-8") as handle:
        posts = [json.loads(line) for line in handle]
    with gzip.open(folder / "views.jsonl.gz", "rt", encoding="utf-8") as handle:
        view_rows = [json.loads(line) for line in handle]
    train = [p for p in posts if p["split"] == "train"]
    author_of = {p["id"]: p["author"] for p in posts if p["split"] == "test"}
    views: dict[str, tuple[list[str], list[str]]] = {}
    for row in view_rows:
        texts, authors = views.setdefault(row["view"], ([], []))
        texts.append(row["text"])
        authors.append(author_of[row["id"]])
    train_texts, train_authors = [p["text"] for p in train], [p["author"] for p in train]
    config = AttributorConfig(
        epochs=epochs,
        batch_size=batch_size,
        max_windows=4,
        max_train_windows=10**9,  # every window of every training post
        base_model=str(folder / "minilm-fp16"),
        device="auto",
    )
    started = time.perf_counter()
    model = FineTunedClassifier(config, random_state=0).fit(train_texts, train_authors)
    fit_seconds = time.perf_counter() - started
    svm = registry.attackers.get("char-ngrams")().fit(Release.from_texts(train_texts), train_authors)
    results = {
        "device": model.device_,
        "training_posts": len(train_texts),
        "epochs": epochs,
        "fit_seconds": fit_seconds,
        "loss_first_last": [float(np.mean(model.losses_[:20])), float(np.mean(model.losses_[-20:]))],
        "views": {},
    }
    for name, (texts, authors) in views.items():
        row = {"posts": len(texts)}
        for attacker, predictions in (
            ("transformer", model.predict(texts)),
            ("char-ngrams", svm.predict(Release.from_texts(texts))),
        ):
            accuracy = float(np.mean(np.asarray(predictions) == np.asarray(authors)))
            row[attacker] = {"accuracy": accuracy, "wilson95": list(wilson_interval(accuracy, len(texts)))}
        results["views"][name] = row
        print(name, json.dumps(row))
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"fit {fit_seconds:.0f} s on {model.device_}; results in {out / 'results.json'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("prepare")
    make.add_argument("folder", type=Path)
    make.add_argument("--levels", nargs="*", default=[], help="generalise levels to add as views")
    make.add_argument("--bottleneck", help="JSONL of the bottleneck's rewrites of the test posts (id, text)")
    make.add_argument("--limit-train", type=int, default=None, help="A dry run: a seeded sample of N training posts")
    make.add_argument("--limit-test", type=int, default=None, help="A dry run: a seeded sample of N test posts")
    go = commands.add_parser("run")
    go.add_argument("folder", type=Path)
    go.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "runs/attributor-gpu")))
    go.add_argument("--epochs", type=int, default=3)
    go.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if args.command == "prepare":
        prepare(args.folder, args.levels, args.bottleneck, args.limit_train, args.limit_test)
    else:
        run(args.folder, args.out, args.epochs, args.batch_size)


if __name__ == "__main__":
    main()
