"""What a device call carries, and a slim working tree for one call.

A device call (the ``device`` tool's ``run``) copies the checkout's tracked files, its untracked files that git
does not ignore, and the ignored paths named in ``carry``: 64 MiB at most. This repository's tracked files alone
are ~81 MiB (the packaged adapters and A4NT generator, artifacts/, docs/), so a call that needs a model and data of
its own first takes the files it does not need out of the index — on disk nothing changes — and ignores them in
``.git/info/exclude``; ``restore`` puts the index and the exclude file back exactly as they were.

Usage (repository root):
    python scripts/device/travel.py size [--carry runs/issue69/carry]
    python scripts/device/travel.py slim --keep src scripts/benchmark/attributor_gpu.py pyproject.toml \
        --max-file-kib 1024 --carry runs/issue69/carry      # then the device call, then at once:
    python scripts/device/travel.py restore

Never commit while slim: ``slim`` refuses to run twice, and ``restore`` is the only way back.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

LIMIT_MIB = 64.0
BEGIN, END = "# travel.py slim: begin", "# travel.py slim: end"


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, check=True).stdout


def _git_dir(root: Path) -> Path:
    return (root / _git(root, "rev-parse", "--git-dir").decode().strip()).resolve()


def travelling_files(root: Path) -> list[str]:
    """Paths a call copies from the checkout: tracked (in the index) and untracked files git does not ignore."""
    listed = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split(b"\0")
    return sorted({os.fsdecode(p) for p in listed if p})


def _size(path: Path) -> int:
    if path.is_symlink():
        return 0  # a link travels as a link
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
    return 0


def travelling_bytes(root: Path, carry: list[str]) -> tuple[int, int]:
    """(bytes of the checkout's travelling files, bytes of the carried paths)."""
    tree = sum(_size(root / p) for p in travelling_files(root))
    return tree, sum(_size(root / p) for p in carry)


def _escape(path: str) -> str:
    """``path`` as a gitignore pattern that matches it alone, anchored at the root."""
    special = set("*?[]\\!# ")
    return "/" + "".join("\\" + c if c in special else c for c in path)


def slim(root: Path, keep: list[str], max_file_bytes: int | None) -> list[str]:
    """Take every tracked file outside ``keep`` (path prefixes), or larger than ``max_file_bytes``, out of the
    index and ignore it; returns the paths taken out. The index is saved first for :func:`restore`."""
    backup = _git_dir(root) / "travel-index"
    if backup.exists():
        raise SystemExit(f"already slim ({backup} exists): run 'travel.py restore' first")
    prefixes = [k.rstrip("/") for k in keep]
    tracked = [os.fsdecode(p) for p in _git(root, "ls-files", "-z", "--cached").split(b"\0") if p]

    def kept(path: str) -> bool:
        inside = any(path == k or path.startswith(k + "/") for k in prefixes)
        return inside and (max_file_bytes is None or _size(root / path) <= max_file_bytes)

    dropped = [p for p in tracked if not kept(p)]
    shutil.copy2(_git_dir(root) / "index", backup)
    exclude = _git_dir(root) / "info" / "exclude"
    exclude.parent.mkdir(exist_ok=True)
    before = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    (_git_dir(root) / "travel-exclude").write_text(before, encoding="utf-8")
    if dropped:
        _git(
            root,
            "rm",
            "--cached",
            "-q",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            "--",
            stdin=b"\0".join(os.fsencode(":(literal)" + p) for p in dropped),
        )
    block = "\n".join([BEGIN, *(_escape(p) for p in dropped), END])
    exclude.write_text(before + ("" if before.endswith("\n") or not before else "\n") + block + "\n", encoding="utf-8")
    return dropped


def restore(root: Path) -> None:
    """Put back the index and ``.git/info/exclude`` that :func:`slim` saved."""
    git_dir = _git_dir(root)
    backup, saved_exclude = git_dir / "travel-index", git_dir / "travel-exclude"
    if not backup.exists():
        raise SystemExit("not slim: nothing to restore")
    shutil.copy2(backup, git_dir / "index")
    (git_dir / "info" / "exclude").write_text(saved_exclude.read_text(encoding="utf-8"), encoding="utf-8")
    backup.unlink()
    saved_exclude.unlink()


def _report(root: Path, carry: list[str]) -> bool:
    tree, carried = travelling_bytes(root, carry)
    total = (tree + carried) / 2**20
    print(
        f"travels: checkout {tree / 2**20:.1f} MiB + carried {carried / 2**20:.1f} MiB = {total:.1f} MiB "
        f"(limit {LIMIT_MIB:.0f} MiB)"
    )
    return total <= LIMIT_MIB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    size = commands.add_parser("size", help="what a call would carry now")
    size.add_argument("--carry", nargs="*", default=[])
    thin = commands.add_parser("slim", help="keep only what a call needs in the index")
    thin.add_argument("--keep", nargs="+", required=True, help="path prefixes to keep (files or folders)")
    thin.add_argument("--max-file-kib", type=float, default=None, help="drop kept files larger than this")
    thin.add_argument("--carry", nargs="*", default=[])
    commands.add_parser("restore", help="undo slim")
    args = parser.parse_args(argv)
    root = Path(_git(Path.cwd(), "rev-parse", "--show-toplevel").decode().strip())
    if args.command == "restore":
        restore(root)
        print("restored the index and .git/info/exclude")
        return 0
    if args.command == "slim":
        limit = None if args.max_file_kib is None else int(args.max_file_kib * 1024)
        dropped = slim(root, args.keep, limit)
        print(f"slim: {len(dropped)} tracked files out of the index (on disk as before); undo: travel.py restore")
        if not _report(root, args.carry):
            restore(root)
            print("over the limit: restored", file=sys.stderr)
            return 1
        return 0
    return 0 if _report(root, args.carry) else 1


if __name__ == "__main__":
    sys.exit(main())
