"""Real policy outputs to label by hand (the validity gate's measurement set, docs/results/tarot.md#validity-gate).

Chunks of a scenario's *test* documents (cut as ``tarot`` cuts them, one chunk per document, documents drawn with
``--seed``) are rewritten once by each TAROT policy (zero-shot, SFT, DPO, PPO: the packaged adapters or
``--model``) at the methods' default sampling settings. Writes one JSON line per output: ``item`` (chunk number),
``policy``, ``original``, ``rewrite`` (cleaned as the methods clean it), ``raw`` (what the policy wrote),
``new_tokens`` and ``truncated`` (the token limit was hit). Labels are added to a copy of this file by hand.

Usage:  python scripts/tarot/rewrite_label_set.py -o rewrites.jsonl [--scenario BAC-10] [-n 100] [--seed 0]
"""

from __future__ import annotations

import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--model", help="TAROT model folder (default: the packaged policies).")
    parser.add_argument("--scenario", default="BAC-10")
    parser.add_argument("-n", type=int, default=100, help="Chunks (from distinct test documents).")
    parser.add_argument("--policies", default="zero-shot,sft,dpo,ppo")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import numpy as np

    from authorguard.data import load_dataset
    from authorguard.data.splits import SCENARIOS
    from authorguard.neural.tarot.model import TarotRewriter
    from authorguard.neural.tarot.policy import generate
    from authorguard.neural.tarot.prompts import chunk_documents, clean_rewrite, render_prompt

    scenario = SCENARIOS[args.scenario].with_seed(0)
    corpus = scenario.selection.select(load_dataset(scenario.dataset))
    tests = [t for t, s in zip(corpus.texts, corpus.splits) if s == "test" and t.strip()]
    rng = np.random.default_rng(args.seed)
    lines = []
    rewriters = {p: TarotRewriter(args.model, p) for p in args.policies.split(",")}
    tokenizer = next(iter(rewriters.values())).loader.tokenizer
    count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
    chunks = []
    for index in rng.permutation(len(tests))[: args.n]:
        pieces = chunk_documents([tests[index]], count, 96)
        chunks.append(pieces[int(rng.integers(len(pieces)))].text)
    for policy, rewriter in rewriters.items():
        prompts = [render_prompt(tokenizer, rewriter.policy.instruction, c) for c in chunks]
        limit = rewriter.policy.max_new_tokens
        out = generate(
            None,
            tokenizer,
            prompts,
            max_new_tokens=limit,
            seed=args.seed,
            temperature=0.7,
            top_p=0.95,
            batch_size=64,
            engine=rewriter.loader.engine("batched"),
        )
        for item, (original, raw, tokens) in enumerate(zip(chunks, out.texts, out.new_tokens)):
            lines.append(
                {
                    "item": item,
                    "policy": policy,
                    "original": original,
                    "rewrite": clean_rewrite(raw),
                    "raw": raw,
                    "new_tokens": tokens,
                    "truncated": tokens >= limit,
                }
            )
        del rewriter.loader._engines["batched"]  # one policy's weights in memory at a time
    with open(args.output, "w", encoding="utf-8") as out_file:
        for line in lines:
            out_file.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"wrote {len(lines)} outputs ({len(chunks)} chunks x {len(rewriters)} policies) to {args.output}")


if __name__ == "__main__":
    main()
