"""How many preference pairs Algorithm 1 keeps at other thresholds, from a TAROT folder's stored preference-stage
generations (nothing is sampled again: the prompts, seed and temperature are those of the folder's prefs record).

Usage:  python scripts/tarot/tarot_thresholds.py runs/tarot
"""

from __future__ import annotations

import argparse
import itertools
import json

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="A TAROT folder whose prefs stage has sampled its generations.")
    args = parser.parse_args()
    from authorguard.neural.tarot.config import PreferenceConfig, RewardConfig
    from authorguard.neural.tarot.data import training_prompts
    from authorguard.neural.tarot.dpo import sample_preference_rewrites
    from authorguard.neural.tarot.folder import TarotFolder
    from authorguard.neural.tarot.policy import PolicyLoader
    from authorguard.neural.tarot.reward import ObfuscationReward

    folder = TarotFolder(args.model)
    folder.require("prefs", "counting pairs")
    policy = folder.policy_config()
    config = PreferenceConfig.from_dict(json.loads(folder.record_file("prefs").read_text(encoding="utf-8"))["config"])
    loader = PolicyLoader(folder.adapters("sft"))
    count = lambda text: len(loader.tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
    prompts = training_prompts(config.prompts, count, policy.max_chunk_tokens)
    # the stored blocks are read back; a missing block would be sampled (the prefs stage's own call)
    samples = sample_preference_rewrites(folder, policy, config, prompts.texts, loader)
    reward = ObfuscationReward(RewardConfig())
    left = reward(prompts.texts, [pair[0] for pair in samples.texts])
    right = reward(prompts.texts, [pair[1] for pair in samples.texts])
    utility_gap, privacy_gap = left.utility - right.utility, left.privacy - right.privacy
    print(
        f"{len(prompts.texts)} prompts; correlation of the utility and privacy differences: "
        f"{np.corrcoef(utility_gap, privacy_gap)[0, 1]:.2f}"
    )
    print(
        "|ΔR_util| quantiles 10/25/50/75/90 %:",
        np.round(np.quantile(np.abs(utility_gap), [0.1, 0.25, 0.5, 0.75, 0.9]), 3),
    )
    print(
        "|ΔR_priv| quantiles 10/25/50/75/90 %:",
        np.round(np.quantile(np.abs(privacy_gap), [0.1, 0.25, 0.5, 0.75, 0.9]), 3),
    )
    print("\n| ε_util | ε_priv | pairs kept |\n|---|---|---|")
    for epsilon_utility, epsilon_privacy in itertools.product((0.05, 0.10, 0.15, 0.20), (0.05, 0.10)):
        kept = int(((np.abs(utility_gap) < epsilon_utility) & (np.abs(privacy_gap) > epsilon_privacy)).sum())
        print(f"| {epsilon_utility:.2f} | {epsilon_privacy:.2f} | {kept} |")


if __name__ == "__main__":
    main()
