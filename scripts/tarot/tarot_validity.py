"""How often does each TAROT policy write something that is not a rewrite, and how much do k candidates help?

The first ``--posts`` test posts of ``--scenario`` (BAC-10 unless said; after the first ``--skip``) are cut into chunks
as ``tarot`` cuts them; each policy (zero-shot, SFT,
DPO, PPO; the packaged adapters or ``--model``) samples ``--candidates`` rewrites of every chunk at the methods'
settings (temperature 0.7, top-p 0.95, at most 128 tokens, seed ``--seed``). Every candidate is judged by the
validity gate (with the token-limit flag) and scored (MiniLM utility, author-encoder privacy). Best-of-k is then
evaluated on the first k candidates of each chunk, exactly as one round of the method's selection does: a chunk
"falls back" when none of its k is valid with utility >= ``--floor``; otherwise the valid one with the highest
reward is kept. Prints Markdown tables (per policy: the invalid share of single samples and its reasons; per k:
fallback share, mean R_util / R_priv of the kept rewrites) and writes every candidate to ``--out`` (JSONL).

A whole split is measured in slices that each fit a session (``--skip 0 --posts 400``, ``--skip 400 --posts 400``,
...; chunk numbers count from the split's first post, so the slices' files together are one run's), or on a GPU
machine in two steps: ``--plan FILE`` writes the chunks (here, where the corpus is), ``--generate FILE --out RAW``
samples the candidates there (``--device``, ``--dtype``, ``--batch-size``; no corpus, no reward models needed),
and ``--from RAW --out JUDGED`` judges and scores them here.

``--from FILE [FILE ...]`` prints the tables again from stored ``--out`` files, plain or ``.gz`` (no generation; the
candidates behind docs/results/tarot.md's latest tables are committed in ``artifacts/tarot-validity/``); with
``--rejudge`` every stored
candidate is judged again by today's gate (a rule added since the file was written; the token-limit flag is read
back from the stored verdict, exact because "truncated" is checked before every later rule); ``--samples N``
prints N chunks drawn with ``--seed`` and every policy's first candidate for each, with the gate's verdict;
``--label-selected N FILE`` writes, per policy, N chunks drawn with ``--seed`` among those best-of-k keeps a rewrite
for,
with the rewrite it keeps (what a user is given), for labelling by hand.

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/tarot/tarot_validity.py [--scenario BAC-10] [--posts 100] [--skip
0] [--candidates 4]
            [--policies zero-shot,sft,dpo,ppo] [--floor 0.5] [--seed 0] [--out candidates.jsonl] [--samples 3]
        python scripts/tarot/tarot_validity.py --from candidates.jsonl [more.jsonl ...] [--rejudge] [--samples 3]
            [--label-selected 100 selected.jsonl] [--out judged.jsonl.gz]
        python scripts/tarot/tarot_validity.py --plan plan.jsonl.gz [--scenario ...] [--posts ...] [--policies ...]
        python scripts/tarot/tarot_validity.py --generate plan.jsonl.gz --out raw.jsonl.gz [--device cuda] [--dtype
        float32]
            [--batch-size 1024] [--candidates 4] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="TAROT model folder (default: the packaged policies).")
    parser.add_argument("--scenario", default="BAC-10", help="Whose test split (BAC-10, AMT-10, ...; split seed 0).")
    parser.add_argument("--posts", type=int, default=100)
    parser.add_argument(
        "--skip", type=int, default=0, help="Leave out the first SKIP test posts (a slice of the split)."
    )
    parser.add_argument("--candidates", type=int, default=4)
    parser.add_argument(
        "--policies", help="Comma-separated (default: zero-shot,sft,dpo,ppo; with --generate: the plan's)."
    )
    parser.add_argument("--floor", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="JSONL of every candidate with its verdict and rewards.")
    parser.add_argument(
        "--from", dest="stored", nargs="+", help="Stored --out files: print their tables, generate nothing."
    )
    parser.add_argument("--rejudge", action="store_true", help="With --from: judge the stored candidates again.")
    parser.add_argument("--samples", type=int, default=0)
    parser.add_argument(
        "--plan", help="Write the chunks to rewrite (JSONL, .gz allowed) and stop: --generate reads it."
    )
    parser.add_argument(
        "--generate",
        metavar="PLAN",
        help="Sample candidates for a --plan file's chunks (no corpus "
        "needed, e.g. on a GPU machine); --out gets them unjudged, --from judges them.",
    )
    parser.add_argument("--device", default="auto", help="Generation device: auto (CUDA when available), cpu, cuda.")
    parser.add_argument("--dtype", default="auto", help="Generation precision: auto, float32, bfloat16.")
    parser.add_argument("--batch-size", type=int, default=64, help="Live sequences decoded together.")
    parser.add_argument(
        "--no-texts",
        action="store_true",
        help="With --from and --out: write the verdicts only "
        "(no texts, rewards to 4 decimals): the tables, not the samples, can be printed again from them.",
    )
    parser.add_argument(
        "--label-selected",
        nargs=2,
        metavar=("N", "FILE"),
        help="With --from: write N drawn chunks' selected rewrites (best of all stored) to FILE, to label.",
    )
    args = parser.parse_args()
    if args.label_selected and not args.stored:
        parser.error("--label-selected reads stored candidates: give --from FILE [FILE ...]")
    if args.stored:
        rows = [json.loads(line) for path in args.stored for line in _open_text(path)]
        if (args.rejudge or args.samples or args.label_selected) and any("rewrite" not in r for r in rows):
            parser.error(
                "the stored rows carry verdicts only (written with --no-texts): --rejudge, --samples and "
                "--label-selected need the texts"
            )
        judge(rows)
        if args.rejudge:
            rejudge(rows)
        if args.out:
            with _open_out(args.out) as out_file:
                _write_rows(out_file, [_verdict(r) for r in rows] if args.no_texts else rows)
        print_refusals(rows)
        print_best_of_k(rows, args.floor)
        print_two_rounds(rows, args.floor)
        print_samples(rows, args.samples, args.seed)
        if args.label_selected:
            write_selected(rows, int(args.label_selected[0]), args.floor, args.seed, args.label_selected[1])
        return
    if args.generate:
        plan = [json.loads(line) for line in _open_text(args.generate)]
        policies = args.policies.split(",") if args.policies else list(dict.fromkeys(r["policy"] for r in plan))
        out_file = _open_out(args.out)
        for policy in policies:
            mine = [r for r in plan if r["policy"] == policy]
            rows, line = sample_candidates(args, policy, [r["original"] for r in mine], [r["chunk"] for r in mine])
            print(line, flush=True)
            _write_rows(out_file, rows)
        if out_file:
            out_file.close()
        return
    _, corpus, _, test = scenario_split(parser, args.scenario)
    test_posts = [corpus.texts[i] for i in test]
    before, posts = test_posts[: args.skip], test_posts[args.skip : args.skip + args.posts]
    rows, lines, plan = [], [], []
    args.policies = args.policies or "zero-shot,sft,dpo,ppo"
    out_file = _open_out(args.plan or args.out)
    for policy in args.policies.split(","):
        chunks, first_chunk = policy_chunks(args.model, policy, before, posts)
        ids = list(range(first_chunk, first_chunk + len(chunks)))
        if args.plan:
            plan += [{"policy": policy, "chunk": i, "original": c} for i, c in zip(ids, chunks)]
            continue
        mine, line = sample_candidates(args, policy, chunks, ids)
        judge(mine)
        rows += mine
        lines.append(line)
        _write_rows(out_file, mine)
    if args.plan:  # a chunk's rows of all policies side by side: gzip stores its text once
        _write_rows(out_file, sorted(plan, key=lambda r: r["chunk"]))
    if out_file:
        out_file.close()
    if args.plan:
        print(
            f"wrote {args.plan}: the chunks of {len(posts)} {args.scenario} test posts from post {args.skip} for "
            f"{args.policies}; generate with --generate {args.plan} (no corpus needed), judge with --from"
        )
        return
    print(
        f"{len(posts)} {args.scenario} test posts from post {args.skip}, seed {args.seed}, utility floor {args.floor}\n"
    )
    print("| policy | chunks | samples | tokens/s |\n|---|---|---|---|")
    print("\n".join(lines))
    print_refusals(rows)
    print_best_of_k(rows, args.floor)
    print_samples(rows, args.samples, args.seed)


def policy_chunks(model, policy: str, before: list, posts: list) -> tuple[list, int]:
    """(the chunks ``tarot`` cuts ``posts`` into for ``policy``, the number of chunks of the ``before`` posts)."""
    from authorguard.neural.tarot.model import TarotRewriter
    from authorguard.neural.tarot.prompts import chunk_documents

    rewriter = TarotRewriter(model, policy)
    tokenizer = rewriter.loader.tokenizer
    count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
    limit = rewriter.policy.max_chunk_tokens
    chunks = [c.text for c in chunk_documents(posts, count, limit)]
    return chunks, len(chunk_documents(before, count, limit)) if before else 0


def sample_candidates(args, policy: str, chunks: list, ids: list) -> tuple[list, str]:
    """``args.candidates`` rewrites of every chunk by ``policy`` at the methods' settings, on the batched engine
    (``args.device``, ``args.dtype``, ``args.batch_size``): unjudged rows (the rewrite, its new tokens and whether
    it hit the token limit), and a table line with the speed."""
    from authorguard.generation import make_engine
    from authorguard.neural.tarot.model import TarotRewriter
    from authorguard.neural.tarot.policy import generate
    from authorguard.neural.tarot.prompts import clean_rewrite, render_prompt

    rewriter = TarotRewriter(args.model, policy)
    tokenizer = rewriter.loader.tokenizer
    k = args.candidates
    prompts = [render_prompt(tokenizer, rewriter.policy.instruction, c) for c in chunks for _ in range(k)]
    limit = rewriter.policy.max_new_tokens
    engine = make_engine("batched", *rewriter.loader(), device=args.device, dtype=args.dtype)
    out = generate(
        None,
        tokenizer,
        prompts,
        max_new_tokens=limit,
        seed=args.seed,
        temperature=0.7,
        top_p=0.95,
        batch_size=args.batch_size,
        engine=engine,
    )
    rows = [
        {
            "policy": policy,
            "seed": args.seed,
            "chunk": ids[j // k],
            "candidate": j % k,
            "original": chunks[j // k],
            "rewrite": clean_rewrite(text),
            "new_tokens": n,
            "truncated": n >= limit,
        }
        for j, (text, n) in enumerate(zip(out.texts, out.new_tokens))
    ]
    line = (
        f"| {policy} | {len(chunks)} | {len(rows)} | {out.tokens_per_second:.0f} "
        f"({engine.device}, {engine.dtype}, batch {args.batch_size}) |"
    )
    return rows, line


def judge(rows: list) -> None:
    """The validity gate's verdict (``problem``) of every row not judged yet (rows from --generate), in place, and
    the reward (``utility``, ``privacy``) of those it passes — as the method scores only valid candidates; a
    refused row's are None. The token-limit flag is the row's ``truncated``."""
    from authorguard.neural.tarot.config import TAROT_PROMPT
    from authorguard.text.validity import RewriteGate

    todo = [r for r in rows if "utility" not in r]
    if not todo:
        return
    originals, texts = [r["original"] for r in todo], [r["rewrite"] for r in todo]
    problems = RewriteGate(instruction=TAROT_PROMPT).problems(originals, texts, [r["truncated"] for r in todo])
    for r, problem in zip(todo, problems):
        r.update(problem=problem, utility=None, privacy=None)
    score_passed(todo)


def score_passed(rows: list) -> None:
    """The reward (MiniLM utility, author-encoder privacy) of the rows the gate passed that have none yet."""
    import numpy as np

    from authorguard.neural.tarot.config import RewardConfig
    from authorguard.neural.tarot.reward import ObfuscationReward

    todo = [r for r in rows if r["problem"] is None and r.get("utility") is None]
    if not todo:
        return
    scores = ObfuscationReward(RewardConfig(gate=False))([r["original"] for r in todo], [r["rewrite"] for r in todo])
    for r, utility, privacy in zip(todo, np.asarray(scores.utility), np.asarray(scores.privacy)):
        r.update(utility=float(utility), privacy=float(privacy))


def rejudge(rows: list) -> None:
    """Today's gate's verdict on every stored candidate, in place."""
    from authorguard.neural.tarot.config import TAROT_PROMPT
    from authorguard.text.validity import RewriteGate

    gate = RewriteGate(instruction=TAROT_PROMPT)
    for row in rows:
        truncated = row.get("truncated", row["problem"] == "truncated")  # older files: read back from the verdict
        row["problem"] = gate.problem(row["original"], row["rewrite"], truncated)
    score_passed(rows)  # a row judged valid now that was refused when it was generated


def print_refusals(rows: list) -> None:
    """Per policy (and seed, where rows carry one): the share of stored single samples the gate refused, and why."""
    print("| policy | chunks | samples | refused by the gate | reasons |\n|---|---|---|---|---|")
    for policy in dict.fromkeys(map(run_name, rows)):
        mine = [r for r in rows if run_name(r) == policy]
        refused = Counter(r["problem"] for r in mine if r["problem"] is not None)
        reasons = _reasons(refused)
        print(
            f"| {policy} | {len({r['chunk'] for r in mine})} | {len(mine)} | {sum(refused.values()) / len(mine):.3f} | "
            f"{reasons} |"
        )


def print_best_of_k(rows: list, floor: float) -> None:
    """Per policy and k (1, 2, 4, ... up to the candidates stored): the share of chunks none of whose first k
    candidates is valid with utility >= ``floor``, and the mean R_util / R_priv of the best valid one (by reward)."""
    import numpy as np

    print(f"\nutility floor {floor}\n")
    print(
        "| policy | k | chunks without a valid rewrite (one round) | R_util of kept | R_priv of kept "
        "|\n|---|---|---|---|---|"
    )
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
            print(
                f"| {policy} | {k} | {fell / len(chunks):.3f} ({fell}/{len(chunks)}) | {np.mean(utility):.3f} | "
                f"{np.mean(privacy):.3f} |"
            )


def run_name(row: dict) -> str:
    """The run a stored candidate belongs to: its policy, and its sampling seed where the row records one."""
    return row["policy"] if "seed" not in row else f"{row['policy']} seed {row['seed']}"


def chunks_by_policy(rows: list) -> dict:
    """{run (:func:`run_name`): {chunk id: [its stored candidates]}}, runs in the order they appear."""
    grouped: dict = {}
    for r in rows:
        grouped.setdefault(run_name(r), {}).setdefault(r["chunk"], []).append(r)
    return grouped


def print_two_rounds(rows: list, floor: float) -> None:
    """The method's default selection (``retries`` 1: a second round of k candidates, another seed, for the chunks
    the first left without a valid rewrite), per policy stored with two seeds or more: round 1 is the lowest
    seed's candidates, round 2 the next seed's; the share of chunks that fall back after each round, and the
    mean R_util / R_priv of the rewrites kept; then, for each pair of policies, the difference of their fallback
    rates after round 2 with the standard error of the paired per-chunk difference."""
    import numpy as np

    seeds: dict = {}
    for r in rows:
        if "seed" in r:
            seeds.setdefault(r["policy"], set()).add(r["seed"])
    policies = [p for p, s in seeds.items() if len(s) >= 2]
    if not policies:
        return
    print(f"\ntwo rounds (the method's default retries = 1), utility floor {floor}\n")
    print(
        "| policy | k | chunks | fall back after round 1 | after round 2 | R_util of kept | R_priv of kept |\n"
        "|---|---|---|---|---|---|---|"
    )
    fell_by_policy = {}
    for policy in policies:
        (first, second), k, kept = method_rounds(rows, policy, floor)
        fell_by_policy[policy] = {chunk: best is None for chunk, (_, best) in kept.items()}
        n, fell = len(kept), sum(fell_by_policy[policy].values())
        fell_first = sum(round_ != 1 for round_, _ in kept.values())
        utility = [best["utility"] for _, best in kept.values() if best is not None]
        privacy = [best["privacy"] for _, best in kept.values() if best is not None]
        print(
            f"| {policy} (seeds {first}, {second}) | {k} | {n} | {fell_first / n:.3f} | {fell / n:.3f} ({fell}/{n}) | "
            f"{np.mean(utility):.3f} | {np.mean(privacy):.3f} |"
        )
    names = list(fell_by_policy)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            common = sorted(set(fell_by_policy[a]) & set(fell_by_policy[b]))
            diff = np.array([fell_by_policy[a][c] - fell_by_policy[b][c] for c in common], dtype=float)
            if len(diff) > 1:
                print(
                    f"\nfallback after round 2, {a} − {b}: {diff.mean():+.4f} ± "
                    f"{diff.std(ddof=1) / np.sqrt(len(diff)):.4f} "
                    f"(SE of the paired per-chunk difference, {len(diff)} chunks)",
                    end="",
                )
    print()


def method_rounds(rows: list, policy: str, floor: float, key=None) -> tuple[tuple, int, dict]:
    """The method's default selection replayed on ``policy``'s stored candidates: round 1 is the lowest seed's k
    candidates of each chunk (:func:`best_of_k`), round 2 the next seed's for the chunks round 1 left (none when
    only one seed is stored). ``key`` ranks the valid candidates (default: the reward, as the method does).
    Returns ((first seed, second seed or None), k, {chunk: (the round that kept a rewrite — 1, 2 or None —, the
    kept candidate or None)})."""
    by_seed: dict = {}
    for r in rows:
        if r["policy"] == policy:
            by_seed.setdefault(r.get("seed", 0), {}).setdefault(r["chunk"], []).append(r)
    first, *rest = sorted(by_seed)
    second = rest[0] if rest else None
    one, two = by_seed[first], by_seed.get(second, {})
    k = min(len(c) for c in one.values())
    kept = {}
    for chunk, candidates in one.items():
        best = best_of_k(candidates, k, floor, key)
        if best is not None:
            kept[chunk] = (1, best)
            continue
        best = best_of_k(two.get(chunk, []), k, floor, key)
        kept[chunk] = (2, best) if best is not None else (None, None)
    return (first, second), k, kept


def best_of_k(candidates: list, k: int, floor: float, key=None) -> dict | None:
    """One round of the method's selection over a chunk's first ``k`` stored candidates: the valid one (gate
    passed, utility >= ``floor``) with the highest ``key`` (default R_util + R_priv, the method's), or None (the
    chunk falls back)."""
    pool = [
        c
        for c in sorted(candidates, key=lambda c: c["candidate"])[:k]
        if c["problem"] is None and c["utility"] >= floor
    ]
    return max(pool, key=key or reward) if pool else None


def reward(candidate: dict) -> float:
    """The method's ranking of a valid candidate: R_util + R_priv."""
    return candidate["utility"] + candidate["privacy"]


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
                out.write(
                    json.dumps(
                        {
                            "item": item,
                            "policy": policy,
                            "chunk": int(chunk),
                            "k": k,
                            "label": "",
                            "truncated": False,
                            "original": best["original"],
                            "rewrite": best["rewrite"],
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )
                written += 1
    print(f"\nwrote {path}: the selected rewrites of {written} drawn chunks (up to {count} per policy), to label")


def print_samples(rows: list, count: int, seed: int) -> None:
    """``count`` chunks drawn with ``seed``; each policy's first candidate for them, with the gate's verdict."""
    import numpy as np

    if not count:
        return
    chunk_ids = sorted({r["chunk"] for r in rows})
    lowest = {}  # each policy's first candidate of its lowest stored seed
    for r in rows:
        lowest[r["policy"]] = min(lowest.get(r["policy"], r.get("seed", 0)), r.get("seed", 0))
    for chunk in np.random.default_rng(seed).choice(chunk_ids, size=min(count, len(chunk_ids)), replace=False):
        firsts = [
            r for r in rows if r["chunk"] == chunk and r["candidate"] == 0 and r.get("seed", 0) == lowest[r["policy"]]
        ]
        print(f"\n**chunk {chunk}**: {_cell(firsts[0]['original'])}\n")
        print("| policy | first candidate | gate | R_util | R_priv |\n|---|---|---|---|---|")
        for r in firsts:
            print(
                f"| {r['policy']} | {_cell(r['rewrite'])} | {r['problem'] or 'valid'} | {_number(r['utility'])} | "
                f"{_number(r['privacy'])} |"
            )


def _reasons(refused: Counter) -> str:
    """ "meta 12, copy 3, ..." in the gate's order of rules."""
    from authorguard.text.validity import REASONS

    return ", ".join(f"{r} {refused[r]}" for r in REASONS if refused[r])


def _open_text(path: str):
    """A stored candidates file, plain or gzipped (``.gz``: the committed ones in artifacts/tarot-validity)."""
    import gzip

    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")


def scenario_split(parser, name: str) -> tuple:
    """(scenario ``name`` at split seed 0, its corpus, the corpus's training post indices, its non-blank test post
    indices); an unknown name is the parser's one-line error."""
    from authorguard.data import load_dataset
    from authorguard.data.splits import SCENARIOS

    if name not in SCENARIOS:
        parser.error(f"unknown scenario {name!r}; known: {', '.join(sorted(SCENARIOS))}")
    scenario = SCENARIOS[name].with_seed(0)
    corpus = scenario.selection.select(load_dataset(scenario.dataset))
    train = [i for i, s in enumerate(corpus.splits) if s == "train"]
    test = [i for i, s in enumerate(corpus.splits) if s == "test" and corpus.texts[i].strip()]
    return scenario, corpus, train, test


def _open_out(path: str | None):
    """A JSONL file to write (gzipped when ``path`` ends in ``.gz``), or None."""
    import gzip

    if not path:
        return None
    return gzip.open(path, "wt", encoding="utf-8") if path.endswith(".gz") else open(path, "w", encoding="utf-8")


def _verdict(row: dict) -> dict:
    """A judged row without its texts, rewards rounded: what the tables need, a tenth of the size."""
    kept = {k: v for k, v in row.items() if k not in ("original", "rewrite")}
    kept.update({k: round(row[k], 4) for k in ("utility", "privacy") if row[k] is not None})
    return kept


def _write_rows(out_file, rows: list) -> None:
    if out_file:
        out_file.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        out_file.flush()


def _number(value) -> str:
    return "–" if value is None else f"{value:.2f}"  # refused candidates are not scored


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


if __name__ == "__main__":
    main()
