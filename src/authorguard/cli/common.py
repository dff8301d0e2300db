"""Console, error handling and input resolution shared by the commands."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from authorguard.exceptions import AuthorguardError

console = Console(stderr=True)  # human output on stderr keeps stdout clean for --json
stdout = Console()


def fail(message: str) -> None:
    console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=2)


def handle_errors(command: Callable) -> Callable:
    """Turn authorguard errors into a one-line message and exit status 2."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (AuthorguardError, FileNotFoundError, PermissionError) as error:
            fail(str(error))

    return wrapper


def progress() -> Progress:
    return Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=True, disable=not console.is_terminal,
    )


def print_json(obj: object) -> None:
    stdout.out(json.dumps(obj, indent=2, ensure_ascii=False), highlight=False)


def set_data_dir(data_dir: Path | None) -> None:
    if data_dir is not None:
        os.environ["AUTHORGUARD_DATA"] = str(data_dir)


def read_word_list(path: str | os.PathLike) -> list[str]:
    """A public vocabulary file: one word per line, UTF-8 (blank lines ignored)."""
    from authorguard.exceptions import InputError

    path = Path(path)
    if not path.is_file():
        raise InputError(f"vocabulary file {str(path)!r} does not exist")
    try:
        words = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not valid UTF-8 (byte {error.start})") from None
    words = [w.strip() for w in words if w.strip()]
    if not words:
        raise InputError(f"{path}: the vocabulary file holds no word")
    return words
