"""The writer's check: would an attacker holding your known writing pick you out as the author of a text?

The candidates are the writer and ``size - 1`` background authors (:mod:`authorguard.check.background`). Every
candidate's writing is cut into pieces as long as the text (100 to 500 words), the writer's from the known writing
and each background author's from as many words as the writer has, so that no candidate is favoured by having more
or longer texts; each background author also keeps ``calibration_pieces`` later pieces aside. Each attacker that
fits the amount of known text is trained on the pieces, ranks the candidates for the text, and is calibrated by
temperature scaling on the held-out pieces (:mod:`authorguard.check.calibration`). Candidate sets are nested (the
10 are among the 100), drawn by ``seed``.

The rewrite step rewrites the text with each method and checks the rewrite under two threat models: ``static``
(the attackers above) and ``augmented`` (attackers that also learnt from each candidate's pieces rewritten by the
method, at the smallest size, at most ``augment_pieces`` pieces a candidate — rewriting is the slow part).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from authorguard.check.background import GENRES, Background, genre_of, load_background
from authorguard.check.candidates import piece_words, without_the_writer
from authorguard.check.config import (
    DEFAULT_ATTACKERS,
    MAX_KNOWN_WORDS,
    PIECE_WORDS,
    CheckConfig,
    check_limits,
    statements_for,
)
from authorguard.check.result import CheckResult
from authorguard.check.session import CheckSession
from authorguard.check.texts import word_count
from authorguard.exceptions import AuthorguardError, InputError


def check(
    text: str,
    known: str | Iterable[str],
    *,
    genre: str | None = None,
    background: str | os.PathLike | Mapping[str, Sequence[str]] | Background | None = None,
    sizes: Sequence[int] = (10, 100),
    attackers: Sequence[str] | None = None,
    rewrite: Sequence = (),
    generalise: int = 0,
    seed: int = 0,
    config: CheckConfig | None = None,
    progress: Callable[[str], None] | None = None,
) -> CheckResult:
    """Would a stylometric attacker holding the writer's ``known`` writing pick them out as ``text``'s author? The
    Python side of ``authorguard check`` (``authorguard.check(...)`` calls this). Returns a :class:`CheckResult`:
    per attacker and candidate-set size the writer's rank, margin and calibrated probability, the evidence and, per
    method of ``rewrite``, the same after its rewrite; ``result.verdict()`` says it in one sentence and
    ``result.lines()`` is what the CLI prints. :func:`prepare` keeps the fitted attackers for re-checks of edits.

    ``known``: the writer's other documents (one string is one document); ``genre``: ``blog``, ``essay`` or
    ``forum``, the staged background of that genre (default: guessed from the text, and the result says so);
    ``background``: other candidates instead — a JSONL file of author/text rows, a mapping author -> documents or a
    :class:`~authorguard.check.background.Background`; ``sizes``: candidate-set sizes, the writer included;
    ``attackers``: registered attackers (default: char-ngrams, function-words, writeprints-text); ``rewrite``:
    registered method names or built text methods; ``generalise``: also check the text after "Generalise what
    gives me away" pressed up to this many times (every evidence word and name generalised, then the new
    evidence's, until no attacker ranks the writer first: ``result.generalised``); ``seed``: the draws and the
    attackers; ``config``: a whole
    :class:`CheckConfig` instead of ``sizes``/``attackers``/``seed``.

    ```pycon
    >>> import authorguard
    >>> essays = authorguard.load_dataset("amt")   # 45 writers' essays (EBG / AMT), from AUTHORGUARD_DATA
    >>> by_author = {}
    >>> for text, author in zip(essays.texts, essays.authors):
    ...     _ = by_author.setdefault(author, []).append(text)
    >>> writer, *others = sorted(by_author)
    >>> result = authorguard.check(by_author[writer][0], known=by_author[writer][1:],
    ...                            background={a: by_author[a] for a in others[:12]},
    ...                            sizes=(10,), attackers=["char-ngrams"])
    >>> ranking = result.rankings[0]
    >>> ranking.attacker, ranking.candidates, ranking.rank
    ('char-ngrams', 10, 1)
    >>> result.verdict()  # doctest: +ELLIPSIS
    'Yes: 1 of 1 attacks rank you first, up to 10 candidates; ...'

    ```
    """
    from authorguard.check.background import as_background

    if not isinstance(text, str):
        raise InputError(f"check: the text is a {type(text).__name__}, not a string")
    known = [known] if isinstance(known, str) else list(known)
    if config is None:
        config = CheckConfig(
            sizes=tuple(int(size) for size in sizes), attackers=tuple(attackers or DEFAULT_ATTACKERS), seed=seed
        )
    session = prepare(
        text,
        known,
        background=as_background(background, genre),
        config=config,
        progress=progress,
        genre_reason=f"chosen with genre={genre!r}" if genre else None,
    )
    for method in rewrite:
        session.rewrite(method)
    if generalise:
        from authorguard.check.generalisation import generalise_evidence

        generalise_evidence(session, rounds=int(generalise))
    return _result_of(session)


def run_command(
    text: str,
    known: Sequence[str],
    *,
    config: CheckConfig,
    background_file: str | None = None,
    genre: str | None = None,
    text_field: str = "text",
    rewrite: Sequence[str] = (),
    generalise: int = 0,
    progress: Callable[[str], None] | None = None,
) -> CheckResult:
    """What ``authorguard check`` runs, in its own process or in a resident server
    (:mod:`authorguard.check.web.resident`): the check of ``text`` against the ``known`` documents, among the
    authors of ``background_file`` (a JSONL file of author/``text_field`` rows) or of ``genre``'s staged pool
    (default: the text's genre, guessed), then each ``rewrite`` method and ``generalise`` rounds."""
    from authorguard.check.background import load_background, read_background

    if background_file is not None and genre is not None:
        raise InputError("give --background or --genre, not both")
    others = (
        read_background(background_file, text_field=text_field)
        if background_file is not None
        else (load_background(genre) if genre else None)
    )
    session = prepare(
        text,
        known,
        background=others,
        config=config,
        progress=progress,
        genre_reason="chosen with --genre" if genre else None,
    )
    for method in rewrite:
        session.rewrite(method)
    if generalise:
        from authorguard.check.generalisation import generalise_evidence

        generalise_evidence(session, rounds=generalise)
    return _result_of(session)


def run_options(text: str, known: Sequence[str], options: Mapping, progress=None) -> dict:
    """:func:`run_command` with the command's options as parsed (``sizes``, ``attackers`` — empty: the defaults —,
    ``seed``, ``background_file``/``genre`` — "" for none —, ``text_field``, ``rewrite``, ``generalise``), in the
    command's process or the resident server: ``{"lines": the printed result, "result": its dict}``."""
    config = CheckConfig(
        sizes=tuple(options["sizes"]), attackers=tuple(options["attackers"] or DEFAULT_ATTACKERS), seed=options["seed"]
    )
    result = run_command(
        text,
        known,
        config=config,
        background_file=options["background_file"] or None,
        genre=options["genre"] or None,
        text_field=options["text_field"],
        rewrite=options["rewrite"],
        generalise=options["generalise"],
        progress=progress,
    )
    return {"lines": result.lines(), "result": result.to_dict()}


def _input_statements(
    statements: list[str], holding: int, all_known_words: int, text_words: int, runnable: Sequence[str]
) -> list[str]:
    """STATEMENTS with what the check did to its input: known documents holding the text left out, the known writing
    cut, a text shorter than the pieces the attackers are calibrated on."""
    if holding:
        statements.insert(
            0,
            f"{holding} of your known documents {'contains' if holding == 1 else 'contain'} the text "
            "itself: left out (an "
            "attacker does not hold the text it is asked about).",
        )
    if all_known_words > MAX_KNOWN_WORDS:
        statements.append(
            f"Your first {MAX_KNOWN_WORDS:,} words of known writing are used (of {all_known_words:,}): "
            "every background author stands beside you with as many words."
        )
    if text_words < PIECE_WORDS[0] and runnable:
        statements.append(
            f"The text has {text_words} words; the attackers learn and are calibrated on pieces of "
            f"{PIECE_WORDS[0]}: its probabilities are less reliable than the calibration error says."
        )
    return statements


def _chosen_background(
    text: str,
    background: Background | None,
    runnable: Sequence[str],
    genre_reason: str | None,
    say: Callable[[str], None],
) -> tuple[Background | None, str]:
    """The background the text is checked against (given, or the staged one of the genre the text reads as) and
    why it is that one."""
    if background is None and runnable:
        genre, reason = genre_of(text), genre_reason
        if reason is None:
            reason = f"the text reads as {GENRES[genre]} (the genre classifier's guess; --genre sets it)"
        say(f"loading the {genre} background")
        return load_background(genre), reason
    reason = genre_reason or (
        "your own background file"
        if background is not None and background.genre == "own"
        else f"chosen: {background.genre}"
        if background is not None
        else ""
    )
    return background, reason


def prepare(
    text: str,
    known: Sequence[str],
    *,
    background: Background | None = None,
    config: CheckConfig = CheckConfig(),
    progress: Callable[[str], None] | None = None,
    genre_reason: str | None = None,
) -> CheckSession:
    """The check of ``text`` as a :class:`CheckSession`: its result, and the fitted attackers, candidate sets and
    calibration that a re-check of an edit (:meth:`CheckSession.recheck`) or a rewrite
    (:meth:`CheckSession.rewrite`) reuse."""
    start = time.perf_counter()
    say = progress or (lambda message: None)
    if not isinstance(text, str) or not text.strip():
        raise InputError("check: the text is empty")
    known = [k for k in known if isinstance(k, str) and k.strip()]
    if not known:
        raise InputError("check: the known writing is empty")
    check_limits(text, known)
    bare = " ".join(text.split())
    holding = [k for k in known if bare in " ".join(k.split())]
    known = [k for k in known if bare not in " ".join(k.split())]
    if not known:
        raise InputError("check: the known writing is only the text itself")
    text_words, all_known_words = word_count(text), sum(word_count(k) for k in known)
    known_words = min(all_known_words, MAX_KNOWN_WORDS)
    statements, runnable = statements_for(text_words, known_words, config.attackers)
    statements = _input_statements(statements, len(holding), all_known_words, text_words, runnable)
    piece = piece_words(text_words)
    background, reason = _chosen_background(text, background, runnable, genre_reason, say)
    if background is not None:
        background, yours = without_the_writer(background, [bare, *(" ".join(k.split()) for k in known)])
        if yours:
            statements.insert(
                0,
                f"The background holds your writing (as {', '.join(yours)}): left out of the candidates, so you "
                "are not your own rival.",
            )
    session = CheckSession(text, known, config, piece, background, runnable, say)
    session.result = CheckResult(
        text_words,
        known_words,
        piece,
        background.genre if background else "not checked",
        background.source if background else "none",
        len(background) if background else 0,
        statements=statements,
        genre_reason=reason,
    )
    if runnable:
        session.fit()
        session.result.rankings, session.result.evidence = session.rank(text)
    session.result.seconds = round(time.perf_counter() - start, 2)
    return session


def _result_of(session) -> CheckResult:
    """The session's result, which :func:`prepare` sets; a session without one is a broken check."""
    if session.result is None:
        raise AuthorguardError("check: the session has no result (prepare did not run to its end)")
    return session.result
