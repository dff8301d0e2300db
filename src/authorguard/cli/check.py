"""``authorguard check``: would a stylometric attacker holding your known writing pick you out as TEXT's author?"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from authorguard.cli.common import console, handle_errors, stdout
from authorguard.exceptions import InputError


def parse_sizes(value: str) -> tuple[int, ...]:
    """``"10,100"`` -> (10, 100); anything else is one line."""
    try:
        sizes = tuple(int(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise InputError(f"--sizes takes comma-separated integers such as 10,100,1000, got {value!r}") from None
    if not sizes:
        raise InputError("--sizes is empty")
    return sizes


#: the staged backgrounds, as ``--help`` lists them (``authorguard.check.background.GENRES``; a test keeps the two
#: equal without importing the check at start-up)
GENRE_CHOICES = ("blog", "essay", "forum")


TextSource = Annotated[str, typer.Argument(help="The text to check: a plain-text file, or - for standard input.")]
Known = Annotated[
    list[Path],
    typer.Option(
        "--known",
        "-k",
        help="Your known writing: plain-text files, JSONL files (one document a line) or folders of them. Repeatable.",
    ),
]
Background = Annotated[
    Path | None,
    typer.Option(
        help="Your own background authors: a JSONL file with author and "
        "text fields (default: staged authors of the text's genre)."
    ),
]
Genre = Annotated[
    str | None,
    typer.Option(
        metavar="[" + "|".join(GENRE_CHOICES) + "]",
        help="The background's genre: blog (personal blog posts), essay "
        "(essays, writing samples) or forum (e-mail-like Usenet posts); "
        "default: guessed from the text, and the result says which.",
    ),
]
Attackers = Annotated[
    list[str] | None,
    typer.Option(
        "--attacker",
        "-a",
        help="An attacker to run (repeatable; default: char-ngrams, function-words, writeprints-text).",
    ),
]
Rewrites = Annotated[
    list[str] | None,
    typer.Option(
        "--rewrite",
        "-r",
        help="Check the text again after this method's rewrite (repeatable), e.g. synonyms, bottleneck.",
    ),
]
Generalise = Annotated[
    int,
    typer.Option(
        "--generalise",
        help="Check the text again after generalising what gives you away, up to this many rounds: each "
        "evidence word and every name replaced by a true, less specific form (a broader word, what a name is, "
        "or [word] / [name]), then the new evidence's, until no attacker ranks you first.",
        min=0,
    ),
]
Server = Annotated[
    bool,
    typer.Option(
        "--server/--no-server",
        envvar="AUTHORGUARD_CHECK_SERVER",
        help="Check in the resident check server (started on demand on 127.0.0.1, it keeps the attackers' "
        "processes and the background warm for the next check and stops after 15 idle minutes; `authorguard "
        "serve --stop` stops it), or in this process only.",
    ),
]

JsonPath = Annotated[Path | None, typer.Option("--json", help="Also write the whole result as JSON here.")]


@handle_errors
def check(
    text: TextSource,
    known: Known,
    background: Background = None,
    genre: Genre = None,
    sizes: Annotated[str, typer.Option(help="Candidate-set sizes, you included, e.g. 10,100,1000.")] = "10,100",
    attacker: Attackers = None,
    rewrite: Rewrites = None,
    generalise: Generalise = 0,
    text_field: Annotated[str, typer.Option(help="The text field of JSONL files.")] = "text",
    seed: Annotated[int, typer.Option(help="Seed of the candidate draw, the attackers and the rewrites.")] = 0,
    json_output: JsonPath = None,
    server: Server = True,
) -> None:
    """Rank you among other authors as a stylometric attacker would, from TEXT and your known writing: your rank,
    the margin and a calibrated probability per attacker and candidate-set size, what in TEXT points to you, and
    the same after a rewrite (--rewrite) or after generalising what gives you away (--generalise). Everything runs
    on this machine; nothing is sent anywhere."""
    from authorguard.check.texts import read_writing

    body = read_checked_text(text)
    writing = read_writing(known, text_field)
    check_components(list(attacker or ()), list(rewrite or ()))
    if background is not None and genre is not None:
        raise InputError("give --background or --genre, not both")
    if background is not None and not background.is_file():
        raise InputError(f"{background}: no such background file")
    options = {
        "background_file": str(background.resolve()) if background is not None else "",
        "genre": genre or "",
        "text_field": text_field,
        "sizes": list(parse_sizes(sizes)),
        "attackers": list(attacker or ()),
        "rewrite": list(rewrite or ()),
        "generalise": generalise,
        "seed": seed,
    }
    found = _check_in_server(body, writing, options) if server else None
    if found is None:
        found = _check_here(body, writing, options)
    for line in found["lines"]:
        stdout.print(line, highlight=False)
    if json_output is not None:
        from authorguard.data.io import write_json

        write_json(json_output, found["result"])
        console.print(f"result: {json_output}")


def read_checked_text(text: str) -> str:
    """TEXT's content: a file, or standard input for ``-`` (empty or undecodable input is one line)."""
    from authorguard.check.texts import decode_text, read_text_file

    if text != "-":
        return read_text_file(text)
    body = decode_text(sys.stdin.buffer.read(), "standard input")
    if not body.strip():
        raise InputError("the text on standard input is empty")
    return body


def _check_in_server(body: str, writing: list[str], options: dict) -> dict | None:
    """The check in the resident server; None when the web extra is missing or the server cannot be reached (the
    caller then checks here)."""
    from authorguard.cli.check_server import ServerUnavailable, check_through_server, web_installed

    if not web_installed():
        return None
    try:
        return check_through_server({"text": body, "known": writing, **options}, say)
    except ServerUnavailable as error:
        console.print(f"{error}: checking in this process", highlight=False)
        return None


def check_components(attackers: list[str], rewrites: list[str]) -> None:
    """Refuse, before any fitting, an attacker or rewrite method that is unknown, is no text method or needs an
    extra this machine lacks: one line naming it (the registry's closest name, or the install command)."""
    from authorguard import registry
    from authorguard.utils.extras import method_problems, require_method

    for name in attackers:
        registry.attackers.require(name)
        if problems := method_problems(name, registry.attackers):
            raise InputError(f"attacker {name!r} needs " + "; and ".join(problems))
    from authorguard.methods.build import parse_method_spec

    for spec in rewrites:
        name, params = parse_method_spec(spec)
        registry.methods.require(name)
        if registry.methods.info(name).get("output") != "text":
            raise InputError(f"--rewrite {name!r}: not a text method ('authorguard methods' lists them)")
        require_method(name, params)


def say(line: str) -> None:
    console.print(line, highlight=False)


def _check_here(body: str, writing: list[str], options: dict) -> dict:
    """The check in this process: what the resident server runs, with the same options."""
    from authorguard.check.run import run_options

    return run_options(body, writing, options, progress=say)
