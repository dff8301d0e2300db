"""Where the policy's raw logits lie while it paraphrases public text: the numbers DP-Prompt's clip range is chosen
from (docs/results/dp-rewriting.md). The range must not be fitted on private documents, so the text here is the
Brown corpus (NLTK data), which no scenario of the benchmark uses.

    python scripts/dp_prompt/dp_prompt_logits.py --paragraphs 16 --tokens 48 [--policy sft] [--json out.json]

For every generated step (plain sampling at T = 1, no clip) it records the largest logit, the 2nd, 5th, 20th and
100th largest, and percentiles of the whole vocabulary; it prints their quantiles over steps, and for a few
candidate ranges [b_lo, b_hi] how often the top token is clipped (tied with others above b_hi) and the share of
probability mass the floor (every token at or below b_lo) gets at the temperatures of a range of ε.
"""

from __future__ import annotations

import argparse
import json

import numpy as np


def brown_paragraphs(count: int, min_words: int = 60, max_words: int = 160) -> list[str]:
    import nltk

    paragraphs = []
    for paragraph in nltk.corpus.brown.paras():
        words = [w for sentence in paragraph for w in sentence]
        if min_words <= len(words) <= max_words:
            text = " ".join(words).replace(" ,", ",").replace(" .", ".").replace("`` ", '"').replace(" ''", '"')
            paragraphs.append(text)
        if len(paragraphs) >= count * 20:
            break
    rng = np.random.default_rng(0)
    return [paragraphs[i] for i in sorted(rng.choice(len(paragraphs), count, replace=False))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paragraphs", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=48)
    parser.add_argument("--policy", default="sft", choices=("sft", "dpo"))
    parser.add_argument("--max-tokens", type=int, default=128, help="m, for the temperatures of the ε printed")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    import torch

    from authorguard.neural.dp_prompt import DPPromptRewriter
    from authorguard.neural.tarot.prompts import render_prompt

    rewriter = DPPromptRewriter(None, args.policy)
    model, tokenizer = rewriter.loader()
    prompts = [render_prompt(tokenizer, rewriter.policy.instruction, p) for p in brown_paragraphs(args.paragraphs)]
    steps = []
    torch.manual_seed(0)
    with torch.inference_mode():
        for begin in range(0, len(prompts), 8):
            batch = tokenizer(prompts[begin : begin + 8], return_tensors="pt", padding=True, add_special_tokens=False)
            out = model.generate(
                **batch,
                do_sample=True,
                temperature=1.0,
                top_k=0,
                top_p=1.0,
                max_new_tokens=args.tokens,
                output_scores=True,
                return_dict_in_generate=True,
                pad_token_id=tokenizer.pad_token_id,
            )
            live = torch.ones(len(batch["input_ids"]), dtype=torch.bool)
            for position, scores in enumerate(out.scores):  # raw logits: no processor was given
                scores = scores.float()[live]
                if len(scores):
                    top = scores.topk(100, dim=-1).values
                    quantiles = torch.quantile(scores, torch.tensor([0.5, 0.99, 0.999]), dim=-1).T
                    steps.extend(
                        np.concatenate(
                            [
                                top[:, [0, 1, 4, 19, 99]].numpy(),
                                quantiles.numpy(),
                                scores.min(-1).values[:, None].numpy(),
                            ],
                            axis=1,
                        )
                    )
                live &= out.sequences[:, batch["input_ids"].shape[1] + position] != tokenizer.eos_token_id
    steps = np.array(steps)
    names = ["top1", "top2", "top5", "top20", "top100", "median", "p99", "p99.9", "min"]
    summary = {
        name: {f"q{q}": round(float(np.quantile(steps[:, i], q / 100)), 2) for q in (5, 25, 50, 75, 95)}
        for i, name in enumerate(names)
    }
    print(f"{len(steps)} generated steps on {len(prompts)} Brown paragraphs, policy {args.policy}")
    for name, row in summary.items():
        print(f"  {name:>7}: " + "  ".join(f"{k} {v:7.2f}" for k, v in row.items()))
    vocabulary = len(tokenizer)
    candidates = []
    for low, high in ((0.0, 20.0), (5.0, 20.0), (5.0, 25.0), (10.0, 25.0), (-1.0, 1.0)):
        clipped_top = float(np.mean(steps[:, 1] >= high))  # the 2nd logit reaches b_hi: the top is tied
        row = {"clip": [low, high], "top_tied_share": round(clipped_top, 3)}
        for epsilon in (300, 1000, 3000, 10000, 30000):
            temperature = 2 * (high - low) * args.max_tokens / epsilon
            # mass of the floor relative to one token at b_hi: an upper bound on how much of each draw is noise
            row[f"floor_vs_top@eps={epsilon}"] = round(float(vocabulary * np.exp(-(high - low) / temperature)), 4)
        candidates.append(row)
        print(
            f"  clip [{low}, {high}]: top tied on {clipped_top:.1%} of steps; vocabulary x e^(-(b_hi-b_lo)/T) at "
            + ", ".join(f"ε={e}: {row[f'floor_vs_top@eps={e}']:.3g}" for e in (300, 1000, 3000, 10000, 30000))
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "steps": len(steps),
                    "prompts": len(prompts),
                    "policy": args.policy,
                    "quantiles": summary,
                    "vocabulary": vocabulary,
                    "candidates": candidates,
                },
                handle,
                indent=1,
            )


if __name__ == "__main__":
    main()
