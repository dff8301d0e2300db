"""Attribution of a whole test split as each TAROT policy's method would release it, from stored candidates.

The candidates ``scripts/tarot_validity.py --generate`` sampled for every chunk of a scenario's test posts (two
seeds, k each; judged with ``--from ... --out``) are enough to replay what ``tarot`` / ``tarot-sft`` /
``tarot-ppo`` / ``zero-shot-rewrite`` release at their defaults without generating again: per chunk, round 1 keeps
the valid candidate (gate passed, MiniLM cosine >= ``--floor``) of the lowest seed with the highest reward, round 2
(the method's one retry) does the same with the next seed's candidates, and a chunk with none keeps its text (the
counted ``keep`` fallback); the chunks are joined back into posts as the method joins them. Each policy's release
of the test split is then attacked under the **static** threat model (attackers trained on the authors' original
training posts, as in the paper's Table 2) and compared with the original text: accuracy with its standard error,
the paired difference to ``--baseline`` (SE of the per-post difference), chrF and MiniLM cosine per post, and the
share of posts left unchanged; and the scenario's utility task (BAC: the blog's topic) as the static analyst scores
it (a linear SVM trained on the original training posts, accuracy on the release). The augmented and adversarial threat models need the training posts rewritten too,
which the stored candidates do not cover: they are not measured here.

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/tarot_split_attribution.py runs/tarot-gpu/judged-*.jsonl.gz
            [--scenario BAC-10] [--attackers char-ngrams,function-words,writeprints-text] [--baseline sft]
            [--floor 0.5] [--out per-post.jsonl.gz]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from tarot_validity import _open_out, _open_text, method_rounds  # noqa: E402  (the selection the tables use)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("judged", nargs="+", help="Judged candidate files (tarot_validity.py --from ... --out).")
    parser.add_argument("--scenario", default="BAC-10")
    parser.add_argument("--attackers", default="char-ngrams,function-words,writeprints-text")
    parser.add_argument("--baseline", default="sft", help="The policy each paired difference is taken against.")
    parser.add_argument("--floor", type=float, default=0.5)
    parser.add_argument("--out", help="JSONL (.gz allowed): per post and policy, the release and what each attacker said.")
    args = parser.parse_args()

    from authorguard import registry
    from authorguard.data import load_dataset
    from authorguard.data.release import Release
    from authorguard.experiments.splits import SCENARIOS
    from authorguard.metrics.content import content_metrics
    from authorguard.neural.reference_lm import load_reference_tokenizer
    from authorguard.neural.tarot.config import PolicyConfig
    from authorguard.neural.tarot.prompts import chunk_documents, reassemble

    if args.scenario not in SCENARIOS:
        parser.error(f"unknown scenario {args.scenario!r}; known: {', '.join(sorted(SCENARIOS))}")
    scenario = SCENARIOS[args.scenario].with_seed(0)
    corpus = scenario.selection.select(load_dataset(scenario.dataset))
    train = [i for i, s in enumerate(corpus.splits) if s == "train"]
    test = [i for i, s in enumerate(corpus.splits) if s == "test" and corpus.texts[i].strip()]
    posts = [corpus.texts[i] for i in test]
    tokenizer = load_reference_tokenizer()
    count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
    chunks = chunk_documents(posts, count, PolicyConfig().max_chunk_tokens)

    rows = [json.loads(line) for path in args.judged for line in _open_text(path)]
    released = {"original": posts}
    counts = {}
    for policy in dict.fromkeys(r["policy"] for r in rows):
        texts, fell, second = replay(rows, policy, [c.text for c in chunks], args.floor)
        released[policy] = reassemble(chunks, texts, len(posts))
        counts[policy] = (fell, second)

    authors = np.array(corpus.authors)
    train_release = Release.from_texts([corpus.texts[i] for i in train])
    names = args.attackers.split(",")
    correct = {}
    for name in names:
        attacker = registry.attackers.get(name)(random_state=0).fit(train_release, authors[train])
        for policy, texts in released.items():
            predicted = attacker.predict(Release.from_texts(texts))
            correct[name, policy] = predicted == authors[test]
        print(f"{name}: fitted on {len(train)} original training posts, attributed {len(released)} releases", flush=True)

    labels = np.array(corpus.labels, dtype=object) if corpus.labels is not None else None
    utility = {}
    for task_name in scenario.tasks if labels is not None else ():
        task = registry.tasks.get(task_name)(classifier="svm", random_state=0)
        for policy, texts in released.items():
            utility[task_name, policy] = task.evaluate(train_release, labels[train], Release.from_texts(texts),
                                                       labels[test])["accuracy"]
    tasks = sorted({t for t, _ in utility})
    content = {p: content_metrics(posts, t)["per_document"] for p, t in released.items() if p != "original"}
    n = len(posts)
    print(f"\n{args.scenario}: {n} test posts, {len(chunks)} chunks, {len(set(authors[test]))} authors; static threat "
          f"model; accuracy % ± SE; Δ vs {args.baseline}: paired, ± SE of the per-post difference\n")
    print("| release | " + " | ".join(f"{a} | Δ vs {args.baseline}" for a in names) + "".join(f" | {t} (utility)" for t in tasks) +
          " | chrF | MiniLM cos | posts unchanged | chunks kept as written (round 2 gave) |")
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
            tail = (f"{np.mean(metric['chrf']):.2f} | {np.mean(metric.get('embedding_cosine', [np.nan])):.2f} | "
                    f"{np.mean(metric['unchanged']):.3f} | {fell / len(chunks):.3f} ({second / len(chunks):.3f})")
        print(f"| {policy} | " + " | ".join(cells) + f" | {tail} |")
    if args.out:
        with _open_out(args.out) as out:
            for policy, texts in released.items():
                for j, text in enumerate(texts):
                    out.write(json.dumps({"policy": policy, "post": j, "author": str(authors[test][j]), "text": text,
                                          **{a: bool(correct[a, policy][j]) for a in names}}, ensure_ascii=False) + "\n")


def replay(rows: list, policy: str, chunks: list, floor: float) -> tuple[list, int, int]:
    """(the text the method keeps per chunk, chunks that fell back, chunks round 2 gave a rewrite for) for
    ``policy``'s stored candidates (:func:`method_rounds`); the stored originals must be ``chunks`` in order (a
    one-line error otherwise)."""
    stored = {r["chunk"]: r["original"] for r in rows if r["policy"] == policy}
    if stored != dict(enumerate(chunks)):
        raise SystemExit(f"{policy}: the stored chunks are not this split's chunks in order")
    _, _, kept = method_rounds(rows, policy, floor)
    texts = [chunk if kept[i][1] is None else kept[i][1]["rewrite"] for i, chunk in enumerate(chunks)]
    return texts, sum(best is None for _, best in kept.values()), sum(round_ == 2 for round_, _ in kept.values())

if __name__ == "__main__":
    main()
