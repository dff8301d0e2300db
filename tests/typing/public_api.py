"""The public API as a user calls it, for the type checker (``mypy``, run by scripts/test): the signatures of
``authorguard.obfuscate`` / ``check`` / ``assess`` / ``SynTF`` accept these calls and return these types. Never
executed by pytest (the doctests and tests/test_api.py run the same calls)."""

from __future__ import annotations

import authorguard
from authorguard.check.result import CheckResult


def obfuscate_texts(texts: list[str]) -> list[str | None]:
    released: list[authorguard.RecordOutcome] = authorguard.obfuscate(texts, method="normalise", seed=0, fidelity=False)
    return [release.text for release in released if release.status != "withheld"]


def check_text(text: str, known: list[str]) -> str:
    result: CheckResult = authorguard.check(text, known=known, genre="blog", sizes=(10, 100), seed=0)
    return result.verdict()


def check_against_own_background(text: str, known: str, others: dict[str, list[str]]) -> int:
    result = authorguard.check(text, known, background=others, attackers=["char-ngrams"], rewrite=["normalise"])
    return min(ranking.rank for ranking in result.rankings)


def assess_records(records: list[dict[str, str]]) -> str:
    audit: dict = authorguard.assess(records, author_field="author", output_dir="audit", budget_minutes=5)
    return str(audit["headline"])


def release_vectors(texts: list[str]) -> float:
    syntf = authorguard.SynTF(epsilon=54.0, random_state=0)
    matrix = syntf.fit_transform(texts)
    return float(matrix.sum())


VERSION: str = authorguard.__version__
