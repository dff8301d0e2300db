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
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

LIMIT_MIB = 64.0
BEGIN, END = "# travel.py slim: begin", "# travel.py slim: end"


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, check=True).stdout


def _git_path(root: Path, name: str) -> Path:
    """Where git keeps ``name`` for this checkout (a linked worktree's index is its own, info/exclude is shared)."""
    return (root / _git(root, "rev-parse", "--git-path", name).decode().strip()).resolve()


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


def _state(root: Path) -> dict[str, Path]:
    return {
        "index": _git_path(root, "index"),
        "exclude": _git_path(root, "info/exclude"),
        "saved_index": _git_path(root, "travel-index"),  # also the mark of a slim checkout
        "saved_exclude": _git_path(root, "travel-exclude"),  # "" when there was no exclude file
        "slim_state": _git_path(root, "travel-state"),  # HEAD and the slim index's bytes, checked by restore
    }


def slim(root: Path, keep: list[str], max_file_bytes: int | None) -> list[str]:
    """Take every tracked file outside ``keep`` (path prefixes), or larger than ``max_file_bytes``, out of the
    index and ignore it; returns the paths taken out. The index and the exclude file are saved first for
    :func:`restore`; a failure part-way restores them at once."""
    paths = _state(root)
    if paths["saved_index"].exists():
        raise SystemExit(f"already slim ({paths['saved_index']} exists): run 'travel.py restore' first")
    prefixes = [k.rstrip("/") for k in keep]
    tracked = [os.fsdecode(p) for p in _git(root, "ls-files", "-z", "--cached").split(b"\0") if p]

    def kept(path: str) -> bool:
        inside = any(path == k or path.startswith(k + "/") for k in prefixes)
        return inside and (max_file_bytes is None or _size(root / path) <= max_file_bytes)

    dropped = [p for p in tracked if not kept(p)]
    exclude = paths["exclude"]
    before = exclude.read_bytes() if exclude.exists() else None
    # the saved exclude file: a first byte says whether there was one, so restore puts back exactly that
    paths["saved_exclude"].write_bytes(b"-" if before is None else b"+" + before)
    shutil.copy2(paths["index"], paths["saved_index"])  # from here on the checkout counts as slim
    try:
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
        block = "\n".join([BEGIN, *(_escape(p) for p in dropped), END]).encode()
        text = before or b""
        exclude.parent.mkdir(parents=True, exist_ok=True)
        exclude.write_bytes(text + (b"" if text.endswith(b"\n") or not text else b"\n") + block + b"\n")
        head = _git(root, "rev-parse", "HEAD").strip()
        paths["slim_state"].write_bytes(head + b"\n" + hashlib.sha256(paths["index"].read_bytes()).hexdigest().encode())
    except BaseException:
        restore(root, force=True)
        raise
    return dropped


def restore(root: Path, force: bool = False) -> None:
    """Put back the index and the exclude file that :func:`slim` saved, byte for byte. Refused (unless ``force``)
    when a commit was made or the index changed while slim: restoring would undo that work in the index."""
    paths = _state(root)
    if not paths["saved_index"].exists():
        raise SystemExit("not slim: nothing to restore")
    if not force and paths["slim_state"].exists():
        head, digest = paths["slim_state"].read_bytes().split(b"\n")
        if _git(root, "rev-parse", "HEAD").strip() != head:
            raise SystemExit("HEAD moved while slim (a commit?): check it, then 'travel.py restore --force'")
        if hashlib.sha256(paths["index"].read_bytes()).hexdigest().encode() != digest:
            raise SystemExit("the index changed while slim (something staged?): 'travel.py restore --force' drops it")
    shutil.copy2(paths["saved_index"], paths["index"])
    if paths["saved_exclude"].exists():
        saved = paths["saved_exclude"].read_bytes()
        if saved[:1] == b"+":
            paths["exclude"].write_bytes(saved[1:])
        elif paths["exclude"].exists():
            paths["exclude"].unlink()
        paths["saved_exclude"].unlink()
    paths["saved_index"].unlink()
    paths["slim_state"].unlink(missing_ok=True)


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
    back = commands.add_parser("restore", help="undo slim")
    back.add_argument("--force", action="store_true", help="restore even if HEAD or the index changed while slim")
    args = parser.parse_args(argv)
    root = Path(_git(Path.cwd(), "rev-parse", "--show-toplevel").decode().strip())
    if args.command == "restore":
        restore(root, force=args.force)
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
