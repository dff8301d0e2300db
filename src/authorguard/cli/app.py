"""The ``authorguard`` Typer application."""

from __future__ import annotations

from typing import Annotated

import typer

from authorguard import __version__
from authorguard.cli import (
    a4nt,
    anonymize,
    assess,
    check,
    datasets,
    demo,
    experiment,
    fidelity,
    methods,
    obfuscate,
    privacy,
    serve,
    setup,
    syntf,
    synth,
    tarot,
    train,
)

app = typer.Typer(
    name="authorguard",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"authorguard {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Protect the authors of text data: obfuscate text or its features, and measure privacy and utility."""


app.command("syntf")(syntf.command)
app.command("synth")(synth.synth)
app.command("demo")(demo.demo)
app.command("anonymize")(anonymize.anonymize)
app.command("obfuscate", help=obfuscate.help_text())(obfuscate.obfuscate)
app.command("methods")(methods.methods)
app.command("fidelity")(fidelity.fidelity)
app.command("setup")(setup.setup)
app.command("assess")(assess.assess)
app.command("check")(check.check)
app.command("serve")(serve.serve)
app.add_typer(privacy.app, name="privacy")
app.add_typer(experiment.app, name="experiment")
app.add_typer(datasets.app, name="datasets")
app.add_typer(train.app, name="train")
app.add_typer(a4nt.app, name="a4nt")
app.add_typer(tarot.app, name="tarot")
app.command("report")(experiment.report)


@app.command("version")
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


def quiet_third_parties() -> None:
    """Keep other libraries' progress bars and deprecation notices out of a command's output (transformers' "Loading
    weights" bars, FutureWarnings, liblinear's convergence notices): set before they are imported, and inherited by
    worker processes."""
    import os
    import warnings

    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # (a message, not scikit-learn's ConvergenceWarning class: naming the class would import scikit-learn at start)
    quiet = ("ignore::FutureWarning", "ignore::DeprecationWarning", "ignore:Liblinear failed to converge")
    os.environ.setdefault("PYTHONWARNINGS", ",".join(quiet))
    for category in (FutureWarning, DeprecationWarning):
        warnings.filterwarnings("ignore", category=category)
    warnings.filterwarnings("ignore", message="Liblinear failed to converge")


def main() -> None:
    quiet_third_parties()
    app()


if __name__ == "__main__":
    main()
