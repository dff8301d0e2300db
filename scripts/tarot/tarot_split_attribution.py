"""Attribution of a whole test split as each TAROT policy's method would release it, from stored candidates.

The candidates ``scripts/tarot/tarot_validity.py --generate`` sampled for every chunk of a scenario's test posts (two
seeds, k each; judged with ``--from ... --out``) are enough to replay what ``tarot`` / ``tarot-sft`` /
``tarot-ppo`` / ``zero-shot-rewrite`` release at their defaults without generating again: per chunk, round 1 keeps
the valid candidate (gate passed, MiniLM cosine >= ``--floor``) of the lowest seed with the highest reward, round 2
(the method's one retry) does the same with the next seed's candidates, and a chunk with none keeps its text (the
counted ``keep`` fallback); the chunks are joined back into posts as the method joins them. Each policy's release
of the test split is then attacked under the **static** threat model (attackers trained on the authors' original
training posts, as in the paper's Table 2) and compared with the original text: accuracy with its standard error,
the paired difference to ``--baseline`` (SE of the per-post difference), chrF and MiniLM cosine per post, and the
share of posts left unchanged; and the scenario's utility task (BAC: the blog's topic) as the static analyst scores
it (a linear SVM trained on the original training posts, accuracy on the release). The augmented and adversarial threat
models need the training posts rewritten too,
which the stored candidates do not cover: ``--adapt`` samples them for a slice of the training posts.

What the selection could do (``--select``, ``--pool``): the same candidates ranked otherwise among the valid ones —
``overlap`` keeps the one with the lowest chrF to its input (the most changed: a reward term against lexical
overlap), ``attacker`` the one a *proxy* attacker finds least like its author (the margin of the true author's
score over the best other author's, under a character n-gram SVM the data owner trains on their own originals —
the attacker in the loop). The proxy is trained on one half of each author's training posts and every attacker
measured on the other half, so the selection is not made against the attackers that judge it. ``--pool`` adds a
release choosing among every policy's candidates of a chunk at once (k × policies a round: what more, and more
varied, sampling would give).

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/tarot/tarot_split_attribution.py runs/tarot-gpu/judged-*.jsonl.gz
            [--scenario BAC-10] [--attackers char-ngrams,function-words,writeprints-text] [--baseline sft]
            [--floor 0.5] [--select reward,overlap,attacker] [--pool] [--policies dpo] [--out per-post.jsonl.gz]
            [--adapt 30 --adapt-file rewritten-train.jsonl.gz]

``--adapt N`` measures the two threat models the stored candidates cannot: the first policy's method rewrites N
training posts per author (at its defaults; on a CPU ~10 s a post), and attackers trained on their originals
(static), originals and rewrites (augmented) and rewrites (adversarial) attack that policy's release.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from tarot_validity import _open_out, _open_text, method_rounds, scenario_split


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("judged", nargs="+", help="Judged candidate files (tarot_validity.py --from ... --out).")
    parser.add_argument("--scenario", default="BAC-10")
    parser.add_argument("--attackers", default="char-ngrams,function-words,writeprints-text")
    parser.add_argument("--baseline", default="sft", help="The policy each paired difference is taken against.")
    parser.add_argument("--floor", type=float, default=0.5)
    parser.add_argument(
        "--select",
        default="reward",
        help="Comma-separated rankings of the valid candidates: reward "
        "(the method's), overlap (lowest chrF to the input), attacker (lowest proxy margin; trains every "
        "attacker on the other half of the training posts).",
    )
    parser.add_argument(
        "--pool", action="store_true", help="Add a release that chooses among all policies' candidates."
    )
    parser.add_argument("--policies", help="Comma-separated policies to replay (default: all in the files).")
    parser.add_argument(
        "--adapt",
        type=int,
        metavar="N",
        help="Also the augmented and adversarial threat models for the "
        "first of --policies: its method rewrites N training posts per author at its defaults (slow on "
        "a CPU), attackers trained on them; beside, the static attacker trained on the same N originals.",
    )
    parser.add_argument(
        "--adapt-file",
        help="JSONL (.gz allowed) of --adapt's rewritten training posts: read when it exists, written otherwise.",
    )
    parser.add_argument(
        "--out", help="JSONL (.gz allowed): per post and policy, the release and what each attacker said."
    )
    args = parser.parse_args()
    selections = args.select.split(",")
    unknown = set(selections) - set(SELECTIONS)
    if unknown:
        parser.error(f"unknown --select {', '.join(sorted(unknown))}; known: {', '.join(SELECTIONS)}")
    if args.adapt and "reward" not in selections:
        parser.error("--adapt attacks the method's own release: keep reward in --select")

    from authorguard import registry
    from authorguard.data.release import Release
    from authorguard.generation.reference_lm import load_reference_tokenizer
    from authorguard.metrics.content import content_metrics
    from authorguard.neural.tarot.config import PolicyConfig
    from authorguard.neural.tarot.prompts import chunk_documents, reassemble

    scenario, corpus, train, test = scenario_split(parser, args.scenario)
    posts = [corpus.texts[i] for i in test]
    tokenizer = load_reference_tokenizer()
    count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
    chunks = chunk_documents(posts, count, PolicyConfig().max_chunk_tokens)

    rows = [json.loads(line) for path in args.judged for line in _open_text(path)]
    stored = list(dict.fromkeys(r["policy"] for r in rows))
    policies = args.policies.split(",") if args.policies else list(stored)
    if set(policies) - set(stored):
        parser.error(
            f"--policies: {', '.join(sorted(set(policies) - set(stored)))} not in the files ({', '.join(stored)})"
        )

    authors = np.array(corpus.authors)
    training_posts = list(train)  # before any halving: --adapt draws from all of them
    if "attacker" in selections:
        proxy_half, train = halves(train, authors)
        proxy = registry.attackers.get("char-ngrams")(random_state=0).fit(
            Release.from_texts([corpus.texts[i] for i in proxy_half]), authors[proxy_half]
        )
        score_margins(rows, proxy, [authors[test][c.document] for c in chunks], args.floor)
        print(
            f"proxy char-ngrams fitted on {len(proxy_half)} training posts; the attackers on the other {len(train)}",
            flush=True,
        )
    if args.pool:
        rows += pooled(rows, stored)
        policies.append("pooled")
    keys = {"reward": None, "overlap": lambda c: -chrf_of(c), "attacker": lambda c: -c["margin"]}
    released = {"original": posts}
    counts = {}
    for policy in policies:
        for selection in selections:
            name = policy if selection == "reward" else f"{policy} [{selection}]"
            texts, fell, second = replay(rows, policy, [c.text for c in chunks], args.floor, keys[selection])
            released[name] = reassemble(chunks, texts, len(posts))
            counts[name] = (fell, second)

    names = args.attackers.split(",")
    if args.adapt:
        print_adapted(corpus, training_posts, test, released, policies[0], names, args.adapt, args.adapt_file)
    train_release = Release.from_texts([corpus.texts[i] for i in train])
    correct = {}
    for name in names:
        attacker = registry.attackers.get(name)(random_state=0).fit(train_release, authors[train])
        for policy, texts in released.items():
            predicted = attacker.predict(Release.from_texts(texts))
            correct[name, policy] = predicted == authors[test]
        print(
            f"{name}: fitted on {len(train)} original training posts, attributed {len(released)} releases", flush=True
        )

    labels = np.array(corpus.labels, dtype=object) if corpus.labels is not None else None
    utility = {}
    for task_name in scenario.tasks if labels is not None else ():
        task = registry.tasks.get(task_name)(classifier="svm", random_state=0)
        for policy, texts in released.items():
            utility[task_name, policy] = task.evaluate(
                train_release, labels[train], Release.from_texts(texts), labels[test]
            )["accuracy"]
    tasks = sorted({t for t, _ in utility})
    content = {p: content_metrics(posts, t)["per_document"] for p, t in released.items() if p != "original"}
    n = len(posts)
    print(
        f"\n{args.scenario}: {n} test posts, {len(chunks)} chunks, {len(set(authors[test]))} authors; static threat "
        f"model; accuracy % ± SE; Δ vs {args.baseline}: paired, ± SE of the per-post difference\n"
    )
    print(
        "| release | "
        + " | ".join(f"{a} | Δ vs {args.baseline}" for a in names)
        + "".join(f" | {t} (utility)" for t in tasks)
        + " | chrF | MiniLM cos | posts unchanged | chunks kept as written (round 2 gave) |"
    )
    print("|---|" + "---|---|" * len(names) + "---|" * len(tasks) + "---|---|---|---|")
    for policy in released:
        cells = []
        for a in names:
            hits = correct[a, policy].astype(float)
            cells.append(f"{100 * hits.mean():.1f} ± {100 * hits.std(ddof=1) / np.sqrt(n):.1f}")
            if (a, args.baseline) in correct and policy != args.baseline:
                diff = hits - correct[a, args.baseline]
                cells.append(f"{100 * diff.mean():+.1f} ± {100 * diff.std(ddof=1) / np.sqrt(n):.1f}")
            else:
                cells.append("")
        cells += [f"{100 * utility[t, policy]:.1f}" for t in tasks]
        if policy == "original":
            tail = "1.00 | 1.00 | 1.000 | –"
        else:
            metric = content[policy]
            fell, second = counts[policy]
            tail = (
                f"{np.mean(metric['chrf']):.2f} | {np.mean(metric.get('embedding_cosine', [np.nan])):.2f} | "
                f"{np.mean(metric['unchanged']):.3f} | {fell / len(chunks):.3f} ({second / len(chunks):.3f})"
            )
        print(f"| {policy} | " + " | ".join(cells) + f" | {tail} |")
    if args.out:
        with _open_out(args.out) as out:
            for policy, texts in released.items():
                for j, text in enumerate(texts):
                    out.write(
                        json.dumps(
                            {
                                "policy": policy,
                                "post": j,
                                "author": str(authors[test][j]),
                                "text": text,
                                **{a: bool(correct[a, policy][j]) for a in names},
                            },
                            ensure_ascii=False,
                        )
                        + "\n"
                    )


SELECTIONS = ("reward", "overlap", "attacker")
METHODS = {"zero-shot": "zero-shot-rewrite", "sft": "tarot-sft", "dpo": "tarot", "ppo": "tarot-ppo"}


def print_adapted(
    corpus, train: list, test: list, released: dict, policy: str, attackers: list, per_author: int, path: str | None
) -> None:
    """The threat models that need rewritten training posts, for ``policy``'s release of the test posts: ``policy``'s
    method (:data:`METHODS`, defaults, seed 0) rewrites ``per_author`` training posts of each author (drawn with
    seed 0; stored in / read from ``path``), and each attacker is trained on the originals of those posts
    (static), on the originals and rewrites (augmented) and on the rewrites (adversarial); accuracy ± SE on the
    original test posts and on the release, with the paired difference to the static attacker."""
    import os
    import time

    from authorguard import registry
    from authorguard.data.release import Release

    authors = np.array(corpus.authors)
    chosen = sorted(i for mine in shuffled_by_author(train, authors).values() for i in mine[:per_author])
    originals = [corpus.texts[i] for i in chosen]
    if path and os.path.exists(path):
        stored = {r["index"]: r["text"] for r in map(json.loads, _open_text(path))}
        if sorted(stored) != chosen:
            raise SystemExit(
                f"{path}: holds other training posts than --adapt {per_author} draws; remove it or pass another file"
            )
        rewrites = [stored[i] for i in chosen]
    else:
        method = registry.methods.get(METHODS[policy])(random_state=0).fit()
        start = time.perf_counter()
        rewrites = method.obfuscate(originals)
        report = method.release_report()
        print(
            f"{METHODS[policy]} rewrote {len(chosen)} training posts in {time.perf_counter() - start:.0f} s: "
            f"{json.dumps({k: v for k, v in report.items() if k != 'flagged_records'})}",
            flush=True,
        )
        if path:
            with _open_out(path) as out:
                for i, text in zip(chosen, rewrites):
                    out.write(
                        json.dumps({"index": i, "author": str(authors[i]), "text": text}, ensure_ascii=False) + "\n"
                    )
    truth = authors[test]
    train_sets = {
        "static": (originals, authors[chosen]),
        "augmented": (originals + rewrites, np.concatenate([authors[chosen], authors[chosen]])),
        "adversarial": (rewrites, authors[chosen]),
    }
    n = len(test)
    print(
        f"\n{policy}: attackers trained on {per_author} training posts per author ({len(chosen)}); accuracy % ± SE on "
        f"the {n} test posts; Δ = paired difference to static on the same test texts\n"
    )
    print("| attacker | threat model | original test posts | release | Δ vs static (release) |\n|---|---|---|---|---|")
    for name in attackers:
        static_hits = None
        for model, (texts, labels) in train_sets.items():
            attacker = registry.attackers.get(name)(random_state=0).fit(Release.from_texts(texts), labels)
            hits = {
                k: (attacker.predict(Release.from_texts(released[k])) == truth).astype(float)
                for k in ("original", policy)
            }
            static_hits = hits[policy] if static_hits is None else static_hits
            diff = hits[policy] - static_hits
            delta = "" if model == "static" else f"{100 * diff.mean():+.1f} ± {100 * diff.std(ddof=1) / np.sqrt(n):.1f}"
            cells = " | ".join(f"{100 * h.mean():.1f} ± {100 * h.std(ddof=1) / np.sqrt(n):.1f}" for h in hits.values())
            print(f"| {name} | {model} | {cells} | {delta} |", flush=True)


def replay(rows: list, policy: str, chunks: list, floor: float, key=None) -> tuple[list, int, int]:
    """(the text the method keeps per chunk, chunks that fell back, chunks round 2 gave a rewrite for) for
    ``policy``'s stored candidates (:func:`method_rounds`, ranked by ``key``); the stored originals must be
    ``chunks`` in order (a one-line error otherwise)."""
    stored = {r["chunk"]: r["original"] for r in rows if r["policy"] == policy}
    if stored != dict(enumerate(chunks)):
        raise SystemExit(f"{policy}: the stored chunks are not this split's chunks in order")
    _, _, kept = method_rounds(rows, policy, floor, key)
    texts = [chunk if kept[i][1] is None else kept[i][1]["rewrite"] for i, chunk in enumerate(chunks)]
    return texts, sum(best is None for _, best in kept.values()), sum(round_ == 2 for round_, _ in kept.values())


def pooled(rows: list, policies: list) -> list:
    """Every policy's candidates as one policy's ("pooled"): per chunk and seed, k × len(policies) candidates,
    numbered policy by policy."""
    k = 1 + max(r["candidate"] for r in rows)
    return [{**r, "policy": "pooled", "candidate": policies.index(r["policy"]) * k + r["candidate"]} for r in rows]


def shuffled_by_author(train: list, authors: np.ndarray) -> dict:
    """{author: their ``train`` indices in an order drawn with seed 0} (one generator, authors in sorted order):
    the draw both :func:`halves` and ``--adapt`` take their posts from."""
    rng = np.random.default_rng(0)
    return {
        a: [int(i) for i in rng.permutation([j for j in train if authors[j] == a])] for a in sorted(set(authors[train]))
    }


def halves(train: list, authors: np.ndarray) -> tuple[list, list]:
    """``train`` (indices) split in two halves within each author (:func:`shuffled_by_author`); each author's odd
    post goes to the second half."""
    orders = shuffled_by_author(train, authors).values()
    return (
        sorted(i for mine in orders for i in mine[: len(mine) // 2]),
        sorted(i for mine in orders for i in mine[len(mine) // 2 :]),
    )


def score_margins(rows: list, proxy, chunk_authors: list, floor: float) -> None:
    """Store in each valid candidate (gate passed, utility >= ``floor``) the proxy attacker's ``margin``: the
    decision score of its chunk's true author minus the best other author's (< 0: the proxy attributes it to
    someone else). Only the candidates the selection can keep are scored."""
    valid = [r for r in rows if r["problem"] is None and r["utility"] >= floor]
    scores = proxy.model_.decision_function([r["rewrite"] for r in valid])  # (n_valid, n_authors)
    classes = list(proxy.model_.classes_)
    for r, row_scores in zip(valid, scores):
        true = classes.index(chunk_authors[r["chunk"]])
        r["margin"] = float(row_scores[true] - np.max(np.delete(row_scores, true)))


def chrf_of(candidate: dict) -> float:
    """chrF (0–100) of a candidate to its input, computed once per row."""
    if "chrf" not in candidate:
        import sacrebleu

        candidate["chrf"] = sacrebleu.sentence_chrf(candidate["rewrite"], [candidate["original"]]).score
    return candidate["chrf"]


if __name__ == "__main__":
    main()
