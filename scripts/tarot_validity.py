"""How often does each TAROT policy write something that is not a rewrite, and how much do k candidates help?

The first ``--posts`` test posts of ``--scenario`` (BAC-10 unless said; after the first ``--skip``) are cut into chunks as ``tarot`` cuts them; each policy (zero-shot, SFT,
DPO, PPO; the packaged adapters or ``--model``) samples ``--candidates`` rewrites of every chunk at the methods'
settings (temperature 0.7, top-p 0.95, at most 128 tokens, seed ``--seed``). Every candidate is judged by the
validity gate (with the token-limit flag) and scored (MiniLM utility, author-encoder privacy). Best-of-k is then
evaluated on the first k candidates of each chunk, exactly as one round of the method's selection does: a chunk
"falls back" when none of its k is valid with utility >= ``--floor``; otherwise the valid one with the highest
reward is kept. Prints Markdown tables (per policy: the invalid share of single samples and its reasons; per k:
fallback share, mean R_util / R_priv of the kept rewrites) and writes every candidate to ``--out`` (JSONL).

A whole split is measured in slices that each fit a session (``--skip 0 --posts 400``, ``--skip 400 --posts 400``,
...; chunk numbers count from the split's first post, so the slices' files together are one run's).

``--from FILE [FILE ...]`` prints the tables again from stored ``--out`` files, plain or ``.gz`` (no generation; the
candidates behind docs/results/tarot.md's latest tables are committed in ``artifacts/tarot-validity/``); with ``--rejudge`` every stored
candidate is judged again by today's gate (a rule added since the file was written; the token-limit flag is read
back from the stored verdict, exact because "truncated" is checked before every later rule); ``--samples N``
prints N chunks drawn with ``--seed`` and every policy's first candidate for each, with the gate's verdict;
``--label-selected N FILE`` writes, per policy, N chunks drawn with ``--seed`` among those best-of-k keeps a rewrite for,
with the rewrite it keeps (what a user is given), for labelling by hand.

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/tarot_validity.py [--scenario BAC-10] [--posts 100] [--skip 0] [--candidates 4]
            [--policies zero-shot,sft,dpo,ppo] [--floor 0.5] [--seed 0] [--out candidates.jsonl] [--samples 3]
        python scripts/tarot_validity.py --from candidates.jsonl [more.jsonl ...] [--rejudge] [--samples 3]
            [--label-selected 100 selected.jsonl]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="TAROT model folder (default: the packaged policies).")
    parser.add_argument("--scenario", default="BAC-10", help="Whose test split (BAC-10, AMT-10, ...; split seed 0).")
    parser.add_argument("--posts", type=int, default=100)
    parser.add_argument("--skip", type=int, default=0, help="Leave out the first SKIP test posts (a slice of the split).")
    parser.add_argument("--candidates", type=int, default=4)
    parser.add_argument("--policies", default="zero-shot,sft,dpo,ppo")
    parser.add_argument("--floor", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="JSONL of every candidate with its verdict and rewards.")
    parser.add_argument("--from", dest="stored", nargs="+", help="Stored --out files: print their tables, generate nothing.")
    parser.add_argument("--rejudge", action="store_true", help="With --from: judge the stored candidates again.")
    parser.add_argument("--samples", type=int, default=0)
    parser.add_argument("--label-selected", nargs=2, metavar=("N", "FILE"),
                        help="With --from: write N drawn chunks' selected rewrites (best of all stored) to FILE, to label.")
    args = parser.parse_args()
    if args.label_selected and not args.stored:
        parser.error("--label-selected reads stored candidates: give --from FILE [FILE ...]")
    if args.stored:
        rows = [json.loads(line) for path in args.stored for line in _open_text(path)]
        if args.rejudge:
            rejudge(rows)
        print_refusals(rows)
        print_best_of_k(rows, args.floor)
        print_samples(rows, args.samples, args.seed)
        if args.label_selected:
            write_selected(rows, int(args.label_selected[0]), args.floor, args.seed, args.label_selected[1])
        return
    from authorguard.data import load_dataset
    from authorguard.experiments.splits import SCENARIOS
    from authorguard.neural.tarot.config import RewardConfig
    from authorguard.neural.tarot.model import TarotRewriter
    from authorguard.neural.tarot.policy import generate
    from authorguard.neural.tarot.prompts import chunk_documents, clean_rewrite, render_prompt
    from authorguard.neural.tarot.reward import ObfuscationReward
    from authorguard.text.validity import RewriteGate

    if args.scenario not in SCENARIOS:
        parser.error(f"unknown scenario {args.scenario!r}; known: {', '.join(sorted(SCENARIOS))}")
    scenario = SCENARIOS[args.scenario].with_seed(0)
    corpus = scenario.selection.select(load_dataset(scenario.dataset))
    test_posts = [t for t, s in zip(corpus.texts, corpus.splits) if s == "test" and t.strip()]
    before, posts = test_posts[:args.skip], test_posts[args.skip : args.skip + args.posts]
    reward = ObfuscationReward(RewardConfig(gate=False))
    single, rows = [], []
    out_file = open(args.out, "w", encoding="utf-8") if args.out else None
    for policy in args.policies.split(","):
        rewriter = TarotRewriter(args.model, policy)
        tokenizer = rewriter.loader.tokenizer
        count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
        chunks = [c.text for c in chunk_documents(posts, count, rewriter.policy.max_chunk_tokens)]
        first_chunk = len(chunk_documents(before, count, rewriter.policy.max_chunk_tokens)) if before else 0
        k = args.candidates
        prompts = [render_prompt(tokenizer, rewriter.policy.instruction, c) for c in chunks for _ in range(k)]
        limit = rewriter.policy.max_new_tokens
        started = time.perf_counter()
        out = generate(None, tokenizer, prompts, max_new_tokens=limit, seed=args.seed, temperature=0.7, top_p=0.95,
                       batch_size=64, engine=rewriter.loader.engine("batched"))
        seconds = time.perf_counter() - started
        texts = [clean_rewrite(t) for t in out.texts]
        originals = [c for c in chunks for _ in range(k)]
        problems = RewriteGate(instruction=rewriter.policy.instruction).problems(
            originals, texts, [n >= limit for n in out.new_tokens])
        scores = reward(originals, texts)
        refused = Counter(p for p in problems if p is not None)
        single.append((policy, len(chunks), len(texts), refused, seconds, sum(out.new_tokens)))
        for j, text in enumerate(texts):
            rows.append({"policy": policy, "chunk": first_chunk + j // k, "candidate": j % k, "original": originals[j],
                         "rewrite": text, "problem": problems[j], "utility": float(scores.utility[j]),
                         "privacy": float(scores.privacy[j])})
            if out_file:
                out_file.write(json.dumps(rows[-1], ensure_ascii=False) + "\n")
        del rewriter.loader._engines["batched"]
    if out_file:
        out_file.close()
    print(f"{len(posts)} {args.scenario} test posts from post {args.skip}, seed {args.seed}, utility floor {args.floor}\n")
    print("| policy | chunks | samples | refused by the gate | reasons | tokens/s |\n|---|---|---|---|---|---|")
    for policy, n_chunks, n, refused, seconds, tokens in single:
        reasons = _reasons(refused)
        print(f"| {policy} | {n_chunks} | {n} | {sum(refused.values()) / n:.3f} | {reasons} | {tokens / seconds:.0f} |")
    print_best_of_k(rows, args.floor)
    print_samples(rows, args.samples, args.seed)


def rejudge(rows: list) -> None:
    """Today's gate's verdict on every stored candidate, in place."""
    from authorguard.neural.tarot.config import TAROT_PROMPT
    from authorguard.text.validity import RewriteGate

    gate = RewriteGate(instruction=TAROT_PROMPT)
    for row in rows:
        row["problem"] = gate.problem(row["original"], row["rewrite"], row["problem"] == "truncated")


def print_refusals(rows: list) -> None:
    """Per policy: the share of stored single samples the gate refused, and why."""
    print("| policy | chunks | samples | refused by the gate | reasons |\n|---|---|---|---|---|")
    for policy in dict.fromkeys(r["policy"] for r in rows):
        mine = [r for r in rows if r["policy"] == policy]
        refused = Counter(r["problem"] for r in mine if r["problem"] is not None)
        reasons = _reasons(refused)
        print(f"| {policy} | {len({r['chunk'] for r in mine})} | {len(mine)} | {sum(refused.values()) / len(mine):.3f} | "
              f"{reasons} |")


def print_best_of_k(rows: list, floor: float) -> None:
    """Per policy and k (1, 2, 4, ... up to the candidates stored): the share of chunks none of whose first k
    candidates is valid with utility >= ``floor``, and the mean R_util / R_priv of the best valid one (by reward)."""
    import numpy as np

    print(f"\nutility floor {floor}\n")
    print("| policy | k | chunks without a valid rewrite (one round) | R_util of kept | R_priv of kept |\n|---|---|---|---|---|")
    for policy, chunks in chunks_by_policy(rows).items():
        most = min(len(c) for c in chunks.values())
        for k in [k for k in (1, 2, 4, 8, 16) if k <= most]:
            fell, utility, privacy = 0, [], []
            for candidates in chunks.values():
                best = best_of_k(candidates, k, floor)
                if best is None:
                    fell += 1
                    continue
                utility.append(best["utility"])
                privacy.append(best["privacy"])
            print(f"| {policy} | {k} | {fell / len(chunks):.3f} ({fell}/{len(chunks)}) | {np.mean(utility):.3f} | "
                  f"{np.mean(privacy):.3f} |")


def chunks_by_policy(rows: list) -> dict:
    """{policy: {chunk id: [its stored candidates]}}, policies in the order they appear."""
    grouped: dict = {}
    for r in rows:
        grouped.setdefault(r["policy"], {}).setdefault(r["chunk"], []).append(r)
    return grouped


def best_of_k(candidates: list, k: int, floor: float) -> dict | None:
    """One round of the method's selection over a chunk's first ``k`` stored candidates: the valid one (gate
    passed, utility >= ``floor``) with the highest R_util + R_priv, or None (the chunk falls back)."""
    pool = [c for c in sorted(candidates, key=lambda c: c["candidate"])[:k] if c["problem"] is None and c["utility"] >= floor]
    return max(pool, key=lambda c: c["utility"] + c["privacy"]) if pool else None


def write_selected(rows: list, count: int, floor: float, seed: int, path: str) -> None:
    """For hand-labelling what a user gets: ``count`` chunks drawn with ``seed`` among those whose best of all stored
    candidates (one round) is a kept rewrite, per policy; one JSONL row each with the selected rewrite and an empty
    ``label`` to fill in by the rules of docs/results/tarot.md#validity-gate."""
    import numpy as np

    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for policy, chunks in chunks_by_policy(rows).items():
            k = min(len(c) for c in chunks.values())
            kept = {chunk: best for chunk, c in sorted(chunks.items()) if (best := best_of_k(c, k, floor)) is not None}
            ids = sorted(kept)
            drawn = np.random.default_rng(seed).choice(ids, size=min(count, len(ids)), replace=False)
            for item, chunk in enumerate(drawn):
                best = kept[int(chunk)]
                out.write(json.dumps({"item": item, "policy": policy, "chunk": int(chunk), "k": k, "label": "",
                                      "truncated": False, "original": best["original"], "rewrite": best["rewrite"]},
                                     ensure_ascii=False) + "\n")
                written += 1
    print(f"\nwrote {path}: the selected rewrites of {written} drawn chunks (up to {count} per policy), to label")


def print_samples(rows: list, count: int, seed: int) -> None:
    """``count`` chunks drawn with ``seed``; each policy's first candidate for them, with the gate's verdict."""
    import numpy as np

    if not count:
        return
    chunk_ids = sorted({r["chunk"] for r in rows})
    for chunk in np.random.default_rng(seed).choice(chunk_ids, size=min(count, len(chunk_ids)), replace=False):
        firsts = [r for r in rows if r["chunk"] == chunk and r["candidate"] == 0]
        print(f"\n**chunk {chunk}**: {_cell(firsts[0]['original'])}\n")
        print("| policy | first candidate | gate | R_util | R_priv |\n|---|---|---|---|---|")
        for r in firsts:
            print(f"| {r['policy']} | {_cell(r['rewrite'])} | {r['problem'] or 'valid'} | {r['utility']:.2f} | "
                  f"{r['privacy']:.2f} |")


def _reasons(refused: Counter) -> str:
    """"meta 12, copy 3, ..." in the gate's order of rules."""
    from authorguard.text.validity import REASONS

    return ", ".join(f"{r} {refused[r]}" for r in REASONS if refused[r])


def _open_text(path: str):
    """A stored candidates file, plain or gzipped (``.gz``: the committed ones in artifacts/tarot-validity)."""
    import gzip

    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


if __name__ == "__main__":
    main()
