"""What a reader of each DP release sees at equal document-level ε: one document of a benchmark scenario, its
DP-Prompt paraphrase and its SynTF bag of words (first words) at each ε (docs/results/dp-rewriting.md).

    python scripts/dp_prompt/dp_samples.py --scenario BAC-10 --epsilon 1000 3000 10000 30000 [--documents 1] [--seed 0]

The document is the first test document of a seeded choice in the scenario's test split (split seed 0). DP-Prompt
uses the method's defaults (relative clip [-8, 0], m = 128, the packaged SFT policy); SynTF n = 150, s = 0, its
ε calibrated so that l·n equals the document ε.
"""

from __future__ import annotations

import argparse

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="BAC-10")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1000.0, 3000.0, 10000.0, 30000.0])
    parser.add_argument("--documents", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bag-words", type=int, default=40, help="SynTF words shown per release")
    args = parser.parse_args()

    from authorguard.data import load_dataset
    from authorguard.data.splits import SCENARIOS
    from authorguard.methods.dp_prompt import DPPrompt
    from authorguard.methods.syntf import SynTF

    scenario = SCENARIOS[args.scenario]
    corpus = scenario.selection.select(load_dataset(scenario.dataset))
    test = np.flatnonzero(np.asarray(corpus.splits, dtype=object) == "test")
    chosen = np.sort(np.random.default_rng(args.seed).choice(test, args.documents, replace=False))
    texts = [corpus.texts[i] for i in chosen]
    syntf = SynTF(n_words=150, bigram_weight=0.0, random_state=args.seed).fit(corpus.split("train").texts)
    for index, text in zip(chosen, texts):
        print(
            f"## {args.scenario} test document {corpus.ids[index]} ({len(text.split())} words)\n\n> "
            f"{' '.join(text.split())}\n"
        )
        for epsilon in args.epsilon:
            paraphrase = DPPrompt(epsilon=epsilon, random_state=args.seed).fit().obfuscate([text])[0]
            syntf.calibrate(epsilon / syntf.n_words)
            counts = syntf.transform_records([text], [corpus.ids[index]], seed=args.seed)
            bag = " ".join(w for w, c in syntf.inverse_words(counts, 0, top=args.bag_words) for _ in range(c))
            print(
                f"**ε = {epsilon:,.0f}** — DP-Prompt: {paraphrase}\n\nSynTF (l = {epsilon / syntf.n_words:.3g} per "
                "word; most "
                f"frequent of its 150 words): {bag}\n"
            )


if __name__ == "__main__":
    main()
