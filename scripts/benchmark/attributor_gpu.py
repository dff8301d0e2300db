"""Issue 69: the transformer attributor at full size on a GPU, prepared here and run there in one command.

``prepare`` (here, on the CPU) writes a folder that travels to the GPU machine (which reaches nothing outside and
receives at most 64 MiB a call, code included): BAC-10's posts (train and test split, authors), each test view's
texts — as written, ``normalise``, ``generalise`` at each ``--levels`` level — and, for ``--retrain VIEW ...``,
those views of the training posts too, xz-compressed; plus all-MiniLM-L6-v2 in float16 (44 MB; all-mpnet-base-v2,
~420 MB, cannot travel). ``add-rewrites`` appends a rewriting method's outputs as a view (what ``authorguard
obfuscate`` wrote as JSONL, or ``authorguard anonymize``'s Parquet shards): of every test post, and of some or all
training posts for the retrained attack. Each step prints the folder's size.

``run`` (there) trains the attackers — the transformer fine-tuned on every training window (``device=auto``), the
char n-gram SVM — on the posts as written and scores every view's test posts (static threat model), then retrains
them on each view that has training posts and scores that view (adversarial), beside the same training posts as
written where a view covers only some. Accuracy with its Wilson 95 % interval and each post's right/wrong (for
paired tests) go to ``--out``/results.json, rewritten after every step; ``--budget-s`` leaves out the retrained runs
that would end later. ``--attackers char-ngrams`` runs the SVM alone (the same figures on a CPU, in minutes).

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/benchmark/attributor_gpu.py prepare runs/issue69/carry \
            --levels names withheld-5000 --retrain normalise "generalise names" [--limit-train N --limit-test N]
        python scripts/benchmark/attributor_gpu.py add-rewrites runs/issue69/carry bottleneck \
            --test runs/issue69/bottleneck-test.jsonl [--train runs/issue69/bottleneck-train.jsonl]
        python scripts/benchmark/attributor_gpu.py run runs/issue69/carry --out $OUT [--epochs 3] [--batch-size 64] \
            [--budget-s 480] [--attackers transformer char-ngrams]
The device call, with the tree slimmed to what the run needs (scripts/device/travel.py): docs/results/attributor-gpu.md.
"""

from __future__ import annotations

import argparse
import hashlib
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
            raise SystemExit(f"no view {name!r} (views: normalise, 'generalise LEVEL')")
    return views


def _jsonl(path: Path) -> list[dict]:
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _rewrites(paths: list[str]) -> dict[str, str]:
    """id -> text of JSONL files (``authorguard obfuscate``; .jsonl.xz too) or folders of Parquet shards (``authorguard
    anonymize``).
    A withheld record (no text) is released as "" — what the benchmark's attackers read for it; the counts of each
    release status are printed."""
    from collections import Counter

    records = []
    for path in paths:
        source = Path(path)
        if source.is_dir() and not any(source.glob("*.parquet")):  # a folder of JSONL parts (rewrite_parts.py)
            records += [r for part in sorted(source.glob("part-*.jsonl*")) for r in _jsonl(part)]
        elif source.is_dir():
            import pandas as pd

            frame = pd.concat([pd.read_parquet(f) for f in sorted(source.glob("*.parquet"))], ignore_index=True)
            records += frame.to_dict("records")
        else:
            records += _jsonl(source)
    rewritten = {str(r["id"]): r["text"] if isinstance(r.get("text"), str) else "" for r in records}
    if len(rewritten) != len(records):
        raise SystemExit(f"{', '.join(paths)}: {len(records) - len(rewritten)} ids appear twice")
    statuses = Counter(str(r.get("release_status", "?")) for r in records)
    print(f"{len(records)} records: " + ", ".join(f"{n} {status}" for status, n in statuses.most_common()))
    return rewritten


def _folder_size(folder: Path) -> None:
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    print(f"{folder}: {size / 2**20:.1f} MiB")
    if size > 60 * 2**20:
        raise SystemExit(f"{folder} is {size / 2**20:.1f} MiB: over what a device call can carry with the code")


def _write_views(folder: Path, rows: list[tuple[str, str, list[str], list[str]]], mode: str) -> None:
    """Rows (view, split, post ids, texts) to views.jsonl.xz (``mode`` "wt" or "at": a further xz stream)."""
    with lzma.open(folder / "views.jsonl.xz", mode, encoding="utf-8") as out:
        for name, split, post_ids, outputs in rows:
            for post_id, text in zip(post_ids, outputs):
                out.write(json.dumps({"view": name, "split": split, "id": post_id, "text": text}) + "\n")
    for name, split, post_ids, _ in rows:
        print(f"view {name!r}, {split}: {len(post_ids)} posts")


def prepare(folder: Path, levels: list[str], retrain: list[str], limit_train: int | None, limit_test: int | None):
    from authorguard.experiments.config import config_from_dict
    from authorguard.experiments.views import build_view
    from authorguard.neural.attributor.weights import save_half_precision

    unknown = sorted(set(retrain) - {"normalise", *(f"generalise {level}" for level in levels)})
    if unknown:
        raise SystemExit(f"--retrain {', '.join(unknown)}: not a test view here (add its level to --levels)")
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
    test_ids, train_ids = [ids[i] for i in test], [ids[i] for i in train]
    test_texts = [texts[i] for i in test]
    rows = [("as written", "test", test_ids, test_texts)]
    rows += [(name, "test", test_ids, out) for name, out in _views_of(test_texts, levels).items()]
    if retrain:
        train_views = _views_of([texts[i] for i in train], levels, retrain)
        rows += [(name, "train", train_ids, out) for name, out in train_views.items()]
    _write_views(folder, rows, "wt")
    save_half_precision(folder / "minilm-fp16")
    _folder_size(folder)


def _views_present(folder: Path) -> set[tuple[str, str]]:
    return {(row["view"], row["split"]) for row in _jsonl(folder / "views.jsonl.xz")}


def add_views(folder: Path, names: list[str], split: str) -> None:
    """Append views computed here (``normalise``, ``generalise LEVEL``) of the folder's ``split`` posts."""
    posts = [p for p in _jsonl(folder / "posts.jsonl.xz") if p["split"] == split]
    present = _views_present(folder)
    missing = [name for name in names if split == "train" and (name, "test") not in present]
    if missing:
        raise SystemExit(f"{folder}: no test posts of {', '.join(missing)}: add them first (--split test)")
    twice = [name for name in names if (name, split) in present]
    if twice:
        raise SystemExit(f"{folder}: already holds the {split} posts of {', '.join(twice)}")
    ids, texts = [p["id"] for p in posts], [p["text"] for p in posts]
    _write_views(folder, [(name, split, ids, out) for name, out in _views_of(texts, [], names).items()], "at")
    _folder_size(folder)


def add_rewrites(folder: Path, name: str, test_paths: list[str], train_paths: list[str], partial: bool = False) -> None:
    """Append a method's rewrites as view ``name``: of every test post (``test_paths``; ``partial``: of some, scored
    beside the same posts as written) and, for the retrained attack, of some or all training posts
    (``train_paths``)."""
    split_of = {p["id"]: p["split"] for p in _jsonl(folder / "posts.jsonl.xz")}
    present = _views_present(folder)
    for paths, split in ((test_paths, "test"), (train_paths, "train")):
        if paths and (name, split) in present:
            raise SystemExit(f"{folder}: already holds view {name!r} of the {split} posts")
    if train_paths and not test_paths and (name, "test") not in present:
        raise SystemExit(f"{folder}: view {name!r} has no test posts: give --test first")
    if name == "as written":
        raise SystemExit("'as written' is the posts themselves: give the view another name")
    test_ids = [i for i, s in split_of.items() if s == "test"]
    dry_run = len(test_ids) < 2_350  # prepare --limit-test: a sample of the posts
    rows = []
    for paths, split in ((test_paths, "test"), (train_paths, "train")):
        if not paths:
            continue
        path = ", ".join(paths)
        rewritten = _rewrites(paths)
        unknown = sorted(i for i in rewritten if split_of.get(i) != split)
        if unknown and not dry_run:
            raise SystemExit(f"{path}: {len(unknown)} ids are not {split} posts here (first: {unknown[0]})")
        post_ids = [i for i, s in split_of.items() if s == split and i in rewritten]
        if not post_ids:
            raise SystemExit(f"{path}: none of its ids is a {split} post here")
        if split == "test" and not (dry_run or partial) and len(post_ids) != len(test_ids):
            raise SystemExit(f"{path}: rewrites of {len(post_ids)} of {len(test_ids)} test posts (--partial allows it)")
        rows.append((name, split, post_ids, [rewritten[i] for i in post_ids]))
    _write_views(folder, rows, "at")
    _folder_size(folder)


def _score(predictions, authors: list[str]) -> dict:
    from authorguard.metrics.statistics import wilson_interval

    correct = np.asarray(predictions) == np.asarray(authors)
    accuracy = float(correct.mean())
    return {
        "accuracy": accuracy,
        "wilson95": list(wilson_interval(accuracy, len(authors))),
        "correct": "".join("1" if c else "0" for c in correct),
    }  # per post, for paired tests later


def _digest(post_ids: list[str]) -> str:
    """The posts a view's per-post answers are in the order of: results files merge only on the same digest."""
    return hashlib.sha256("\n".join(post_ids).encode()).hexdigest()[:16]


ATTACKERS = ("transformer", "char-ngrams")


@dataclass(frozen=True)
class RunSettings:
    folder: Path
    epochs: int
    batch_size: int
    attackers: tuple[str, ...] = ATTACKERS
    max_train_windows: int = 10**9  # every window of every training post
    device: str = "auto"  # "cuda" on the device machine: a run that finds no GPU fails instead of taking hours


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
                max_train_windows=settings.max_train_windows,
                base_model=str(settings.folder / "minilm-fp16"),
                device=settings.device,
            )
            model = FineTunedClassifier(config, random_state=0).fit(texts, authors)
            self.models["transformer"], self.device = model, model.device_
            losses = model.losses_
            self.loss_first_last = [float(np.mean(losses[:20])), float(np.mean(losses[-20:]))]
        if "char-ngrams" in settings.attackers:
            svm = registry.attackers.get("char-ngrams")(random_state=0)  # the benchmark's seed
            self.models["char-ngrams"] = svm.fit(Release.texts_only(texts), authors)
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
    posts = _jsonl(settings.folder / "posts.jsonl.xz")
    view_rows = _jsonl(settings.folder / "views.jsonl.xz")
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
        "max_train_windows": settings.max_train_windows,
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
    all_test = views[("as written", "test")][0]
    for (name, split), (ids, texts) in views.items():
        if split == "test":
            authors = [author_of[i] for i in ids]
            row = {"posts": len(ids), "posts_sha256": _digest(ids), "static": static.score(texts, authors)}
            if ids != all_test:  # a view of some test posts: the same posts as written beside it
                row["static"]["as written, same test posts"] = static.score([original[i] for i in ids], authors)
            results["views"][name] = row
            print(name, "static", accuracies(row["static"]), flush=True)
    save()
    for (name, split), (ids, texts) in views.items():
        if split != "train" or name not in results["views"]:
            continue
        subset = ids != train_ids
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


def table(result_files: list[Path]) -> str:
    """A markdown table of one or more results.json (the GPU run's transformer, the CPU run's SVM: attackers are
    merged by view): each view's accuracy per attacker, static and retrained, with Wilson 95 % intervals; its worst
    case over both; and the paired difference of that worst case from the worst case on the same posts as written
    (95 % paired-bootstrap interval, exact McNemar p)."""
    from authorguard.metrics.statistics import mcnemar_exact, paired_bootstrap_interval

    merged: dict[str, dict] = {}
    for path in result_files:
        results = json.loads(path.read_text(encoding="utf-8"))
        for name, row in results["views"].items():
            if "posts_sha256" not in row:
                raise SystemExit(f"{path}: written before runs recorded their posts' digest: run it again")
            view = merged.setdefault(
                name, {"posts": row["posts"], "digest": row["posts_sha256"], "scores": {}, "reference": {}}
            )
            if view["digest"] != row["posts_sha256"]:
                raise SystemExit(f"{path}: view {name!r} holds other test posts than the results merged before")
            for model in ("static", "retrained"):
                for attacker, score in row.get(model, {}).items():
                    if attacker in ATTACKERS:
                        view["scores"][(attacker, model)] = score
                    elif attacker.startswith("as written") and model == "static":  # a partial view's posts as written
                        view["reference"].update({(a, "static"): s for a, s in score.items()})
    if "as written" not in merged:
        raise SystemExit("no 'as written' view in the results")

    def correct(score: dict) -> np.ndarray:
        return np.frombuffer(score["correct"].encode(), dtype=np.uint8) == ord("1")

    def worst(scores: dict) -> tuple[tuple[str, str], dict]:
        return max(scores.items(), key=lambda item: item[1]["accuracy"])

    lines = [
        "| view | test posts | attacker | static [95 % CI] | retrained [95 % CI] | worst case | Δ vs as written "
        "[95 % CI] | McNemar p |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    rng = np.random.default_rng(0)
    for name, view in merged.items():
        reference = view["reference"] or merged["as written"]["scores"]
        (worst_key, worst_score), (_, reference_score) = worst(view["scores"]), worst(reference)
        a, b = correct(reference_score), correct(worst_score)
        low, high = paired_bootstrap_interval(a, b, rng)
        delta = (
            "–"
            if name == "as written"
            else f"{100 * (b.mean() - a.mean()):+.1f} pt [{100 * low:+.1f}, {100 * high:+.1f}]"
        )
        if view["reference"]:  # a view of some test posts: say what the same posts as written scored
            delta += f" (these posts as written: {a.mean():.3f})"
        p_value = "–" if name == "as written" else f"{mcnemar_exact(a, b):.2g}"
        for attacker in ATTACKERS:
            cells = []
            for model in ("static", "retrained"):
                score = view["scores"].get((attacker, model))
                cells.append(
                    "–"
                    if score is None
                    else f"{score['accuracy']:.3f} [{score['wilson95'][0]:.3f}, {score['wilson95'][1]:.3f}]"
                )
            if all(cell == "–" for cell in cells):
                continue
            lines.append(
                f"| {name} | {view['posts']} | {attacker} | {cells[0]} | {cells[1]} | "
                + (
                    f"{worst_score['accuracy']:.3f} ({worst_key[0]}, {worst_key[1]}) | {delta} | {p_value} |"
                    if attacker == worst_key[0]
                    else " | | |"
                )
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("prepare")
    make.add_argument("folder", type=Path)
    make.add_argument("--levels", nargs="*", default=[], help="generalise levels to add as views")
    make.add_argument("--retrain", nargs="*", default=[], help="views whose training posts travel too (retrained)")
    make.add_argument("--limit-train", type=int, default=None, help="A dry run: a seeded sample of N training posts")
    make.add_argument("--limit-test", type=int, default=None, help="A dry run: a seeded sample of N test posts")
    more = commands.add_parser("add-views")
    more.add_argument("folder", type=Path)
    more.add_argument("views", nargs="+", help="normalise or 'generalise LEVEL'")
    more.add_argument("--split", choices=("train", "test"), default="train")
    add = commands.add_parser("add-rewrites")
    add.add_argument("folder", type=Path)
    add.add_argument("name", help="the view's name (e.g. bottleneck)")
    add.add_argument(
        "--test", nargs="*", default=[], help="rewrites of every test post: JSONL files (id, text; .xz too), folders"
    )
    add.add_argument("--train", nargs="*", default=[], help="rewrites of some or all training posts (retrained)")
    add.add_argument("--partial", action="store_true", help="allow rewrites of only some test posts")
    show = commands.add_parser("table")
    show.add_argument("results", nargs="+", type=Path, help="results.json files (merged by view)")
    go = commands.add_parser("run")
    go.add_argument("folder", type=Path)
    go.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "runs/attributor-gpu")))
    go.add_argument("--epochs", type=int, default=3)
    go.add_argument("--batch-size", type=int, default=64)
    go.add_argument("--budget-s", type=float, default=480, help="leave out retrained runs that would end later")
    go.add_argument("--attackers", nargs="+", choices=ATTACKERS, default=list(ATTACKERS))
    go.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto")
    go.add_argument(
        "--max-train-windows", type=int, default=10**9, help="a seeded sample of training windows (CPU scale)"
    )
    args = parser.parse_args()
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if args.command == "prepare":
        prepare(args.folder, args.levels, args.retrain, args.limit_train, args.limit_test)
    elif args.command == "table":
        print(table(args.results))
    elif args.command == "add-views":
        add_views(args.folder, args.views, args.split)
    elif args.command == "add-rewrites":
        add_rewrites(args.folder, args.name, args.test, args.train, args.partial)
    else:
        settings = RunSettings(
            args.folder, args.epochs, args.batch_size, tuple(args.attackers), args.max_train_windows, args.device
        )
        run(settings, args.out, args.budget_s)


if __name__ == "__main__":
    main()
