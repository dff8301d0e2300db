"""How much of the transformer attributor's gap to TAROT's DeBERTa is training scale? (an ablation)

Fine-tunes the MiniLM attributor on BAC-10's training posts with growing budgets of training windows and reports
accuracy on a fixed seeded sample of the test posts, with wall time and windows/s.

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/benchmark/attributor_scale.py [--windows 600 2400] [--epochs 2]
        [--test 500] [--scenario BAC-10]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", default="BAC-10")
    parser.add_argument("--windows", type=int, nargs="+", default=[600, 2400])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--max-windows", type=int, default=2, help="Windows read per document.")
    parser.add_argument("--test", type=int, default=500, help="Test posts scored (a seeded sample).")
    args = parser.parse_args()
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    from authorguard.experiments.config import config_from_dict
    from authorguard.experiments.views import build_view
    from authorguard.metrics.classification import classification_scores
    from authorguard.neural.attributor.config import AttributorConfig
    from authorguard.neural.attributor.trainer import FineTunedClassifier

    config = config_from_dict({"scenarios": [args.scenario], "methods": [{"name": "original"}]})
    view = build_view(config, args.scenario)
    attack = view.attacks[0]
    texts = np.array(view.corpus.texts, dtype=object)
    test = np.sort(np.random.default_rng(0).choice(attack.test, min(args.test, len(attack.test)), replace=False))
    print(
        f"{args.scenario}: {len(attack.train)} training documents, {len(test)} of {len(attack.test)} test documents "
        "scored"
    )
    for budget in args.windows:
        model = FineTunedClassifier(
            AttributorConfig(epochs=args.epochs, max_train_windows=budget, max_windows=args.max_windows), random_state=0
        )
        started = time.perf_counter()
        model.fit(list(texts[attack.train]), attack.targets[attack.train])
        fit_seconds = time.perf_counter() - started
        started = time.perf_counter()
        scores = classification_scores(attack.targets[test], model.predict(list(texts[test])))
        print(
            f"  {budget:6d} training windows x {args.epochs} epochs: accuracy {scores['accuracy']:.3f}, macro-F1 "
            f"{scores['f1_macro']:.3f}; fit {fit_seconds:.0f} s ({budget * args.epochs / fit_seconds:.1f} windows/s), "
            f"predict {time.perf_counter() - started:.0f} s; loss {np.mean(model.losses_[:10]):.2f} -> "
            f"{np.mean(model.losses_[-10:]):.2f}"
        )


if __name__ == "__main__":
    main()
