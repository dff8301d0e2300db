"""The README and the documentation say what runs: every `authorguard` command in their shell blocks names a real
command with options it has, every Python block compiles and calls the public API with parameters it takes, the
site's home page is the README's text, and the README stays a front door (<= 150 lines)."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
import shlex
from pathlib import Path

import click
import pytest
import typer
from typer.testing import CliRunner

import authorguard
from authorguard.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
#: the pages a new user reads first: the front door, getting started, the use cases, concepts, the reference
PAGES = sorted(
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    + [ROOT / "docs" / name for name in ("index.md", "getting-started.md", "seed-systems.md")]
    + sorted((ROOT / "docs").glob("use-cases/*.md"))
    + sorted((ROOT / "docs").glob("concepts/*.md"))
    + sorted((ROOT / "docs").glob("reference/*.md"))
)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def blocks(path: Path, languages: tuple[str, ...]) -> list[str]:
    return [body for language, body in FENCE.findall(path.read_text(encoding="utf-8")) if language in languages]


def commands(body: str) -> list[list[str]]:
    """Each `authorguard ...` command of a shell block, as argv after `authorguard` (continuations joined, comments
    and optional-argument brackets dropped, `&&` chains split)."""
    found = []
    for line in body.replace("\\\n", " ").splitlines():
        line = line.split(" #")[0].strip()
        for part in line.split("&&"):
            part = part.strip()
            if not part.startswith("authorguard "):
                continue
            words = shlex.split(part.replace("[", " ").replace("]", " ").replace("|", " "))[1:]
            found.append(words)
    return found


def resolve(argv: list[str]) -> tuple[click.Command, list[str]]:
    command: click.Command = typer.main.get_command(app)
    rest = list(argv)
    while hasattr(command, "get_command") and rest and not rest[0].startswith("-"):
        sub = command.get_command(click.Context(command), rest[0])
        assert sub is not None, f"no command {rest[0]!r} in `authorguard {' '.join(argv)}`"
        command, rest = sub, rest[1:]
    return command, rest


def shell_commands() -> list[tuple[str, list[str]]]:
    return [
        (path.relative_to(ROOT).as_posix(), argv)
        for path in PAGES
        for body in blocks(path, ("bash", "sh", ""))
        for argv in commands(body)
    ]


def test_the_pages_show_commands():
    shown = shell_commands()
    assert len(shown) >= 25
    assert {argv[0] for _, argv in shown} >= {"check", "assess", "obfuscate", "syntf", "anonymize", "experiment"}


@pytest.mark.parametrize(
    ("page", "argv"), shell_commands(), ids=lambda value: value if isinstance(value, str) else " ".join(value)[:60]
)
def test_every_command_shown_is_a_command_with_those_options(page, argv):
    command, rest = resolve(argv)
    known = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    for word in rest:
        if word.startswith("-") and word != "-":
            option = word.split("=")[0]
            assert option in known, (
                f"{page}: `authorguard {' '.join(argv)}`: {option} is not an option of it ({sorted(known)})"
            )


def python_blocks() -> list[tuple[str, str]]:
    return [(path.relative_to(ROOT).as_posix(), body) for path in PAGES for body in blocks(path, ("python",))]


@pytest.mark.parametrize(("page", "code"), python_blocks(), ids=lambda value: value if value.endswith(".md") else "")
def test_every_python_block_compiles_and_calls_the_api_with_parameters_it_takes(page, code):
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("authorguard"):
            module = importlib.import_module(node.module) if importlib.util.find_spec(node.module) else None
            assert module is not None, f"{page}: no module {node.module}"
            for alias in node.names:
                assert hasattr(module, alias.name), f"{page}: {node.module} has no {alias.name}"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "authorguard":
            assert hasattr(authorguard, node.attr), f"{page}: authorguard.{node.attr} does not exist"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "authorguard"
        ):
            target = getattr(authorguard, node.func.attr)
            function = {"check": "authorguard.check.run", "assess": "authorguard.assess.run"}.get(node.func.attr)
            if function is not None:
                target = getattr(importlib.import_module(function), node.func.attr)
            parameters = inspect.signature(target).parameters
            for keyword in node.keywords:
                assert keyword.arg in parameters, f"{page}: authorguard.{node.func.attr}() takes no {keyword.arg}="


def test_the_readme_is_a_front_door_and_the_site_home_is_its_text():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    spec = importlib.util.spec_from_file_location(
        "index_from_readme", ROOT / "scripts" / "docs" / "index_from_readme.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "index.md").read_text(encoding="utf-8") == module.index_text(readme), (
        "docs/index.md differs from the README: run python scripts/docs/index_from_readme.py"
    )


def test_the_readme_first_commands_run_on_real_text(tmp_path, monkeypatch):
    """The README's way in, on a small real sample: export posts, rewrite them, records in = records out."""
    runner = CliRunner()
    posts = tmp_path / "posts.jsonl"
    result = runner.invoke(
        app, ["datasets", "export", "blogs", "--authors", "3", "--per-author", "4", "-o", str(posts)]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in posts.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 12 and len({row["author"] for row in rows}) == 3 and all(row["text"].strip() for row in rows)
    again = tmp_path / "again.jsonl"
    runner.invoke(app, ["datasets", "export", "blogs", "--authors", "3", "--per-author", "4", "-o", str(again)])
    assert again.read_bytes() == posts.read_bytes()  # the same command writes the same sample
    out = tmp_path / "rewritten.jsonl"
    result = runner.invoke(app, ["obfuscate", str(posts), "-o", str(out), "--method", "normalise"])
    assert result.exit_code == 0, result.output
    released = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in released] == [r["id"] for r in rows] and "wrote 12 records" in result.output
    folder = tmp_path / "me"
    result = runner.invoke(
        app, ["datasets", "export", "blogs", "--authors", "1", "--per-author", "5", "-o", str(folder)]
    )
    assert result.exit_code == 0 and len(list(folder.glob("*.txt"))) == 5
