"""Held-out loss of packaged realisers on one set of held-out pairs (issue 56: the roles realiser against the shipped
one, on the roles realiser's 200 held-out pairs — roles views, targets in the constraint's format).

    python scripts/bottleneck/held_out_loss.py runs/realiser-roles --held-out 200

Each realiser is prompted in its own format (system turn, its instruction, the view) and scored on the target's
tokens only: the mean negative log-likelihood per target token (nats), as the trainer's ``eval_loss``. The pairs
come from FOLDER/pairs.jsonl (the last ``--held-out`` rows: the validation rows of that training run).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def held_out_loss(folder: Path, rows: list[dict]) -> float:
    import torch

    from authorguard.neural.realiser.data import view_kind
    from authorguard.neural.realiser.model import Realiser

    realiser = Realiser(folder)
    model, tokenizer = realiser.loader()
    total, count = 0.0, 0
    with torch.inference_mode():
        for row in rows:
            prompt = tokenizer.apply_chat_template(
                realiser.config.messages(view_kind(row["level"]), row["view"]),
                tokenize=False,
                add_generation_prompt=True,
            )
            prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
            target_ids = tokenizer(row["text"] + "<|im_end|>", add_special_tokens=False)["input_ids"]
            ids = torch.tensor([prompt_ids + target_ids])
            logits = model(input_ids=ids).logits[0, len(prompt_ids) - 1 : -1].float()
            loss = torch.nn.functional.cross_entropy(logits, torch.tensor(target_ids), reduction="sum")
            total, count = total + float(loss), count + len(target_ids)
    return total / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="a realiser training folder (its pairs.jsonl)")
    parser.add_argument("--held-out", type=int, default=200)
    args = parser.parse_args()
    from authorguard.neural.realiser.model import PACKAGED_MIXED, PACKAGED_ROLES
    from authorguard.utils.weights import packaged_folder

    rows = [json.loads(line) for line in (args.folder / "pairs.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = rows[-args.held_out :]
    for name, folder in (("shipped (mixed levels)", PACKAGED_MIXED), ("roles", PACKAGED_ROLES)):
        loss = held_out_loss(packaged_folder(folder), rows)
        print(f"{name}: {loss:.3f} nats a target token on {len(rows)} held-out pairs")


if __name__ == "__main__":
    main()
