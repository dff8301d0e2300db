"""The reward ablation of TAROT (the paper's Table 7): mean author similarity and utility similarity of each policy's
rewrites of held-out prompts, for the full reward and with one term off, for DPO and PPO.

Each policy rewrites the same ``--prompts`` held-out prompts (the monitor's range: right after the preference /
PPO prompts, never trained on), one sample each at the training temperature (1.0, top-p 1.0), seed ``--seed``.
Author similarity = cos(A(x), A(y)) with the reward's author encoder (the paper: LUAR), utility similarity =
MiniLM cosine (the paper: GTE); both with the full reward, whatever the policy was trained on. Also printed: the
SFT policy they all start from, mean new tokens, and the share of near-copies (≥ 60 % of word bigrams in the input).

The PPO arms may come from their own full-reward folder (``--ppo-full``: the ablation's PPO setting differs from
the shipped PPO policy's); the ``--full`` folder's PPO policy is then listed too.

Usage:  python scripts/tarot/tarot_ablation.py --full runs/tarot --ppo-full runs/tarot-ppo-strong \
            --no-privacy runs/tarot-no-privacy --no-utility runs/tarot-no-utility [--prompts 48] [--json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json

import numpy as np


def _copy_share(original: str, rewrite: str) -> float:
    words = rewrite.lower().split()
    source = original.lower().split()
    bigrams = set(zip(words, words[1:]))
    return len(bigrams & set(zip(source, source[1:]))) / max(len(bigrams), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", required=True, help="TAROT folder trained on the full reward (sft, prefs, dpo, ppo).")
    parser.add_argument("--ppo-full", help="TAROT folder of the full-reward PPO arm (default: --full).")
    parser.add_argument("--no-privacy", required=True, help="Branch trained without the privacy reward.")
    parser.add_argument("--no-utility", required=True, help="Branch trained without the utility reward.")
    parser.add_argument("--prompts", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="Write the table as JSON here too.")
    parser.add_argument(
        "--plot",
        help="Also draw the arms' training monitors (author and utility similarity by step) "
        "to this PNG, and stop (nothing is generated).",
    )
    args = parser.parse_args()
    from authorguard.neural.tarot.config import PromptConfig, RewardConfig
    from authorguard.neural.tarot.data import training_prompts
    from authorguard.neural.tarot.folder import TarotFolder
    from authorguard.neural.tarot.policy import PolicyLoader, generate
    from authorguard.neural.tarot.prompts import clean_rewrite, render_prompt
    from authorguard.neural.tarot.reward import ObfuscationReward

    full = TarotFolder(args.full)
    if args.plot:
        _plot(args, TarotFolder)
        return
    policy = full.policy_config()
    used = PromptConfig.from_dict(full.read_record("prefs")["config"]["prompts"])
    held_out = dataclasses.replace(used, prompts=args.prompts, offset=used.offset + used.prompts)
    tokenizer = PolicyLoader().tokenizer
    count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
    texts = training_prompts(held_out, count, policy.max_chunk_tokens).texts
    rendered = [render_prompt(tokenizer, policy.instruction, t) for t in texts]
    reward = ObfuscationReward(RewardConfig())
    ppo_full = TarotFolder(args.ppo_full) if args.ppo_full else full
    arms = [
        ("SFT (start)", full, "sft"),
        ("DPO, full reward", full, "dpo"),
        ("PPO, full reward", ppo_full, "ppo"),
        ("DPO, no privacy", TarotFolder(args.no_privacy), "dpo"),
        ("PPO, no privacy", TarotFolder(args.no_privacy), "ppo"),
        ("DPO, no utility", TarotFolder(args.no_utility), "dpo"),
        ("PPO, no utility", TarotFolder(args.no_utility), "ppo"),
    ]
    if args.ppo_full:
        arms.insert(2, (f"PPO, full reward ({full.path})", full, "ppo"))
    rows = []
    print(
        f"{len(texts)} held-out prompts (offset {held_out.offset}), one sample each, T 1.0, top-p 1.0, seed "
        f"{args.seed}\n"
    )
    print("| policy | author similarity | utility similarity | R | new tokens | near-copies | tokens/s |")
    print("|---|---|---|---|---|---|---|")
    for name, folder, stage in arms:
        if not folder.done(stage):
            print(f"| {name} | (stage {stage} not done in {folder.path}) | | | | | |")
            continue
        model, tok = PolicyLoader(folder.adapters(stage))()
        out = generate(
            model,
            tok,
            rendered,
            max_new_tokens=policy.max_new_tokens,
            seed=args.seed,
            temperature=1.0,
            top_p=1.0,
            batch_size=16,
        )
        rewrites = [clean_rewrite(t) for t in out.texts]
        scores = reward(texts, rewrites)
        row = {
            "policy": name,
            "folder": str(folder.path),
            "stage": stage,
            "author_similarity": float(np.mean(1.0 - scores.privacy)),
            "utility_similarity": float(np.mean(scores.utility)),
            "reward": float(np.mean(scores.total)),
            "new_tokens": float(np.mean(out.new_tokens)),
            "near_copies": float(np.mean([_copy_share(t, r) >= 0.6 for t, r in zip(texts, rewrites)])),
            "tokens_per_second": round(out.tokens_per_second, 1),
        }
        rows.append(row)
        print(
            f"| {name} | {row['author_similarity']:.3f} | {row['utility_similarity']:.3f} | {row['reward']:.3f} | "
            f"{row['new_tokens']:.1f} | {row['near_copies']:.2f} | {row['tokens_per_second']} |",
            flush=True,
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(
                {"prompts": len(texts), "offset": held_out.offset, "seed": args.seed, "rows": rows}, handle, indent=2
            )


def _plot(args, TarotFolder) -> None:
    """Held-out monitor of each arm during training: author similarity (1 − R_priv) and utility similarity."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ppo_full = args.ppo_full or args.full
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    for axis, stage, full in ((axes[0], "dpo", args.full), (axes[1], "ppo", ppo_full)):
        for label, folder, colour in (
            ("full reward", full, "C0"),
            ("no privacy", args.no_privacy, "C1"),
            ("no utility", args.no_utility, "C2"),
        ):
            monitor = TarotFolder(folder).read_record(stage).get("monitor", [])
            steps = [m["step"] for m in monitor]
            axis.plot(
                steps, [1 - m["privacy"] for m in monitor], marker="o", color=colour, label=f"{label}: author sim."
            )
            axis.plot(
                steps,
                [m["utility"] for m in monitor],
                marker="s",
                linestyle="--",
                color=colour,
                label=f"{label}: utility sim.",
            )
        axis.set(
            title=f"{stage.upper()} arms: held-out rewrites (16 prompts)",
            xlabel="optimiser step" if stage == "dpo" else "PPO step",
            ylabel="cosine",
        )
        axis.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(args.plot, dpi=110)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
