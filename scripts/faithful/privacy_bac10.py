"""Privacy of the faithful methods at a test set that separates them (issue 65): BAC-10, 80 train posts an author,
500 test posts, each post's first ``--words`` words; an independent attacker — tf-idf character 2-4-grams
(sublinear, min_df 2, case kept) and word 1-2-grams, each with a LinearSVC, the better of the two reported — trained
on the original posts (static) and retrained on each view's own training posts (adversarial).

    python scripts/faithful/privacy_bac10.py -o runs/privacy-bac10 [--methods original,normalise,view:roles,bottleneck]
    python scripts/faithful/privacy_bac10.py -o runs/generalise-bac10 --test-posts 0 --words 300 \
        --methods "original,normalise,generalise@level=names,generalise@level=rare-2000"

A method may carry its parameters after ``@`` (``key=value`` pairs separated by ``;``); ``--test-posts 0`` takes
every test post of the split (2,350).

Rewrites are cached per method in the output folder (``<method>.jsonl``, appended in batches: a killed run resumes
where it stopped); ``results.json`` holds every accuracy with its standard error and 95 % Wilson interval, and the
paired differences to the original (McNemar's exact test on the same test posts).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np


def _sample(words: int, train_per_author: int, test_posts: int, seed: int):
    from authorguard import registry
    from authorguard.data.splits import SCENARIOS

    corpus = SCENARIOS["BAC-10"].selection.select(registry.datasets.get("blogs")())
    rng = np.random.default_rng(seed)
    authors = np.array(corpus.authors)
    splits = np.array(corpus.splits)
    train: list[int] = []
    for author in sorted(set(authors)):
        pool = np.flatnonzero((authors == author) & (splits == "train"))
        train.extend(sorted(rng.choice(pool, min(train_per_author, len(pool)), replace=False).tolist()))
    pool = np.flatnonzero(splits == "test")
    test = sorted(rng.choice(pool, test_posts, replace=False).tolist()) if 0 < test_posts < len(pool) else pool.tolist()

    def cut(i: int) -> str:
        return " ".join(corpus.texts[i].split()[:words])

    return (
        [cut(i) for i in train],
        [str(authors[i]) for i in train],
        [cut(i) for i in test],
        [str(authors[i]) for i in test],
    )


def _rewrite(method: str, texts: list[str], cache: Path, batch: int) -> list[str]:
    """``texts`` through ``method`` (seed 0), cached in ``cache`` (one JSON line per text, appended per batch)."""
    if method == "original":
        return list(texts)
    name, _, spec = method.partition("@")  # "generalise@level=rare-2000": a method with its parameters
    params = dict(part.split("=", 1) for part in spec.split(";") if part) if spec else None
    done = (
        [json.loads(line)["text"] for line in cache.read_text(encoding="utf-8").splitlines()] if cache.exists() else []
    )
    if len(done) < len(texts):
        import authorguard

        start = time.time()
        for begin in range(len(done), len(texts), batch):
            part = texts[begin : begin + batch]
            released = authorguard.obfuscate(part, method=name, seed=begin, params=params, fidelity=False)
            with cache.open("a", encoding="utf-8") as handle:
                handle.writelines(json.dumps({"text": r.text, "status": r.status}) + "\n" for r in released)
            done.extend(r.text for r in released)
            words = sum(len(t.split()) for t in done[len(done) - len(part) :])
            print(f"{method}: {len(done)}/{len(texts)} ({words / (time.time() - start):.0f} words/s)", flush=True)
            start = time.time()
    return done[: len(texts)]


def _attack(train_texts, train_authors, test_texts, test_authors) -> dict:
    """Per attacker, the per-post correctness (bool array) on ``test_texts``."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    out = {}
    for name, vectorizer in (
        (
            "char 2-4",
            TfidfVectorizer(analyzer="char", ngram_range=(2, 4), sublinear_tf=True, min_df=2, lowercase=False),
        ),
        ("word 1-2", TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True, min_df=2)),
    ):
        model = make_pipeline(vectorizer, LinearSVC(C=1.0)).fit(train_texts, train_authors)
        out[name] = np.asarray(model.predict(test_texts)) == np.asarray(test_authors)
    return out


def _mcnemar(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided exact McNemar p-value for paired correctness arrays."""
    from scipy.stats import binomtest

    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    return 1.0 if only_a + only_b == 0 else float(binomtest(only_a, only_a + only_b, 0.5).pvalue)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--methods", default="original,normalise,view:roles,bottleneck")
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--train-per-author", type=int, default=80)
    parser.add_argument("--test-posts", type=int, default=500)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from authorguard.metrics.statistics import wilson_interval

    args.output.mkdir(parents=True, exist_ok=True)
    train, train_y, test, test_y = _sample(args.words, args.train_per_author, args.test_posts, args.seed)
    print(f"BAC-10: {len(train)} train posts, {len(test)} test posts, first {args.words} words each", flush=True)
    static_models = None
    results: dict = {"scale": vars(args) | {"output": str(args.output)}, "methods": {}}
    correct: dict = {}
    for method in args.methods.split(","):
        safe = method.replace(":", "-").replace("@", "-").replace("=", "-").replace(";", "-")
        test_view = _rewrite(method, test, args.output / f"{safe}-test.jsonl", args.batch)
        train_view = _rewrite(method, train, args.output / f"{safe}-train.jsonl", args.batch)
        if static_models is None:
            static_models = (train, train_y)
        row = {}
        for threat, (fit_texts, fit_y) in (("static", static_models), ("adversarial", (train_view, train_y))):
            for attacker, hits in _attack(fit_texts, fit_y, test_view, test_y).items():
                accuracy = float(hits.mean())
                low, high = wilson_interval(accuracy, len(hits))
                row[f"{attacker} {threat}"] = {
                    "accuracy": round(accuracy, 4),
                    "se": round(math.sqrt(accuracy * (1 - accuracy) / len(hits)), 4),
                    "ci95": [round(low, 4), round(high, 4)],
                }
                correct[(method, attacker, threat)] = hits
        worst = max(row, key=lambda k: row[k]["accuracy"])
        row["worst"] = {"attack": worst, **row[worst]}
        if method != "original":
            attacker, threat = worst.rsplit(" ", 1)
            base = correct.get(("original", attacker, "static"))
            if base is not None:
                row["worst"]["mcnemar_p_vs_original"] = round(_mcnemar(correct[(method, attacker, threat)], base), 4)
        results["methods"][method] = row
        print(method, json.dumps(row["worst"]), flush=True)
        (args.output / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
