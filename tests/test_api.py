"""The public API (``import authorguard``): its doctests, its light import, its one-line errors, and that it means
what the CLI means."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import authorguard
from authorguard.exceptions import AuthorguardError, InputError


def _run_doctests(obj, name: str) -> doctest.TestResults:
    finder, runner = doctest.DocTestFinder(recurse=False), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(obj, name)
    assert tests and any(test.examples for test in tests), f"{name} has no doctest"
    for test in tests:
        runner.run(test)
    return runner.summarize(verbose=False)


def test_obfuscate_doctest():
    from authorguard import api

    result = _run_doctests(api.obfuscate, "authorguard.obfuscate")
    assert result.failed == 0 and result.attempted >= 4


@pytest.mark.slow
def test_check_doctest():
    from authorguard.check import run

    result = _run_doctests(run.check, "authorguard.check")
    assert result.failed == 0 and result.attempted >= 8


def test_synthesise_doctest():
    from authorguard import api

    result = _run_doctests(api.synthesise, "authorguard.synthesise")
    assert result.failed == 0 and result.attempted >= 3


@pytest.mark.slow
def test_assess_doctest():
    from authorguard.assess import run

    result = _run_doctests(run.assess, "authorguard.assess")
    assert result.failed == 0 and result.attempted >= 5


def test_import_is_light_and_every_public_name_resolves():
    code = (
        "import sys, authorguard\n"
        "heavy = ('torch', 'spacy', 'numba', 'sklearn', 'transformers')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "for name in authorguard.__all__:\n"
        "    assert getattr(authorguard, name) is not None, name\n"
        "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"  # nothing heavy at import
    assert out[1] == "[]"  # nor when the API's names are first touched


def test_check_and_assess_are_callable_whichever_was_imported_first():
    code = (
        "import authorguard.check.run, authorguard.assess.run\n"  # the subpackages first
        "import authorguard, inspect\n"
        "assert callable(authorguard.check) and callable(authorguard.assess)\n"
        "from authorguard.check import CheckConfig\n"  # still the package
        "print(authorguard.check.__name__, authorguard.assess.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["authorguard.check", "authorguard.assess"]
    with pytest.raises(InputError, match="unknown genre 'poetry'"):
        authorguard.check("some text " * 60, known=["other text " * 60], genre="poetry")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: authorguard.obfuscate("one string"), "give a list of texts, not one string"),
        (lambda: authorguard.obfuscate(["fine", "  "]), "text 1 is empty"),
        (lambda: authorguard.obfuscate(["fine", 3]), "text 1 is a int"),
        (lambda: authorguard.obfuscate(["fine"], method="no-such-method"), "no-such-method"),
        (lambda: authorguard.obfuscate(["fine"], method="synonyms", params={"rat": 0.1}), "unknown parameter 'rat'"),
        (lambda: authorguard.obfuscate(["fine"], method="tarot", fallback="drop"), "fallback"),
        (lambda: authorguard.check(["a list"], known=["x"]), "the text is a list"),
        (lambda: authorguard.check("t " * 80, known=["k " * 80], background={"only": ["one author"]}), "two at least"),
        (lambda: authorguard.assess([], output_dir="unused", methods=["no-such"]), "unknown method"),
        (lambda: authorguard.assess([], output_dir="unused", attackers=["no-such"]), "unknown attacker"),
    ],
)
def test_bad_input_is_one_line_naming_the_problem(call, message):
    with pytest.raises(AuthorguardError, match=message.replace("(", r"\(")) as error:
        call()
    assert "\n" not in str(error.value)


def test_obfuscate_means_what_the_cli_means(tmp_path):
    """The same records, method and seed: the API's texts and statuses are the CLI's, record by record."""
    from authorguard.cli.app import app

    texts = [f"i dont know... post {i} was sooo long!!! and i think its good" for i in range(70)] + ["Plain text."]
    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts)), encoding="utf-8"
    )
    for method in ("normalise", "synonyms"):
        out = tmp_path / f"{method}.jsonl"
        result = CliRunner().invoke(app, ["obfuscate", str(source), "-o", str(out), "--method", method, "--seed", "3"])
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        released = authorguard.obfuscate(texts, method=method, seed=3)
        assert [r.text for r in released] == [row["text"] for row in rows]
        assert [(r.status, r.fidelity) for r in released] == [(row["release_status"], row["fidelity"]) for row in rows]
    again = authorguard.obfuscate(texts, method="synonyms", seed=3, fidelity=False)
    assert [r.text for r in again] == [r.text for r in released] and again[0].fidelity is None
