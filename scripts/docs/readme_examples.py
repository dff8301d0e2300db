"""The README's example outputs against what its commands print: run every use case as written, in a fresh folder,
and compare each ```text block with the standard output of the ```bash or ```python block before it.

    python scripts/docs/readme_examples.py            # check: exit 1 with the drifted lines
    python scripts/docs/readme_examples.py --write    # regenerate the README's text blocks from the outputs

The commands run in a temporary folder after the README's own data commands (the `datasets export` lines of "Try
them"), with the install and data folder this shell has (the README's set-up line). An expected line matches an
output line that is equal to it once timings are masked, or that starts with it when it ends in "..." (a long line
shown cut); the expected lines must appear in the output in order, other output lines between them allowed (a
block shows the head of a long output). `tests/test_readme.py` walks the same commands on tiny data.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)
#: what varies from run to run and is masked before comparing: durations ("12.3 s", "1m05s", "0:00:12")
_TIMING = re.compile(r"\b\d+(?:\.\d+)?\s?s\b|\b\d+m\d\ds\b|\b\d+:\d\d:\d\d\b")
#: the longest line a written block keeps whole; a longer one is cut and ends in "..."
WIDTH = 160
#: the lines a newly written block shows of an output (a block keeps as many lines as it had)
MOST_LINES = 3


@dataclass(frozen=True)
class Example:
    """A code block (``language`` "bash" or "python", its ``code``) and the ```text block after it (``expected``),
    with the character span of that text block's body in the README."""

    language: str
    code: str
    expected: str
    span: tuple[int, int]


def examples(readme: str) -> list[Example]:
    """Every ```bash / ```python block immediately followed (blank lines allowed) by a ```text block."""
    found = []
    blocks = list(FENCE.finditer(readme))
    for block, following in zip(blocks, blocks[1:]):
        between = readme[block.end() : following.start()]
        if block.group(1) in ("bash", "python") and following.group(1) == "text" and not between.strip():
            found.append(Example(block.group(1), block.group(2), following.group(2), following.span(2)))
    return found


def data_commands(readme: str) -> list[str]:
    """The `authorguard datasets export ...` commands the README gives to try the use cases on."""
    return re.findall(r"`(authorguard datasets export [^`]+)`", readme)


def _masked(line: str) -> str:
    return _TIMING.sub("#s", line.rstrip())


def line_matches(expected: str, actual: str) -> bool:
    expected, actual = _masked(expected), _masked(actual)
    if expected.endswith("..."):
        return actual.startswith(expected[:-3])
    return expected == actual


def drift(expected: str, actual: str) -> list[str]:
    """The expected lines not found, in order, in ``actual`` (empty: the block says what the command prints; an
    empty block shows nothing of it, and is drift)."""
    lines = actual.splitlines()
    position, missing = 0, [] if expected.strip() else ["(the block is empty)"]
    for wanted in (line for line in expected.splitlines() if line.strip()):
        for k in range(position, len(lines)):
            if line_matches(wanted, lines[k]):
                position = k + 1
                break
        else:
            missing.append(wanted)
    return missing


def shown(actual: str, most: int = MOST_LINES) -> str:
    """What a written block shows of an output: its first ``most`` non-blank lines, each cut at :data:`WIDTH`
    characters."""
    lines = [line.rstrip() for line in actual.splitlines() if line.strip()][:most]
    return "".join((line if len(line) <= WIDTH else line[: WIDTH - 3] + "...") + "\n" for line in lines)


def run(example: Example, folder: Path, env: dict) -> str:
    """The standard output of the example's commands (bash: the block as a script; python: the code), run in
    ``folder``; a failing command stops the walk with its standard error."""
    command = ["bash", "-e", "-c", example.code] if example.language == "bash" else [sys.executable, "-c", example.code]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"failed ({done.returncode}):\n{example.code}\n{done.stderr[-3000:]}")
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="Rewrite the README's text blocks from the outputs.")
    parser.add_argument("--readme", type=Path, default=README)
    options = parser.parse_args(argv)
    readme = options.readme.read_text(encoding="utf-8")
    env = {**os.environ, "COLUMNS": "120", "PYTHONUNBUFFERED": "1"}
    replacements, failures = [], 0
    with tempfile.TemporaryDirectory(prefix="readme-") as folder:
        for command in data_commands(readme):
            subprocess.run(command, shell=True, cwd=folder, env=env, check=True, capture_output=True)
        (Path(folder) / "configs").symlink_to(ROOT / "configs")  # use case 5 names the repository's configs
        for example in examples(readme):
            started = time.monotonic()
            actual = run(example, Path(folder), env)
            first = example.code.strip().splitlines()[0]
            print(f"{time.monotonic() - started:6.0f} s  {first}", file=sys.stderr)
            missing = drift(example.expected, actual)
            if missing:
                failures += 1
                print("  drifted; not printed:\n" + "".join(f"    {m}\n" for m in missing), file=sys.stderr)
                kept = sum(1 for line in example.expected.splitlines() if line.strip()) or MOST_LINES
                replacements.append((example.span, shown(actual, kept)))
    if options.write and replacements:
        for (start, end), body in sorted(replacements, reverse=True):
            readme = readme[:start] + body + readme[end:]
        options.readme.write_text(readme, encoding="utf-8")
        print(f"rewrote {len(replacements)} text blocks of {options.readme}", file=sys.stderr)
        return 0
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
