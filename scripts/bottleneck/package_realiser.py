"""Ship a trained realiser inside the models distribution (``models/src/authorguard_models/realiser``), with its
provenance:
``bottleneck`` then works with no ``model``.

    python scripts/bottleneck/package_realiser.py runs/realiser --command "python scripts/bottleneck/train_realiser.py
    runs/realiser"
    python scripts/bottleneck/package_realiser.py runs/realiser-roles --roles --command "..."   # -> realiser_roles

Copied: the LoRA adapter (adapter_config.json, adapter_model.safetensors) and realiser.json (configs, tokenizer
signature, data counts, the loss every logged step, held-out loss) plus provenance.json (command, commit, machine,
date); never the pairs or trainer checkpoints.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import shutil
import subprocess
from pathlib import Path

ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors")
MODELS = Path(__file__).resolve().parents[2] / "models" / "src" / "authorguard_models"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--command", required=True, help="the command that trained the folder")
    parser.add_argument("--seconds", type=float, default=None, help="the training's wall-clock seconds")
    parser.add_argument("--roles", action="store_true", help="ship it as the roles realiser (realiser_roles)")
    args = parser.parse_args()
    PACKAGED = MODELS / ("realiser_roles" if args.roles else "realiser")
    record = json.loads((args.folder / "realiser.json").read_text(encoding="utf-8"))
    if not record.get("done"):
        raise SystemExit(f"{args.folder}: training is not done")
    shutil.rmtree(PACKAGED, ignore_errors=True)
    (PACKAGED / "adapter").mkdir(parents=True)
    for name in ADAPTER_FILES:
        shutil.copy2(args.folder / "adapter" / name, PACKAGED / "adapter" / name)
    record["history"] = [
        {k: v for k, v in e.items() if k in ("step", "loss", "learning_rate", "train_runtime")}
        for e in record.get("history", [])
    ]
    (PACKAGED / "realiser.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    provenance = {
        "command": args.command,
        "commit": commit,
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, torch CPU",
        "train_seconds": args.seconds,
    }
    (PACKAGED / "provenance.json").write_text(json.dumps(provenance, indent=2), encoding="utf-8")
    size = sum(p.stat().st_size for p in PACKAGED.rglob("*") if p.is_file())
    print(f"packaged {args.folder} into {PACKAGED} ({size / 1e6:.1f} MB); now: python scripts/models/checksums.py")


if __name__ == "__main__":
    main()
