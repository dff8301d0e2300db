"""Write models/src/authorguard_models/checksums.json: the sha256 of every model file (run after repackaging one).

python scripts/models/checksums.py          # write it
python scripts/models/checksums.py --check  # exit 1, naming the files, when it is stale
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from authorguard.utils.weights import MODELS_CHECKSUMS, file_sha256, model_files

ROOT = Path(__file__).resolve().parents[2] / "models" / "src" / "authorguard_models"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    sums = {name: file_sha256(ROOT / name) for name in model_files(ROOT)}
    path = ROOT / MODELS_CHECKSUMS
    if args.check:
        stored = json.loads(path.read_text(encoding="utf-8"))
        stale = sorted(set(sums.items()) ^ set(stored.items()))
        if stale:
            sys.exit("stale checksums: " + ", ".join(sorted({name for name, _ in stale})))
        print(f"{len(sums)} files match {path}")
        return
    path.write_text(json.dumps(sums, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(sums)} files: {path}")


if __name__ == "__main__":
    main()
