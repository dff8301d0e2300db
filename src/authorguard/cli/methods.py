"""``authorguard methods``: every registered method, what it releases and what it needs."""

from __future__ import annotations

from typing import Annotated

import typer

from authorguard.cli.common import handle_errors, print_json, stdout

_MODEL = {"required": "required (--model DIR)", "packaged": "packaged (--model DIR overrides)"}


def method_rows() -> list[dict]:
    """One row per registered method, from the registry (nothing imported)."""
    from authorguard import registry

    return [{"name": name, "output": registry.methods.info(name).get("output", "text"),
             "model": registry.methods.info(name).get("model", "none"),
             "extra": registry.methods.info(name).get("extra", ""), "description": registry.methods.describe(name)}
            for name in registry.methods.names()]


@handle_errors
def methods(json_output: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False) -> None:
    """List every method: text methods (authorguard obfuscate / anonymize) and vector methods (authorguard syntf /
    anonymize), whether it needs a trained model, and the install extra it needs."""
    rows = method_rows()
    if json_output:
        print_json(rows)
        return
    from rich.table import Table

    table = Table(show_lines=False)
    for column in ("method", "releases", "model", "extra"):
        table.add_column(column, no_wrap=True)
    table.add_column("what it does")
    for row in rows:
        table.add_row(row["name"], row["output"], _MODEL.get(row["model"], row["model"]), row["extra"] or "-", row["description"])
    stdout.print(table)
