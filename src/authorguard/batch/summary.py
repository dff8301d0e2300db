"""What a run of the obfuscation pipeline says about itself, as lines for a person: the statuses counted, the
fidelity meter's verdicts, the validity gate's work, the privacy cost, what the method protects against and its
registered notes (``register(..., notes=...)``). The CLI prints them; the API's caller can too."""

from __future__ import annotations

from collections import Counter


def status_counts(statuses: list[dict]) -> str:
    """ "N rewritten, N partly normalised, N released as their view, N kept as written, N withheld" (every status
    named, zeros included)."""
    counts = Counter(status["status"] for status in statuses)
    return (
        f"{counts['rewritten']} rewritten, {counts['normalised']} partly normalised, {counts['view']} released as "
        f"their view, {counts['kept']} kept as written, {counts['withheld']} withheld"
    )


def fidelity_summary(scores: list, statuses: list | None = None) -> str:
    """One line: the count of each verdict, by the fidelity meter (which agrees with blind hand labels on about 3 of
    4 pairs: docs/results/faithful.md); with ``statuses``, how many of the faithful were kept as written (nothing to
    judge: they are the input)."""
    from authorguard.metrics.fidelity import verdict_counts

    counts = verdict_counts(scores)
    kept = sum(
        1 for score, status in zip(scores, statuses or ()) if status["status"] == "kept" and score.verdict == "faithful"
    )
    faithful = f"{counts['faithful']} faithful" + (f" ({kept} of them kept as written)" if kept else "")
    judged = bool(scores) and scores[0].meter != "rules"
    source = (
        f"automatic meter with the {scores[0].meter}; docs/results/judge.md"
        if judged
        else "automatic meter; docs/results/faithful.md"
    )
    return (
        f"fidelity ({source}): {faithful}, "
        + (f"{counts['generalised']} generalised (true, less specific), " if counts["generalised"] else "")
        + f"{counts['partial']} partial, "
        f"{counts['unsure']} unsure (the meter cannot settle them: read them), {counts['changed']} changed, "
        f"{counts['not scored']} not scored (withheld or too long)"
    )


def validity_summary(report: dict) -> str:
    """One line on what the validity gate did, from a rewriter's ``release_report``."""
    flagged = report["records_flagged"]
    if "records_rewritten" in report:  # a selecting rewriter: refused candidates were replaced or fell back
        fallback = {
            "keep": "kept as written",
            "withhold": "withheld",
            "view": "released as their view",
            "normalise": "released as normalise's text",
        }.get(report.get("fallback", ""), "fallback")
        chunks = (
            f"{report.get('chunks_fallback', 0)} of {report['chunks']} chunks without a valid rewrite, "
            if "chunks" in report
            else ""
        )  # a rewriter that falls back whole documents has no chunks
        return (
            f"validity gate: {report['records_rewritten']} records rewritten, {flagged} flagged "
            f"({chunks}{fallback}); refused candidates: {report.get('refused', {})}"
        )
    return (
        f"validity gate: {flagged} records have a paraphrase the gate refuses (counted only, not replaced): "
        f"{report.get('validity', {})}"
    )


def privacy_line(report: dict) -> str | None:
    """What one record's release costs, when the method reports a document ε; else None."""
    if report.get("document_epsilon") is None:
        return None
    randomness = "; tokens from the OS CSPRNG" if report.get("secure_random") else "; seeded: keep the seed secret"
    epsilon = report["document_epsilon"]
    return f"privacy: each record's release costs ε = {epsilon:,.4g} (pure ε-DP per document{randomness})"


def run_summary(method: str, result, report: dict) -> list[str]:
    """The lines after a run of ``method``: its statuses, the fidelity verdicts (when scored), what it protects
    against, its privacy cost, the gate's work and its registered notes (``result``: an
    :class:`~authorguard.batch.obfuscation.Obfuscated`; ``report``: the method's ``release_report()``)."""
    from authorguard import registry

    info = registry.methods.info(method) if method in registry.methods else {}
    lines = [status_counts(result.statuses)]
    if result.scores is not None:
        lines.append(fidelity_summary(result.scores, result.statuses))
    if info.get("protects"):
        lines.append(f"{method} protects against: {info['protects']} (authorguard methods; README)")
    if (privacy := privacy_line(report)) is not None:
        lines.append(privacy)
    if "records_flagged" in report:
        lines.append(validity_summary(report))
    if info.get("notes"):
        lines.append(f"note: {info['notes']}")
    return lines
