"""Console, error handling and input resolution shared by the commands."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from authorguard.exceptions import AuthorguardError

# A command's answer goes to ``stdout`` (``> file`` keeps it), its progress, logs and errors to ``console`` (stderr).
# Markup is off: messages carry brackets that are text (``pip install 'authorguard[neural]'``); the few styled
# lines ask for markup and escape what they interpolate.
console = Console(stderr=True, markup=False, soft_wrap=True)
stdout = Console(markup=False, soft_wrap=True)


def fail(message: str) -> None:
    """Print ``error: message`` (the message as written: brackets such as ``authorguard[neural]`` are not markup)
    and exit with status 2."""
    console.print(f"[bold red]error:[/] {escape(message)}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(code=2)


def handle_errors(command: Callable) -> Callable:
    """Turn authorguard errors into a one-line message and exit status 2; so is an optional dependency that a code
    path imports and this environment lacks (the methods check theirs first: this is the net under the rest)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (AuthorguardError, FileNotFoundError, PermissionError) as error:
            fail(str(error))
        except ImportError as error:
            missing = getattr(error, "name", None) or str(error)
            fail(
                f"a missing optional dependency ({missing}): 'authorguard methods' lists what each method needs and "
                f"the extra to install"
            )

    return wrapper


def progress() -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


class Stages:
    """A command's stages, each with its own counter: a Rich bar per stage on a terminal (the previous stage's bar
    is removed, so a counter never carries over), one line per stage on stderr otherwise (logs, pipes, CI).

    ``with Stages("syntf") as stages: advance = stages.stage("synthesising", total=rows); advance(n)``."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.bars = progress()
        self._task: TaskID | None = None

    def __enter__(self) -> Stages:
        self.bars.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.bars.__exit__(*exc)

    def stage(self, description: str, total: int | None = None) -> Callable[[int], None]:
        """Start a stage (``total`` units, None: unknown); returns ``advance(units)``."""
        if self._task is not None:
            self.bars.remove_task(self._task)
        self._task = self.bars.add_task(escape(description), total=total)
        if not console.is_terminal:
            size = f" ({total:,})" if total else ""
            console.print(f"{self.command}: {description}{size}", highlight=False)
        task = self._task

        def advance(units: int = 1) -> None:
            self.bars.advance(task, units)

        return advance


def print_json(obj: object) -> None:
    stdout.out(json.dumps(obj, indent=2, ensure_ascii=False), highlight=False)


def set_data_dir(data_dir: Path | None) -> None:
    if data_dir is not None:
        os.environ["AUTHORGUARD_DATA"] = str(data_dir)


#: the commands' --fallback values: the validity gate's (withhold, keep) and the bottleneck's view
#: what --fallback says when it is not given (the same words for obfuscate and anonymize)
FALLBACK_HELP = (
    "A record the method could not protect (a rewriter whose validity gate refused every rewrite of a "
    "chunk): 'withhold' writes no text for it, 'keep' releases it as written, 'view' (bottleneck only) its "
    "style-free view, 'normalise' (bottleneck, level roles) normalise's text of the chunks it could not write. "
    "Default: the method's own fallback when it never releases the input as written (the bottleneck's 'auto': "
    "'normalise' at level roles, 'view' at the others), else 'withhold'. Either way its status says so."
)
