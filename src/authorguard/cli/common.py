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
