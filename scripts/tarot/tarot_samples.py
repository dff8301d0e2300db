"""Sample rewrites like TAROT's Table 3: a few test documents of a benchmark scenario, rewritten by the zero-shot
model, the SFT policy and TAROT-DPO, each with its reward components (utility = MiniLM cosine, privacy = 1 - author
embedding cosine). Prints Markdown.

Usage:  python scripts/tarot/tarot_samples.py --model runs/tarot [--scenario BAC-10] [-n 4] [--max-words 70] [--seed 0]
"""

from __future__ import annotations

import argparse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="TAROT model folder (default: the packaged policy).")
    parser.add_argument("--scenario", default="BAC-10")
    parser.add_argument("-n", type=int, default=4, help="Documents (the first test documents of distinct authors).")
    parser.add_argument("--max-words", type=int, default=70, help="Only documents this short (readable samples).")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from authorguard import registry
    from authorguard.data import load_dataset
    from authorguard.data.splits import SCENARIOS
    from authorguard.neural.tarot.config import RewardConfig
    from authorguard.neural.tarot.reward import ObfuscationReward

    scenario = SCENARIOS[args.scenario].with_seed(0)
    corpus = scenario.selection.select(load_dataset(scenario.dataset))
    picked, authors = [], set()
    for text, author, split in zip(corpus.texts, corpus.authors, corpus.splits):
        if split == "test" and author not in authors and 15 <= len(text.split()) <= args.max_words:
            picked.append(text)
            authors.add(author)
        if len(picked) == args.n:
            break
    reward = ObfuscationReward(RewardConfig())
    rows = {
        "zero-shot": registry.methods.get("zero-shot-rewrite")(random_state=args.seed),
        "SFT": registry.methods.get("tarot-sft")(model=args.model, random_state=args.seed),
        "TAROT-DPO": registry.methods.get("tarot")(model=args.model, random_state=args.seed),
    }
    outputs = {name: method.fit().obfuscate(picked) for name, method in rows.items()}
    for index, original in enumerate(picked):
        print(f"\n**{args.scenario} test document {index + 1}**\n")
        print("| version | text | utility | privacy |\n|---|---|---|---|")
        print(f"| original | {_cell(original)} | | |")
        for name, texts in outputs.items():
            score = reward([original], [texts[index]])
            print(f"| {name} | {_cell(texts[index])} | {score.utility[0]:.2f} | {score.privacy[0]:.2f} |")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


if __name__ == "__main__":
    main()
