"""Measure the writer's check on held-out authors of the staged corpora (docs/results/check.md).

python scripts/check/measure.py genre
    held-out accuracy of the genre rule (fitted as the check fits it, tested on other documents)
python scripts/check/measure.py accuracy --genre blog --writers 30 --sizes 10,100 -o runs/check/blog.jsonl
    for each writer drawn from the genre's pool (and left out of the background): the check of a later piece of
    their writing against their first --known-words words; one row per attacker x size x threat model (x rewrite
    method with --rewrite), and the benchmark's character n-gram attacker on the same candidates trained on whole
    documents as the experiment harness trains it
python scripts/check/measure.py summary runs/check/*.jsonl
    top-1 / top-5 rates, calibration error, the benchmark attacker beside the check, after each rewrite
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from authorguard.check import CheckConfig, prepare
from authorguard.check.background import GENRES, fit_genre_classifier, genre_training_documents, load_background
from authorguard.check.calibration import calibration_error
from authorguard.check.config import WRITER
from authorguard.check.texts import cut_pieces, word_count
from authorguard.exceptions import InputError


def genre(args) -> None:
    rng = np.random.default_rng(0)
    train = genre_training_documents(np.random.default_rng(0))  # exactly what genre_of is fitted on
    seen = set(train[0])
    model = fit_genre_classifier(*train)
    texts, truth = [], []
    for name in GENRES:
        documents = [
            d for docs in load_background(name).authors.values() for d in docs if word_count(d) >= 50 and d not in seen
        ]
        for i in rng.choice(len(documents), min(args.per_genre, len(documents)), replace=False):
            texts.append(documents[i])
            truth.append(name)
    predicted = model.predict(texts)
    truth = np.asarray(truth)
    print(
        f"genre rule: {np.mean(predicted == truth):.3f} accuracy on {len(truth)} held-out documents "
        f"({args.per_genre} per genre, >= 50 words)"
    )
    for name in GENRES:
        row = predicted[truth == name]
        print(f"  {name:<6} " + "  ".join(f"{other} {np.mean(row == other):.2f}" for other in GENRES))


def _benchmark_rank(candidates, background, known, known_words, text, seed) -> int:
    """The experiment harness's char-ngrams attacker (1-4-grams, SVM) on whole documents: the writer's known
    documents, each background candidate's documents up to as many words; the writer's rank for ``text``."""
    from authorguard.attacks.base import make_attacker
    from authorguard.data.release import Release

    texts, labels = list(known), [WRITER] * len(known)
    for name in candidates.names[1:]:
        total = 0
        for document in background.authors[name]:
            if total >= known_words:
                break
            texts.append(document)
            labels.append(name)
            total += word_count(document)
    attacker = make_attacker("char-ngrams", "svm", seed).fit(Release.texts_only(texts), labels)
    scores = attacker.scores(Release.texts_only([text]))[0]
    order = [list(attacker.classes_).index(n) for n in candidates.names]
    row = scores[order]
    return 1 + int((np.delete(row, 0) > row[0]).sum())


def _split_writing(documents: list, known_words: int, text_words: int):
    """(known documents, their words, the text): the writer's first documents up to ``known_words`` words, and
    the first ``text_words`` words of the documents after them; None when nothing is left after them."""
    known, words = [], 0
    for document in documents:
        if words >= known_words:
            break
        known.append(document)
        words += word_count(document)
    rest = cut_pieces(documents[len(known) :], text_words)
    if not rest or word_count(rest[0]) < text_words // 2:
        return None
    return known, words, rest[0]


def accuracy(args) -> None:
    pool = load_background(args.genre)
    need = args.known_words + args.text_words
    eligible = sorted(a for a, docs in pool.authors.items() if sum(word_count(d) for d in docs) >= need + 50)
    rng = np.random.default_rng(args.seed)
    writers = []
    for i in rng.permutation(len(eligible)):  # a writer needs a later text beside the known documents
        if len(writers) == args.writers:
            break
        if _split_writing(pool.authors[eligible[i]], args.known_words, args.text_words) is not None:
            writers.append(eligible[i])
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.is_file():
        done = {json.loads(line)["writer"] for line in out.read_text().splitlines() if line.strip()}
    sizes = tuple(int(s) for s in args.sizes.split(","))
    attackers = tuple(args.attackers.split(","))
    print(f"{args.genre}: {len(eligible)} authors with >= {need} words; {len(writers)} writers, {len(done)} done")
    for index, writer in enumerate(writers):
        if writer in done:
            continue
        documents, words, text = _split_writing(pool.authors[writer], args.known_words, args.text_words)
        background = pool.without([writer])
        config = CheckConfig(sizes=sizes, attackers=attackers, seed=index)
        start = time.perf_counter()
        try:
            session = prepare(text, documents, background=background, config=config)
            for method in args.rewrite:
                session.rewrite(method)
            result = session.result
        except InputError as error:  # e.g. a sender whose every known message contains the text (cross-posts)
            print(f"  writer {index + 1}/{len(writers)} {writer}: skipped — {error}", flush=True)
            continue
        seconds = time.perf_counter() - start
        benchmark = {
            len(c.names): _benchmark_rank(c, background, documents, words, text, index)
            for c in session.sets
            if len(c.names) <= args.benchmark_largest
        }
        rows = []
        base = {
            "genre": args.genre,
            "writer": writer,
            "known_words": words,
            "text_words": word_count(text),
            "seconds": round(seconds, 1),
        }
        for r in result.rankings:
            rows.append({**base, "method": "original", **r.__dict__})
        for size, rank in benchmark.items():
            rows.append(
                {
                    **base,
                    "method": "original",
                    "attacker": "benchmark char-ngrams (documents)",
                    "candidates": size,
                    "rank": rank,
                    "threat_model": "static",
                }
            )
        for rewrite in result.rewrites:
            for r in rewrite.rankings:
                rows.append(
                    {
                        **base,
                        "method": rewrite.method,
                        "status": rewrite.status,
                        "meaning": rewrite.meaning,
                        **r.__dict__,
                    }
                )
        with out.open("a") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        picked = sum(r.rank == 1 for r in result.rankings)
        print(
            f"  writer {index + 1}/{len(writers)} {writer}: {picked}/{len(result.rankings)} attacks rank first, "
            f"benchmark ranks {benchmark}, {seconds:.0f} s",
            flush=True,
        )


def _wilson(k: int, n: int) -> str:
    if n == 0:
        return "n/a"
    p, z = k / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{p:.2f} [{max(0, centre - half):.2f}, {min(1, centre + half):.2f}]"


def _sampling_ece(confidence: list, draws: int = 2000) -> float:
    """The ECE a perfectly calibrated predictor shows on this many texts at these confidences (outcomes drawn
    from them): what sampling alone adds to a small set's ECE."""
    rng = np.random.default_rng(0)
    confidence = np.asarray(confidence)
    return float(
        np.mean([calibration_error(confidence, rng.random(len(confidence)) < confidence) for _ in range(draws)])
    )


def summary(args) -> None:
    rows = [json.loads(line) for path in args.files for line in Path(path).read_text().splitlines() if line.strip()]
    groups = defaultdict(list)
    for row in rows:
        groups[(row["genre"], row["method"], row["threat_model"], row["candidates"], row["attacker"])].append(row)
    print(
        "| genre | method | threat model | candidates | attacker | writers | top-1 (95 % CI) | top-5 | "
        "mean p(writer) | ECE over the writers' texts | ECE over the checks' held-out texts (pooled) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(groups, key=lambda k: (k[0], k[1] != "original", k[1], k[2], k[3], k[4])):
        members = groups[key]
        first = sum(r["rank"] == 1 for r in members)
        top5 = np.mean([r["rank"] <= 5 for r in members])
        if "probability" in members[0]:
            mean_p = f"{np.mean([r['probability'] for r in members]):.2f}"
            ece = f"{calibration_error([r['top_probability'] for r in members], [r['rank'] == 1 for r in members]):.3f}"
            pairs = [p for r in members for p in r.get("calibration_pairs") or []]
            held = (
                f"{calibration_error([p[0] for p in pairs], [p[1] for p in pairs]):.3f} ({len(pairs)} texts)"
                if pairs
                else "—"
            )
        else:
            mean_p = ece = held = "—"
        print(
            f"| {' | '.join(str(k) for k in key)} | {len(members)} | {_wilson(first, len(members))} | {top5:.2f} | "
            f"{mean_p} | {ece} | {held} |"
        )
    print(
        "\n| attacker | candidate sets (all genres, sizes; original texts) | ECE over the writers' texts | "
        "the same if perfectly calibrated (sampling alone) | ECE over the held-out texts (pooled) |"
    )
    print("|---|---|---|---|---|")
    by_attacker = defaultdict(list)
    for row in rows:
        if row["method"] == "original" and "top_probability" in row:
            by_attacker[row["attacker"]].append(row)
    for name, members in sorted(by_attacker.items()):
        pooled = calibration_error([r["top_probability"] for r in members], [r["rank"] == 1 for r in members])
        pairs = [p for r in members for p in r.get("calibration_pairs") or []]
        held = calibration_error([p[0] for p in pairs], [p[1] for p in pairs]) if pairs else float("nan")
        chance = _sampling_ece([r["top_probability"] for r in members])
        print(f"| {name} | {len(members)} | {pooled:.3f} | {chance:.3f} | {held:.3f} ({len(pairs)} texts) |")
    # the check's verdict: any of its attackers ranks the writer first, per writer and size
    verdict = defaultdict(lambda: defaultdict(bool))
    bench = {}
    for row in rows:
        if row["method"] != "original":
            continue
        key = (row["genre"], row["candidates"])
        if row["attacker"].startswith("benchmark"):
            bench[(key, row["writer"])] = row["rank"] == 1
        else:
            verdict[key][row["writer"]] |= row["rank"] == 1
    print(
        "\n| genre | candidates | writers | the check says 'ranked first' | benchmark char-ngrams top-1 | difference |"
    )
    print("|---|---|---|---|---|---|")
    for key in sorted(verdict):
        writers = sorted(verdict[key])
        mine = np.mean([verdict[key][w] for w in writers])
        theirs = np.mean([bench.get((key, w), False) for w in writers])
        print(f"| {key[0]} | {key[1]} | {len(writers)} | {mine:.2f} | {theirs:.2f} | {mine - theirs:+.2f} |")
    seconds = {}
    for row in rows:
        seconds[(row["genre"], row["writer"])] = row["seconds"]
    print(f"\nmean seconds a check: {np.mean(list(seconds.values())):.1f} over {len(seconds)} checks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("genre")
    g.add_argument("--per-genre", type=int, default=300)
    a = sub.add_parser("accuracy")
    a.add_argument("--genre", choices=list(GENRES), required=True)
    a.add_argument("--writers", type=int, default=30)
    a.add_argument("--known-words", type=int, default=2500)
    a.add_argument("--text-words", type=int, default=250)
    a.add_argument("--sizes", default="10,100")
    a.add_argument("--attackers", default="char-ngrams,function-words,writeprints-text")
    a.add_argument("--rewrite", action="append", default=[])
    a.add_argument("--seed", type=int, default=0)
    a.add_argument(
        "--benchmark-largest",
        type=int,
        default=100,
        help="The benchmark attacker (whole documents) only at sizes up to this (at 1,000 it takes minutes).",
    )
    a.add_argument("-o", "--output", required=True)
    s = sub.add_parser("summary")
    s.add_argument("files", nargs="+")
    args = parser.parse_args()
    {"genre": genre, "accuracy": accuracy, "summary": summary}[args.command](args)


if __name__ == "__main__":
    main()
