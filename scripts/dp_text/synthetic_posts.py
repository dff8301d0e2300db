"""Author-level DP synthetic posts (DP-SGD on SmolLM2's LoRA adapter), their TSTR utility and a membership audit.

    AUTHORGUARD_DATA=../shared/data python scripts/dp_text/synthetic_posts.py prepare runs/dp-text/data
    python scripts/dp_text/synthetic_posts.py slim runs/dp-text/data runs/dp-text/carry/data   # what travels
    python scripts/dp_text/synthetic_posts.py run runs/dp-text/data --out runs/dp-text/out --epsilons 4 8 \
        --device cuda --steps 300 --authors-per-step 256 --samples 2000
    python scripts/dp_text/synthetic_posts.py evaluate runs/dp-text/out runs/dp-text/data

The blog corpus, age group: the bloggers split in two by a hash of their id (as scripts/synth/tstr.py splits them):
the first half is the private corpus, the second half's posts the real test set (TSTR: train a classifier on the
synthetic posts, test on real posts of bloggers never seen). The membership audit needs one training run:
``--targets`` bloggers of the private half, each with one post set aside that is never counted (what an attacker
holds); a seeded half of them stay in the training input ("in"), the other half are taken out whole ("out"). The
attack scores each target by how much the fine-tune lowered the loss of their set-aside post (base loss - tuned
loss); its advantage (TPR - FPR at a threshold chosen on half the targets, measured on the other half)
sits beside the bound any (ε, δ)-DP release allows, (e^ε - 1 + 2δ) / (e^ε + 1). With ~100 targets held out its
interval is about ±0.2: it tells an attack near chance from one that is not, never whether ε = 4 is tight.

``run --dry-run`` is the CPU check of every step at a tiny size (its figures say nothing about the method).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import math
import time
from pathlib import Path

import numpy as np

TASK = "age_group"
#: the task's classes: public (the corpus's documented age groups), never read from the private posts
CLASSES = ("13-17", "23-27", "33-48")


def _write(path: Path, rows: list[dict]) -> None:
    with lzma.open(path, "wt", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


def _read(path: Path) -> list[dict]:
    with lzma.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _side(author: str) -> int:
    return int(hashlib.sha256(str(author).encode()).hexdigest(), 16) % 2


def prepare(folder: Path, targets: int, test_posts: int, seed: int) -> dict:
    """Write the private corpus (``train.jsonl.xz``), the real test posts (``test.jsonl.xz``) and the membership
    targets (``targets.jsonl.xz``: each target's set-aside post and whether the target stays in)."""
    from authorguard.data.blogs import load_blogs

    corpus = load_blogs()
    labels = corpus.attributes[TASK]
    rows = [
        {"id": i, "author": a, "label": str(y), "text": t}
        for i, a, y, t in zip(corpus.ids, corpus.authors, labels, corpus.texts)
        if t.strip()
    ]
    private = [r for r in rows if _side(r["author"]) == 0]
    public = [r for r in rows if _side(r["author"]) == 1]
    rng = np.random.default_rng(seed)
    by_author: dict[str, list[dict]] = {}
    for row in private:
        by_author.setdefault(row["author"], []).append(row)
    eligible = sorted(a for a, posts in by_author.items() if len(posts) >= 2)
    chosen = rng.choice(eligible, size=min(targets, len(eligible)), replace=False)
    member = dict(zip(chosen, rng.permutation(np.arange(len(chosen)) % 2 == 0)))
    target_rows, train = [], []
    for author, posts in by_author.items():
        if author in member:
            aside = posts[int(rng.integers(len(posts)))]
            target_rows.append({"author": author, "member": bool(member[author]), "text": aside["text"]})
            if member[author]:
                train += [p for p in posts if p is not aside]
        else:
            train += posts
    test = [public[i] for i in rng.choice(len(public), size=min(test_posts, len(public)), replace=False)]
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / "train.jsonl.xz", train)
    _write(folder / "test.jsonl.xz", [{"label": r["label"], "text": r["text"]} for r in test])
    _write(folder / "targets.jsonl.xz", target_rows)
    summary = {"train_posts": len(train), "train_authors": len({r["author"] for r in train}), "test": len(test)}
    summary |= {"targets": len(target_rows), "members": int(sum(r["member"] for r in target_rows))}
    (folder / "prepared.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def slim(folder: Path, out: Path, posts_per_author: int, seed: int) -> dict:
    """A copy of FOLDER for a device call: the private corpus cut to the posts the fine-tune would count (the same
    keyed-hash choice, so the run there counts exactly these), the test posts and targets as they are."""
    import shutil

    from authorguard.privacy.author_level import chosen_documents

    train = _read(folder / "train.jsonl.xz")
    chosen = chosen_documents([r["author"] for r in train], [r["id"] for r in train], posts_per_author, seed)
    out.mkdir(parents=True, exist_ok=True)
    _write(out / "train.jsonl.xz", [train[i] for i in chosen])
    for name in ("test.jsonl.xz", "targets.jsonl.xz", "prepared.json"):
        shutil.copyfile(folder / name, out / name)
    return {"posts": len(chosen), "bytes": sum(p.stat().st_size for p in out.iterdir())}


def _target_losses(synthesiser, texts: list[str]) -> tuple[list[float], list[float]]:
    """(base, tuned) mean token loss of each text (the label line left out: the attacker holds the text only)."""
    import torch

    from authorguard.neural.dp_text.data import pad_id, padded, post_token_ids
    from authorguard.neural.dp_text.trainer import post_losses

    tokenizer, model, config = synthesiser.tokenizer_, synthesiser.model_, synthesiser.config
    ids = [post_token_ids(tokenizer, " ".join(t.split()), config.max_tokens) for t in texts]
    pad = pad_id(tokenizer)
    base, tuned = [], []
    with torch.no_grad():
        for start in range(0, len(ids), config.micro_batch):
            input_ids, mask = padded(ids[start : start + config.micro_batch], pad)
            input_ids, mask = input_ids.to(synthesiser.device), mask.to(synthesiser.device)
            tuned += post_losses(model, input_ids, mask).tolist()
            with model.disable_adapter():
                base += post_losses(model, input_ids, mask).tolist()
    return base, tuned


def run(folder: Path, out: Path, options) -> None:
    """Per ε: the fine-tune, ``--samples`` synthetic posts, the privacy report, the training log and the targets'
    losses, each under ``OUT/epsilon-E/`` (an ε already written is skipped: resumable)."""
    from authorguard.neural.dp_text.config import DPTextConfig
    from authorguard.neural.dp_text.synthesiser import AuthorLevelTextSynthesiser

    train = _read(folder / "train.jsonl.xz")
    targets = _read(folder / "targets.jsonl.xz")
    if options.dry_run:  # the first N authors, and four targets in and four out (the "in" ones trained on)
        targets = [t for t in targets if t["member"]][:4] + [t for t in targets if not t["member"]][:4]
        keep = set(sorted({r["author"] for r in train})[: options.dry_run]) | {t["author"] for t in targets}
        train = [r for r in train if r["author"] in keep]
    for epsilon in options.epsilons:
        place = out / f"epsilon-{epsilon:g}"
        if (place / "done.json").is_file():
            continue
        place.mkdir(parents=True, exist_ok=True)
        config = DPTextConfig(
            epsilon=epsilon, delta=options.delta, posts_per_author=options.posts_per_author,
            max_tokens=options.max_tokens, steps=options.steps, authors_per_step=options.authors_per_step,
            micro_batch=options.micro_batch, learning_rate=options.learning_rate, max_new_tokens=options.max_tokens,
            sample_batch=options.micro_batch,
        )  # fmt: skip
        started = time.monotonic()
        synthesiser = AuthorLevelTextSynthesiser(CLASSES, config, device=options.device, random_state=options.seed)
        synthesiser.fit([r["text"] for r in train], [r["author"] for r in train], [r["label"] for r in train],
                        ids=[r["id"] for r in train])  # fmt: skip
        trained = time.monotonic() - started
        labels, texts = synthesiser.sample(options.samples, seed=options.seed)
        sampled = time.monotonic() - started - trained
        base, tuned = _target_losses(synthesiser, [t["text"] for t in targets])
        _write(place / "synthetic.jsonl.xz", [{"label": y, "text": t} for y, t in zip(labels, texts)])
        scored = [
            {**{k: t[k] for k in ("author", "member")}, "base": b, "tuned": u} for t, b, u in zip(targets, base, tuned)
        ]
        _write(place / "membership.jsonl.xz", scored)
        log = synthesiser.log_
        report = synthesiser.privacy_report() | {"discarded_samples": synthesiser.discarded_}
        (place / "privacy.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
        curator = place / "curator"  # not covered by the guarantee: never released with the posts
        curator.mkdir(exist_ok=True)
        counts = {
            "posts_counted": len(synthesiser.examples_.token_ids),
            "posts_dropped": synthesiser.examples_.posts_dropped,
        }
        (curator / "log.json").write_text(
            json.dumps({"drawn": log.drawn, "losses": log.losses} | counts), encoding="utf-8"
        )
        done = {"train_seconds": round(trained, 1), "sample_seconds": round(sampled, 1), "samples": len(texts)}
        (place / "done.json").write_text(json.dumps(done), encoding="utf-8")
        print(json.dumps({"epsilon": epsilon, **done, "noise_multiplier": report["noise_multiplier"]}), flush=True)


def _tstr(train_texts, train_labels, test_texts, test_labels) -> dict[str, float]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    truth = np.asarray(test_labels)
    scores = {}
    for name, model in (("nb", MultinomialNB(alpha=0.01)), ("svm", LinearSVC())):
        fitted = make_pipeline(TfidfVectorizer(sublinear_tf=True, min_df=2), model).fit(train_texts, train_labels)
        scores[name] = float(np.mean(fitted.predict(test_texts) == truth))
    return scores


def _advantage(scores: np.ndarray, member: np.ndarray, seed: int) -> dict:
    """TPR - FPR at the threshold that maximises it on a seeded half of the targets, measured on the other half."""
    from authorguard.metrics.statistics import wilson_interval

    order = np.random.default_rng(seed).permutation(len(scores))
    fit, held = order[: len(order) // 2], order[len(order) // 2 :]
    if member[fit].all() or not member[fit].any() or member[held].all() or not member[held].any():
        return {"advantage": None, "why": "a half of the targets holds no member or no non-member"}
    best, threshold = -2.0, 0.0
    for candidate in np.unique(scores[fit]):
        guess = scores[fit] >= candidate
        gain = guess[member[fit]].mean() - guess[~member[fit]].mean()
        best, threshold = (gain, candidate) if gain > best else (best, threshold)
    guess = scores[held] >= threshold
    tpr, fpr = guess[member[held]].mean(), guess[~member[held]].mean()
    return {
        "advantage": float(tpr - fpr),
        "tpr": [float(tpr), *wilson_interval(float(tpr), int(member[held].sum()))],
        "fpr": [float(fpr), *wilson_interval(float(fpr), int((~member[held]).sum()))],
        "held_targets": int(len(held)),
    }


def evaluate(out: Path, folder: Path, seed: int) -> list[dict]:
    """Per ε written: TSTR (NB and SVM) on the real test posts, beside the same classifiers trained on as many real
    private posts; the membership advantage beside the DP bound."""
    train, test = _read(folder / "train.jsonl.xz"), _read(folder / "test.jsonl.xz")
    test_texts, test_labels = [r["text"] for r in test], [r["label"] for r in test]
    majority = max(np.mean(np.asarray(test_labels) == c) for c in set(test_labels))
    rows = []
    for place in sorted(out.glob("epsilon-*")):
        if not (place / "done.json").is_file():
            continue
        report = json.loads((place / "privacy.json").read_text(encoding="utf-8"))
        synthetic = _read(place / "synthetic.jsonl.xz")
        real = [train[i] for i in np.random.default_rng(seed).choice(len(train), len(synthetic), replace=False)]
        members = _read(place / "membership.jsonl.xz")
        score = np.asarray([m["base"] - m["tuned"] for m in members])
        epsilon, delta = report["epsilon"], report["delta"]
        rows.append(
            {
                "epsilon": epsilon,
                "synthetic_posts": len(synthetic),
                "tstr": _tstr([r["text"] for r in synthetic], [r["label"] for r in synthetic], test_texts, test_labels),
                "real_same_size": _tstr([r["text"] for r in real], [r["label"] for r in real], test_texts, test_labels),
                "majority": float(majority),
                "membership": _advantage(score, np.asarray([m["member"] for m in members]), seed),
                "dp_bound": (math.exp(epsilon) - 1 + 2 * delta) / (math.exp(epsilon) + 1),
                "privacy": {k: report[k] for k in ("noise_multiplier", "sample_rate", "steps", "seed")},
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("prepare")
    make.add_argument("folder", type=Path)
    make.add_argument("--targets", type=int, default=200)
    make.add_argument("--test-posts", type=int, default=5000)
    make.add_argument("--seed", type=int, default=0)
    cut = commands.add_parser("slim")
    cut.add_argument("folder", type=Path)
    cut.add_argument("out", type=Path)
    cut.add_argument("--posts-per-author", type=int, default=4)
    cut.add_argument("--seed", type=int, default=0)
    go = commands.add_parser("run")
    go.add_argument("folder", type=Path)
    go.add_argument("--out", type=Path, required=True)
    go.add_argument("--epsilons", type=float, nargs="+", default=[4.0, 8.0])
    go.add_argument("--delta", type=float, default=1e-5)
    go.add_argument("--device", default="cpu")
    go.add_argument("--steps", type=int, default=300)
    go.add_argument("--authors-per-step", type=int, default=256)
    go.add_argument("--posts-per-author", type=int, default=4)
    go.add_argument("--max-tokens", type=int, default=128)
    go.add_argument("--micro-batch", type=int, default=64)
    go.add_argument("--learning-rate", type=float, default=2e-3)
    go.add_argument("--samples", type=int, default=2000)
    go.add_argument("--seed", type=int, default=0)
    go.add_argument("--dry-run", type=int, default=0, help="only the first N private authors (a CPU check)")
    score = commands.add_parser("evaluate")
    score.add_argument("out", type=Path)
    score.add_argument("folder", type=Path)
    score.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    if options.command == "prepare":
        print(json.dumps(prepare(options.folder, options.targets, options.test_posts, options.seed)))
    elif options.command == "slim":
        print(json.dumps(slim(options.folder, options.out, options.posts_per_author, options.seed)))
    elif options.command == "run":
        run(options.folder, options.out, options)
    else:
        evaluate(options.out, options.folder, options.seed)


if __name__ == "__main__":
    main()
