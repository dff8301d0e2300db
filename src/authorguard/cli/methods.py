"""``authorguard methods``: every registered method, what it releases, what it protects against, what it needs and
whether it can run in this environment."""

from __future__ import annotations

import shutil
import textwrap
from typing import Annotated

import typer

from authorguard.cli.common import handle_errors, print_json, stdout

_MODEL = {"required": "needs a trained model (--model DIR)", "packaged": "packaged model (--model DIR overrides)"}


def method_rows() -> list[dict]:
    """One row per registered method, from the registry (nothing imported) and this environment (installed
    extras, set-up weights: ``needs`` lists the fixes, empty when the method can run here)."""
    from authorguard import registry
    from authorguard.utils.extras import method_problems

    rows = []
    tables = [("method", registry.methods), ("corpus release", registry.releases)]
    for kind, table in tables:
        for name in table.names():
            rows.append(_row(kind, name, table, method_problems(name, table)))
    return rows


def _row(kind: str, name: str, table, needs: list[str]) -> dict:
    info = table.info(name)
    return {
        "name": name,
        "kind": kind,
        "output": info.get("output", "text"),
        "model": info.get("model", "none"),
        "extra": info.get("extra", ""),
        "description": table.describe(name),
        "protects": info.get("protects", ""),
        "guarantee": info.get("guarantee", ""),
        "faithful": info.get("faithful", ""),
        "ready": not needs,
        "needs": needs,
    }


def method_block(row: dict, width: int) -> str:
    """A method as a few wrapped lines: name and facts, then what it does, protects against and still needs."""
    facts = [f"releases {row['output']}"]
    if row["model"] != "none":
        facts.append(_MODEL.get(row["model"], row["model"]))
    if row["extra"]:
        facts.append(f"extra: {row['extra']}")
    head = f"{row['name']} - {'ready' if row['ready'] else 'not ready here'} ({'; '.join(facts)})"
    lines = textwrap.wrap(head, width, subsequent_indent="    ")
    for label, text in (
        ("", row["description"]),
        ("protects against: ", row["protects"]),
        ("guarantee: ", row.get("guarantee", "")),
        ("faithful outputs (blind hand labels; where measured): ", row.get("faithful", "")),
    ):
        if text:
            lines += textwrap.wrap(label + text, width, initial_indent="  ", subsequent_indent="    ")
    for need in row["needs"]:
        lines += textwrap.wrap("needs " + need, width, initial_indent="  ", subsequent_indent="    ")
    return "\n".join(lines)


@handle_errors
def methods(json_output: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False) -> None:
    """List every method: text methods (authorguard obfuscate / anonymize), vector methods (authorguard syntf /
    anonymize) and corpus releases (authorguard synth), what each protects against (as measured), whether it needs a
    trained model or an extra, and
    whether it can run here (the install command when not)."""
    rows = method_rows()
    if json_output:
        print_json(rows)
        return
    width = min(stdout.width if stdout.is_terminal else shutil.get_terminal_size((80, 24)).columns, 100)
    ready = sum(row["ready"] for row in rows)
    stdout.print(
        f"{len(rows)} methods and corpus releases, {ready} ready to run here\n(worst-case figures: README's methods "
        "table)\n",
        highlight=False,
    )
    stdout.print("\n\n".join(method_block(row, width) for row in rows), highlight=False)
