"""Rewrite the frozen held-out passages (issue 65) with a method and keep its outputs, or draw the blind set.

    python scripts/faithful/heldout_outputs.py rewrite bottleneck -o
    docs/results/faithful/heldout/outputs-bottleneck.jsonl
    python scripts/faithful/heldout_outputs.py blind A.jsonl B.jsonl ... --parts 3 -o
    docs/results/faithful/heldout/blind
    python scripts/faithful/heldout_outputs.py --set docs/results/faithful/heldout-2 rewrite bottleneck -o ...

``--set``: the frozen set's folder (default the first, ``docs/results/faithful/heldout``); a method may carry its
parameters after ``@`` (``generalise@level=vague-2000``).

``rewrite``: every passage of ``passages.jsonl`` through ``authorguard.obfuscate`` (seed 0), one row per passage
``{"item", "method", "text", "status", "reason", "fidelity", "fidelity_reason"}``, and the speed (output words/s).
``blind``: the outputs of the given files shuffled together (seed 65) and cut into ``--parts`` files
``part-K.jsonl`` of ``{"id", "input", "output"}`` for annotators who see neither method nor key; ``key.jsonl`` holds
``{"id", "item", "method"}``. Withheld outputs are left out (not labelled).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

HELD_OUT = Path("docs/results/faithful/heldout")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def rewrite(method: str, output: Path, held_out: Path = HELD_OUT) -> None:
    import authorguard

    passages = _rows(held_out / "passages.jsonl")
    start = time.time()
    name, _, spec = method.partition("@")  # "generalise@level=vague-2000": a method with its parameters
    params = dict(part.split("=", 1) for part in spec.split(";") if part) if spec else None
    released = authorguard.obfuscate([p["input"] for p in passages], method=name, seed=0, params=params)
    seconds = time.time() - start
    words = sum(len((r.text or "").split()) for r in released)
    output.write_text(
        "".join(
            json.dumps(
                {
                    "item": p["item"],
                    "method": method,
                    "text": r.text,
                    "status": r.status,
                    "reason": r.reason,
                    "fidelity": r.fidelity,
                    "fidelity_reason": r.fidelity_reason,
                },
                ensure_ascii=False,
            )
            + "\n"
            for p, r in zip(passages, released)
        ),
        encoding="utf-8",
    )
    print(f"{method}: {len(released)} passages, {words / seconds:.0f} output words/s (load included) -> {output}")


def blind(files: list[Path], parts: int, folder: Path, held_out: Path = HELD_OUT) -> None:
    passages = {p["item"]: p["input"] for p in _rows(held_out / "passages.jsonl")}
    rows = [r for f in files for r in _rows(f) if r.get("text")]
    order = np.random.default_rng(65).permutation(len(rows))
    folder.mkdir(parents=True, exist_ok=True)
    key = []
    for part in range(parts):
        chosen = order[part::parts]
        lines = []
        for index in chosen:
            row = rows[int(index)]
            identifier = f"o{int(index):04d}"
            lines.append({"id": identifier, "input": passages[row["item"]], "output": row["text"]})
            key.append({"id": identifier, "item": row["item"], "method": row["method"], "part": part})
        (folder / f"part-{part}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8"
        )
    (folder / "key.jsonl").write_text("".join(json.dumps(r) + "\n" for r in key), encoding="utf-8")
    print(f"{len(rows)} outputs in {parts} parts -> {folder}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=HELD_OUT, help="the frozen set's folder")
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("rewrite")
    one.add_argument("method")
    one.add_argument("-o", "--output", type=Path, required=True)
    many = commands.add_parser("blind")
    many.add_argument("files", type=Path, nargs="+")
    many.add_argument("--parts", type=int, default=3)
    many.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "rewrite":
        rewrite(args.method, args.output, args.set)
    else:
        blind(args.files, args.parts, args.output, args.set)


if __name__ == "__main__":
    main()
