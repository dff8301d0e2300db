"""The size of what a user installs: the code's wheel (target ≤ 3 MiB) and the models' wheel, each built from this
checkout with ``pip wheel --no-deps``, and the largest files of each (prints the figures for docs/benchmarks.md).

Usage:  python benchmarks/wheel_size.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MIB = 3.0


def build(project: Path, folder: Path) -> Path:
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*command, "-w", str(folder), str(project)], check=True)
    return next(folder.glob("*.whl"))


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        for name, project in (("code", ROOT), ("models", ROOT / "models")):
            wheel = build(project, Path(scratch) / name)
            size = wheel.stat().st_size / 2**20
            with zipfile.ZipFile(wheel) as archive:
                members = sorted(archive.infolist(), key=lambda m: -m.compress_size)
            verdict = (
                f" (target ≤ {TARGET_MIB:g} MiB: {'met' if size <= TARGET_MIB else 'missed'})" if name == "code" else ""
            )
            print(f"{name}: {wheel.name} {size:.2f} MiB, {len(members)} files{verdict}")
            for member in members[:3]:
                print(f"  {member.compress_size / 2**20:6.2f} MiB  {member.filename}")


if __name__ == "__main__":
    main()
