"""Train (or resume) the style bottleneck's realiser into a folder.

    python scripts/bottleneck/train_realiser.py runs/realiser --pairs 6000 --held-out 200
    python scripts/bottleneck/train_realiser.py runs/realiser-roles --roles --pairs 2500 --held-out 200

Stages resume: run the same command again after a stop. The adapter lands in FOLDER/adapter; package it with
scripts/bottleneck/package_realiser.py.
"""

from __future__ import annotations

import argparse
import time

from authorguard.neural.realiser.config import ROLES_INSTRUCTION, ROLES_VIEW_WORDS, RealiserConfig, TrainingConfig
from authorguard.neural.realiser.trainer import train_realiser


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--pairs", type=int, default=TrainingConfig.pairs)
    parser.add_argument("--held-out", type=int, default=TrainingConfig.held_out)
    parser.add_argument("--epochs", type=int, default=TrainingConfig.epochs)
    parser.add_argument("--batch-size", type=int, default=TrainingConfig.batch_size)
    parser.add_argument("--learning-rate", type=float, default=TrainingConfig.learning_rate)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--levels",
        nargs="+",
        metavar="LEVEL=SHARE",
        help="view levels and their shares (default: content=0.5 lemma=0.2 canonical=0.2 bag=0.1)",
    )
    parser.add_argument(
        "--roles",
        action="store_true",
        help="the roles realiser: roles views only (unless --levels), its instruction, chunks of up to 32 view words",
    )
    args = parser.parse_args()
    levels = (
        {k: float(v) for k, v in (item.split("=", 1) for item in args.levels)}
        if args.levels
        else {"roles": 1.0}
        if args.roles
        else TrainingConfig().levels
    )
    training = TrainingConfig(
        pairs=args.pairs,
        held_out=args.held_out,
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        seed=args.seed,
        levels=levels,
    )
    config = (
        RealiserConfig(ordered_instruction=ROLES_INSTRUCTION, max_view_words=ROLES_VIEW_WORDS)
        if args.roles
        else RealiserConfig()
    )
    start = time.time()
    record = train_realiser(
        args.folder, config, training, progress=lambda m: print(f"[{time.time() - start:7.0f} s] {m}", flush=True)
    )
    print({k: record.get(k) for k in ("data", "held_out_loss")})
    print(f"done in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
