"""Issue 69: the transformer attributor at full size on a GPU, prepared here and run there in one command.

``prepare`` (here, on the CPU): writes a folder that travels to the GPU machine (which reaches nothing outside
and receives at most 64 MiB a call): BAC-10's posts (train and test split, authors) and each test view's texts —
as written, ``normalise``, ``generalise`` at each ``--levels`` level, and the bottleneck's rewrites when
``--bottleneck`` names what ``authorguard obfuscate`` (JSONL) or ``authorguard anonymize`` (Parquet shards) wrote
for the test posts — xz-compressed, plus all-MiniLM-L6-v2 in float16 (44 MB; all-mpnet-base-v2, ~420 MB, cannot
travel). It prints the folder's size.

``run`` (there): fine-tunes the attributor on every training window (``device=auto``), scores each view's test
posts (accuracy with its Wilson 95 % interval and each post's right/wrong, for paired tests), and the char n-gram
SVM on the same documents (static threat model: both trained on the posts as written); writes ``results.json`` to
``--out``.

``--retrain VIEW ...`` adds those views of the training posts (computed here), and ``--bottleneck-train`` the
bottleneck's rewrites of some training posts: ``run`` then retrains both attackers on each (the adversarial threat
model) and, where a view covers only some training posts, on the same posts as written too.

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/benchmark/attributor_gpu.py prepare runs/issue69/carry \
            --levels names withheld-5000 --retrain normalise "generalise names" \
            --bottleneck runs/issue69/bottleneck-test [--bottleneck-train runs/issue69/bottleneck-train] \
            [--limit-train N --limit-test N]   (a dry run: small N)
        python scripts/benchmark/attributor_gpu.py run runs/issue69/carry --out $OUT [--epochs 3] [--batch-size 64]
            [--budget-s 480]
The device call, with the tree slimmed to what the run needs: docs/results/attributor-gpu.md.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np


def _views_of(texts: list[str], levels: list[str], names: list[str] | None = None) -> dict[str, list[str]]:
    """Each text view of ``texts`` (``names`` None = every view: normalise and each generalise level)."""
    from authorguard.api import build_method

    wanted = ["normalise", *(f"generalise {level}" for level in levels)] if names is None else names
    views = {}
    for name in wanted:
        if name == "normalise":
            views[name] = build_method("normalise").obfuscate(texts)
        elif name.startswith("generalise "):
            views[name] = build_method("generalise", params={"level": name.split(" ", 1)[1]}).obfuscate(texts)
        else:
            raise SystemExit(f"--retrain: no view {name!r} (normalise, or 'generalise LEVEL' of --levels)")
    return views


def _rewrites(path: str) -> dict[str, str]:
    """id -> text of a JSONL (``authorguard obfuscate``) or a folder of Parquet shards (``authorguard anonymize``);
    a record withheld (no text) is an error: the views must cover the same posts."""
    source = Path(path)
    if source.is_dir():
        import pandas as pd

        frame = pd.concat([pd.read_parquet(f) for f in sorted(source.glob("*.parquet"))], ignore_index=True)
        records = frame.to_dict("records")
    else:
        with open(source, encoding="utf-8") as handle:
            records = [json.loads(line) for line in handle]
    rewritten = {str(r["id"]): r["text"] for r in records if isinstance(r.get("text"), str) and r["text"]}
    if len(rewritten) != len(records):
        raise SystemExit(f"{path}: {len(records) - len(rewritten)} records have no text (withheld)")
    return rewritten


def prepare(
    folder: Path,
    levels: list[str],
    bottleneck: str | None,
    bottleneck_train: str | None,
    retrain: list[str],
    limit_train: int | None,
    limit_test: int | None,
) -> None:
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
    with lzma.open(folder / "posts.jsonl.xz", "wt", encoding="utf-8") as out:
        for split, positions in (("train", train), ("test", test)):
            for i in positions:
                out.write(
                    json.dumps({"id": ids[i], "split": split, "author": str(attack.targets[i]), "text": texts[i]})
                    + "\n"
                )
    rows: list[tuple[str, str, list[int], list[str]]] = []  # (view, split, positions, texts)
    test_texts = [texts[i] for i in test]
    rows.append(("as written", "test", list(test), test_texts))
    for name, outputs in _views_of(test_texts, levels).items():
        rows.append((name, "test", list(test), outputs))
    if retrain:
        for name, outputs in _views_of([texts[i] for i in train], levels, retrain).items():
            rows.append((name, "train", list(train), outputs))
    for path, split, positions in ((bottleneck, "test", test), (bottleneck_train, "train", train)):
        if not path:
            continue
        rewritten = _rewrites(path)
        known = {ids[i] for i in positions}
        unknown = sorted(set(rewritten) - known)
        if unknown and (limit_train, limit_test) == (None, None):  # a dry run samples posts: others are left out
            raise SystemExit(f"{path}: {len(unknown)} ids are not {split} posts here (first: {unknown[0]})")
        covered = [i for i in positions if ids[i] in rewritten]
        if not covered:
            raise SystemExit(f"{path}: none of its ids is a {split} post here")
        if split == "test" and len(covered) != len(positions):
            raise SystemExit(f"{path}: no rewrite for {len(positions) - len(covered)} test posts")
        rows.append(("bottleneck", split, covered, [rewritten[ids[i]] for i in covered]))
    with lzma.open(folder / "views.jsonl.xz", "wt", encoding="utf-8") as out:
        for name, split, positions, outputs in rows:
            for i, text in zip(positions, outputs):
                out.write(json.dumps({"view": name, "split": split, "id": ids[i], "text": text}) + "\n")
    save_half_precision(folder / "minilm-fp16")
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    summary = ", ".join(f"{name} {split} {len(positions)}" for name, split, positions, _ in rows)
    print(f"{folder}: {len(train)} training and {len(test)} test posts; views: {summary}; {size / 2**20:.1f} MiB")
    if size > 60 * 2**20:
        raise SystemExit(f"{folder} is {size / 2**20:.1f} MiB: over what a device call can carry with the code")


def _score(predictions, authors: list[str]) -> dict:
    from authorguard.metrics.statistics import wilson_interval

    correct = np.asarray(predictions) == np.asarray(authors)
    accuracy = float(correct.mean())
    return {
        "accuracy": accuracy,
        "wilson95": list(wilson_interval(accuracy, len(authors))),
        "correct": "".join("1" if c else "0" for c in correct),
    }  # per post, for paired tests later


ATTACKERS = ("transformer", "char-ngrams")


@dataclass(frozen=True)
class RunSettings:
    folder: Path
    epochs: int
    batch_size: int
    attackers: tuple[str, ...] = ATTACKERS


class _Attackers:
    """The attackers of ``settings`` (the fine-tuned transformer, the char n-gram SVM) trained on one set of texts."""

    def __init__(self, settings: RunSettings, texts: list[str], authors: list[str]) -> None:
        from authorguard import registry
        from authorguard.data.release import Release
        from authorguard.neural.attributor.config import AttributorConfig
        from authorguard.neural.attributor.trainer import FineTunedClassifier

        started = time.perf_counter()
        self.models, self.device = {}, "cpu"
        if "transformer" in settings.attackers:
            config = AttributorConfig(
                epochs=settings.epochs,
                batch_size=settings.batch_size,
                max_windows=4,
                max_train_windows=10**9,  # every window of every training post
                base_model=str(settings.folder / "minilm-fp16"),
                device="auto",
            )
            model = FineTunedClassifier(config, random_state=0).fit(texts, authors)
            self.models["transformer"], self.device = model, model.device_
            losses = model.losses_
            self.loss_first_last = [float(np.mean(losses[:20])), float(np.mean(losses[-20:]))]
        if "char-ngrams" in settings.attackers:
            self.models["char-ngrams"] = registry.attackers.get("char-ngrams")().fit(Release.texts_only(texts), authors)
        self.fit_seconds = time.perf_counter() - started
        self.training_posts = len(texts)

    def score(self, texts: list[str], authors: list[str]) -> dict:
        from authorguard.data.release import Release

        return {
            name: _score(model.predict(texts if name == "transformer" else Release.texts_only(texts)), authors)
            for name, model in self.models.items()
        }

    def summary(self) -> dict:
        row = {"training_posts": self.training_posts, "fit_seconds": round(self.fit_seconds, 1)}
        if "transformer" in self.models:
            row["transformer_loss_first_last"] = self.loss_first_last
        return row


def run(settings: RunSettings, out: Path, budget_s: float) -> None:
    """Static: the attackers trained on the posts as written, every view scored. Retrained (the adversarial
    threat model): for each view with training texts, the attackers trained on them and scored on the view's test
    posts; where the view covers only some training posts, the attackers trained on the same posts as written too
    (the reference at that size). results.json is rewritten after each step: a run cut short keeps what it did."""
    started = time.monotonic()
    try:
        import torch

        torch.backends.cuda.matmul.allow_tf32 = True  # float32 weights, TF32 products: Hopper's fast path
        torch.backends.cudnn.allow_tf32 = True
    except ImportError:
        pass
    with lzma.open(settings.folder / "posts.jsonl.xz", "rt", encoding="utf-8") as handle:
        posts = [json.loads(line) for line in handle]
    with lzma.open(settings.folder / "views.jsonl.xz", "rt", encoding="utf-8") as handle:
        view_rows = [json.loads(line) for line in handle]
    author_of = {p["id"]: p["author"] for p in posts}
    original = {p["id"]: p["text"] for p in posts}
    train_ids = [p["id"] for p in posts if p["split"] == "train"]
    views: dict[tuple[str, str], tuple[list[str], list[str]]] = {}  # (view, split) -> (ids, texts)
    for row in view_rows:
        ids, texts = views.setdefault((row["view"], row["split"]), ([], []))
        ids.append(row["id"])
        texts.append(row["text"])
    out.mkdir(parents=True, exist_ok=True)
    results: dict = {
        "command": "attributor_gpu.py run",
        "epochs": settings.epochs,
        "batch_size": settings.batch_size,
        "attackers": list(settings.attackers),
        "views": {},
        "skipped": [],
    }

    def save() -> None:
        results["wall_seconds"] = round(time.monotonic() - started, 1)
        (out / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")

    def accuracies(scores: dict) -> dict:
        return {name: round(score["accuracy"], 3) for name, score in scores.items() if name in ATTACKERS}

    static = _Attackers(settings, [original[i] for i in train_ids], [author_of[i] for i in train_ids])
    results["device"] = static.device
    results["static_attackers"] = static.summary()
    seconds_per_post = static.fit_seconds / len(train_ids)
    for (name, split), (ids, texts) in views.items():
        if split == "test":
            results["views"][name] = {"posts": len(ids), "static": static.score(texts, [author_of[i] for i in ids])}
            print(name, "static", accuracies(results["views"][name]["static"]), flush=True)
    save()
    for (name, split), (ids, texts) in views.items():
        if split != "train" or name not in results["views"]:
            continue
        subset = len(ids) < len(train_ids)
        needed = seconds_per_post * len(ids) * (2 if subset else 1) * 1.2 + 30
        if time.monotonic() - started + needed > budget_s:
            results["skipped"].append(f"{name} retrained: ~{needed:.0f} s left out of the {budget_s:.0f} s budget")
            save()
            continue
        test_ids, test_texts = views[(name, "test")]
        test_authors = [author_of[i] for i in test_ids]
        retrained = _Attackers(settings, texts, [author_of[i] for i in ids])
        row = {**retrained.summary(), **retrained.score(test_texts, test_authors)}
        if subset:  # the same training posts as written: what the view costs the attacker at this size
            reference = _Attackers(settings, [original[i] for i in ids], [author_of[i] for i in ids])
            row["as written, same training posts"] = reference.score([original[i] for i in test_ids], test_authors)
        results["views"][name]["retrained"] = row
        print(name, "retrained", accuracies(row), flush=True)
        save()
    print(f"{time.monotonic() - started:.0f} s on {results['device']}; results in {out / 'results.json'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("prepare")
    make.add_argument("folder", type=Path)
    make.add_argument("--levels", nargs="*", default=[], help="generalise levels to add as views")
    make.add_argument("--bottleneck", help="the bottleneck's rewrites of the test posts: JSONL (id, text) or shards")
    make.add_argument("--bottleneck-train", help="the same for (some of) the training posts: the retrained attack")
    make.add_argument("--retrain", nargs="*", default=[], help="views whose training posts travel too (retrained)")
    make.add_argument("--limit-train", type=int, default=None, help="A dry run: a seeded sample of N training posts")
    make.add_argument("--limit-test", type=int, default=None, help="A dry run: a seeded sample of N test posts")
    go = commands.add_parser("run")
    go.add_argument("folder", type=Path)
    go.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "runs/attributor-gpu")))
    go.add_argument("--epochs", type=int, default=3)
    go.add_argument("--batch-size", type=int, default=64)
    go.add_argument("--budget-s", type=float, default=480, help="leave out retrained runs that would end later")
    go.add_argument("--attackers", nargs="+", choices=ATTACKERS, default=list(ATTACKERS))
    args = parser.parse_args()
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if args.command == "prepare":
        prepare(
            args.folder,
            args.levels,
            args.bottleneck,
            args.bottleneck_train,
            args.retrain,
            args.limit_train,
            args.limit_test,
        )
    else:
        run(RunSettings(args.folder, args.epochs, args.batch_size, tuple(args.attackers)), args.out, args.budget_s)


if __name__ == "__main__":
    main()
