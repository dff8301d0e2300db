"""The check's result: one object the Python API returns, the CLI prints and the web page renders."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from authorguard.check.generalisation import GeneralisedCheck


@dataclass(frozen=True)
class AttackerRanking:
    """One attacker at one candidate-set size: the writer's ``rank`` (1: picked out) among ``candidates``;
    ``margin``: the writer's score minus the best other candidate's, in the attacker's own units (> 0 when ranked
    first); ``probability``: the calibrated probability that the writer wrote the text (temperature scaling on
    ``calibration_texts`` held-out texts of the background authors; ``calibration_error``: its expected calibration
    error there, cross-fitted, NaN with too few texts); ``threat_model``: ``static`` (learnt from the writing as is)
    or ``augmented`` (also from the writing rewritten by the method); ``margin`` > 0 exactly when ``rank`` is 1
    (ties aside); ``top_probability``: the probability of the candidate ranked first (the writer's when ``rank``
    is 1); ``calibration_pairs``: [probability of the top candidate, whether it was the author] of each held-out
    text, cross-fitted (what ``calibration_error`` is computed from; empty for the rankings of a rewrite, which
    reuse the original's calibration)."""

    attacker: str
    candidates: int
    rank: int
    margin: float
    probability: float
    calibration_error: float
    calibration_texts: int
    temperature: float
    threat_model: str = "static"
    top_probability: float = float("nan")
    calibration_pairs: list = field(default_factory=list)


@dataclass(frozen=True)
class RewriteCheck:
    """The check after a rewrite by ``method``: the ``text`` released (None: the method refused it, ``status``
    says why), its ``meaning`` (MiniLM cosine to the original text), its ``fidelity`` by the fidelity meter
    (faithful / partial / unsure / changed, with ``fidelity_reason`` when not faithful) and the rankings of the
    rewrite."""

    method: str
    text: str | None
    status: str
    meaning: float
    rankings: list = field(default_factory=list)
    seconds: float = 0.0
    fidelity: str | None = None
    fidelity_reason: str | None = None


@dataclass
class CheckResult:
    """Everything a check found. ``statements``: what can and cannot be concluded (too little text, too few
    background authors, attackers left out and why), in plain words, in the order they matter."""

    text_words: int
    known_words: int
    piece_words: int
    genre: str
    background: str
    background_authors: int
    rankings: list = field(default_factory=list)
    evidence: list = field(default_factory=list)
    rewrites: list = field(default_factory=list)
    statements: list = field(default_factory=list)
    seconds: float = 0.0
    genre_reason: str = ""
    #: the check after "Generalise what gives me away" (:class:`~authorguard.check.generalisation.GeneralisedCheck`)
    generalised: GeneralisedCheck | None = None

    def strongest(self, rankings: list | None = None) -> AttackerRanking | None:
        """The ranking that gives the writer the highest probability (the risk is the worst attacker's)."""
        rankings = self.rankings if rankings is None else rankings
        return max(rankings, key=lambda r: (r.probability, -r.rank), default=None)

    def verdict(self) -> str:
        """One sentence: would the text be linked to the writer?"""
        top = self.strongest()
        if top is None:
            return "No attacker could be run: " + (self.statements[0] if self.statements else "nothing to check.")
        picked = [r for r in self.rankings if r.rank == 1]
        if picked:
            largest = max(r.candidates for r in picked)
            return (
                f"Yes: {len(picked)} of {len(self.rankings)} attacks rank you first, up to {largest} candidates; "
                f"the strongest ({top.attacker}, {top.candidates} candidates) gives you a probability of "
                f"{top.probability:.1%}."
            )
        return (
            f"Not first: no attack ranks you first; the strongest ({top.attacker}, {top.candidates} candidates) "
            f"ranks you {top.rank} with a probability of {top.probability:.1%}."
        )

    def to_dict(self) -> dict:
        """Plain JSON types (NaN as None: JSON has no NaN), with the verdict and each evidence item's description."""
        out = asdict(self)
        out["verdict"] = self.verdict()
        out["evidence"] = [{**asdict(e), "description": e.describe()} for e in self.evidence]
        return _finite(out)

    def lines(self) -> list[str]:
        """The result as plain text lines (what ``authorguard check`` prints)."""
        out = [
            self.verdict(),
            "",
            f"Text: {self.text_words} words; known writing: {self.known_words} words (learnt in pieces of "
            f"{self.piece_words} words); background: {self.background_authors} authors, {self.background} "
            f"(genre {self.genre}" + (f": {self.genre_reason}" if self.genre_reason else "") + ").",
        ]
        out += [f"Note: {s}" for s in self.statements]
        if self.rankings:
            out += ["", f"{'attacker':<30}candidates  rank  margin   probability  calibration error (texts)"]
            out += [_ranking_line(r) for r in self.rankings]
        if self.evidence:
            out += ["", "What in the text pulls towards you most (against the strongest other candidate):"]
            out += [
                f"  - {e.describe()} [{e.attacker}, {e.weight:.0%} of what pulls towards you]"
                + (f"; generalise it: “{e.feature}” -> “{e.generalisation}”" if e.generalisation else "")
                for e in self.evidence
            ]
        found = self.generalised
        if found is not None:
            out += [
                "",
                f"After generalising what gives you away ({len(found.changes)} changes; fidelity {found.fidelity}"
                + (f": {found.fidelity_reason}" if found.fidelity_reason else "")
                + "; the same attackers, nothing refitted):",
                "  " + found.text,
                "  changes: "
                + ("; ".join(f"“{old}” -> “{new or '(left out)'}”" for old, new in found.changes) or "none"),
            ]
            out += [_ranking_line(r) for r in found.rankings]
        for rewrite in self.rewrites:
            fidelity = (
                f"; fidelity {rewrite.fidelity}" + (f": {rewrite.fidelity_reason}" if rewrite.fidelity_reason else "")
                if rewrite.fidelity
                else ""
            )
            out += [
                "",
                f"After {rewrite.method} ({rewrite.status}, meaning kept {rewrite.meaning:.2f}{fidelity}; "
                "probabilities calibrated on writing that was not rewritten):",
            ]
            if rewrite.text is not None:
                out += ["  " + rewrite.text]
            out += [_ranking_line(r) for r in rewrite.rankings]
        return out


def _finite(value):
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _ranking_line(r: AttackerRanking) -> str:
    name = r.attacker if r.threat_model == "static" else f"{r.attacker} ({r.threat_model})"
    error = "n/a" if r.calibration_error != r.calibration_error else f"{r.calibration_error:.3f}"
    return (
        f"{name:<30}{r.candidates:>10}  {r.rank:>4}  {r.margin:>+6.3f}   {r.probability:>10.1%}  "
        f"{error} ({r.calibration_texts})"
    )
