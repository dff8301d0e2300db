"""Generation speed and quality: transformers' generate (the ``torch`` reference path) against the ``batched``
engine, in one run, on the same prompts (run on demand; figures go to docs/benchmarks.md).

Prompts: the first chunks of BAC-10 test posts, cut and rendered exactly as the ``tarot`` method does (chunks of
at most 96 policy tokens, the TAROT instruction in the chat template), rewritten by the packaged TAROT-DPO policy
with tarot's sampling settings (temperature 0.7, top-p 0.95, at most 128 new tokens). Each (engine, batch size)
runs in a fresh process so its peak RSS is its own. Reported per configuration: new tokens/s, ms a token, peak
RSS, the engine's set-up time (loading the policy and, for ``batched``, copying it to its precision), and the
share of the float32 compute bound (~600 tokens/s: 0.27 GFLOP a token at ~170 GFLOP/s; decoding only).

Quality (``--quality``): greedy outputs of both engines on 50 prompts (identical share, token agreement up to the
first difference), and the reward (R_util, R_priv; mean ± standard error) of sampled rewrites of 100 further
prompts by each engine.

End to end (``--write-posts FILE``): writes the first 200 BAC-10 test posts as JSONL (id, text) and exits, for
timing ``authorguard obfuscate FILE -o OUT --method tarot`` as a user runs it.

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/generation_speed.py [--prompts 200] [--batch-sizes 1,8,32]
            [--engines torch,batched]
            [--batch1-prompts 24] [--quality] [--write-posts posts.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

BOUND_TOKENS_PER_SECOND = 600.0


def prompts_and_chunks(n: int, offset: int = 0):
    """``n`` rendered prompts (and their chunk texts) from BAC-10's test posts, from chunk ``offset`` on."""
    from authorguard.data import load_dataset
    from authorguard.data.splits import SCENARIOS
    from authorguard.neural.tarot.model import resolve_folder
    from authorguard.neural.tarot.policy import PolicyLoader
    from authorguard.neural.tarot.prompts import chunk_documents, render_prompt

    policy = resolve_folder(None).policy_config()
    tokenizer = PolicyLoader().tokenizer
    scenario = SCENARIOS["BAC-10"].with_seed(0)
    corpus = scenario.selection.select(load_dataset(scenario.dataset))
    texts = [t for t, s in zip(corpus.texts, corpus.splits) if s == "test"]
    count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
    chunks = [c.text for c in chunk_documents(texts[:1000], count, policy.max_chunk_tokens) if len(c.text.split()) >= 5]
    chunks = chunks[offset : offset + n]
    return [render_prompt(tokenizer, policy.instruction, c) for c in chunks], chunks


def write_posts(path: str, n: int = 200) -> None:
    from authorguard.data import load_dataset
    from authorguard.data.splits import SCENARIOS

    scenario = SCENARIOS["BAC-10"].with_seed(0)
    corpus = scenario.selection.select(load_dataset(scenario.dataset))
    texts = [t for t, s in zip(corpus.texts, corpus.splits) if s == "test"][:n]
    with open(path, "w", encoding="utf-8") as handle:
        for index, text in enumerate(texts):
            handle.write(json.dumps({"id": index, "text": text}, ensure_ascii=False) + "\n")
    print(f"wrote {len(texts)} posts ({sum(len(t.split()) for t in texts)} words) to {path}")


def one(engine: str, batch_size: int, n: int, sample: bool = True, offset: int = 0) -> dict:
    """One configuration in this process: its figures (and outputs) as a dict."""
    from authorguard.neural.tarot.model import resolve_folder
    from authorguard.neural.tarot.policy import PolicyLoader, generate

    prompts, _ = prompts_and_chunks(n, offset)
    started = time.perf_counter()
    loader = PolicyLoader(resolve_folder(None).adapters("dpo"))
    if engine == "batched-float32":  # the setting PPO rollouts sample with (on-policy log-probabilities)
        from authorguard.generation import make_engine

        built = make_engine("batched", *loader(), dtype="float32")
    else:
        built = loader.engine(engine)
    setup = time.perf_counter() - started
    out = generate(
        None,
        None,
        prompts,
        max_new_tokens=128,
        seed=0,
        sample=sample,
        temperature=0.7,
        top_p=0.95,
        batch_size=batch_size,
        engine=built,
    )
    tokens = sum(out.new_tokens)
    return {
        "engine": engine,
        "batch_size": batch_size,
        "prompts": len(prompts),
        "new_tokens": tokens,
        "seconds": out.seconds,
        "tokens_per_second": tokens / out.seconds,
        "ms_per_token": 1000 * out.seconds / tokens,
        "setup_seconds": setup,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "dtype": getattr(built, "dtype", "float32"),
        "token_ids": out.token_ids,
        "texts": out.texts,
    }


def run_child(engine: str, batch_size: int, n: int, sample: bool = True, offset: int = 0) -> dict:
    command = [sys.executable, __file__, "--child", json.dumps([engine, batch_size, n, sample, offset])]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{engine} at batch {batch_size} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--batch-sizes", default="1,8,32")
    parser.add_argument(
        "--engines",
        default="torch,batched",
        help="Engines to time (the speed-up row needs both "
        "torch and batched); batched-float32 = the batched engine in float32, as PPO rollouts use it.",
    )
    parser.add_argument(
        "--batch1-prompts",
        type=int,
        default=24,
        help="Prompts at batch size 1 (the torch path writes ~20 tokens/s there: all 200 would take ~15 minutes).",
    )
    parser.add_argument("--quality", action="store_true", help="Also compare greedy outputs and rewards.")
    parser.add_argument("--write-posts", help="Write 200 BAC-10 test posts as JSONL to this file and exit.")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_posts:
        write_posts(args.write_posts)
        return
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.child:
        print(json.dumps(one(*json.loads(args.child))))
        return
    import torch

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs")
    print(
        "| engine | precision | batch | prompts | new tokens | tokens/s | ms/token | peak RSS MB | set-up s | share of "
        "600 tok/s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    speeds: dict = {}
    for batch_size in [int(b) for b in args.batch_sizes.split(",")]:
        n = args.batch1_prompts if batch_size == 1 else args.prompts
        for engine in args.engines.split(","):
            r = run_child(engine, batch_size, n)
            speeds[(engine, batch_size)] = r["tokens_per_second"]
            print(
                f"| {engine} | {r['dtype']} | {batch_size} | {r['prompts']} | {r['new_tokens']} | "
                f"{r['tokens_per_second']:.1f} | "
                f"{r['ms_per_token']:.1f} | {r['peak_rss_mb']:.0f} | {r['setup_seconds']:.1f} | "
                f"{r['tokens_per_second'] / BOUND_TOKENS_PER_SECOND:.2f} |",
                flush=True,
            )
        if ("torch", batch_size) in speeds and ("batched", batch_size) in speeds:
            print(
                f"|  | speed-up at batch {batch_size} | | | | "
                f"{speeds[('batched', batch_size)] / speeds[('torch', batch_size)]:.1f}x | | | | |",
                flush=True,
            )
    if args.quality:
        quality(args)


def quality(args) -> None:
    import numpy as np

    from authorguard.neural.tarot.config import RewardConfig
    from authorguard.neural.tarot.prompts import clean_rewrite
    from authorguard.neural.tarot.reward import ObfuscationReward

    greedy = {engine: run_child(engine, 16, 50, False) for engine in ("torch", "batched")}
    same = [a == b for a, b in zip(greedy["torch"]["token_ids"], greedy["batched"]["token_ids"])]
    agreement = []
    for a, b in zip(greedy["torch"]["token_ids"], greedy["batched"]["token_ids"]):
        prefix = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        agreement.append(prefix / max(len(a), len(b)))
    print(
        f"\ngreedy, 50 prompts: identical outputs {np.mean(same):.2f}; tokens agreeing before the first difference "
        f"{np.mean(agreement):.2f} of the longer output"
    )
    _, chunks = prompts_and_chunks(100, offset=args.prompts)
    reward = ObfuscationReward(RewardConfig())
    print("\n| engine | prompts | R_util | R_priv | R |\n|---|---|---|---|---|")
    for engine in ("torch", "batched"):
        r = run_child(engine, 16, 100, True, args.prompts)
        scores = reward(chunks, [clean_rewrite(t) for t in r["texts"]])
        cells = [
            f"{v.mean():.3f} ± {v.std(ddof=1) / np.sqrt(len(v)):.3f}"
            for v in (scores.utility, scores.privacy, scores.total)
        ]
        print(f"| {engine} | {len(chunks)} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
