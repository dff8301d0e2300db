"""From the harness's results to what a data owner needs: per method setting the worst case over attackers and
threat models with a confidence interval, the utility kept, the privacy-utility front, and one recommendation that
says when it rests on differences inside the noise."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from authorguard.experiments.results import FLOOR_PREFIX, NEURAL, REFERENCE
from authorguard.metrics.statistics import overlaps, wilson_interval

THREATS = ("static", "augmented", "adversarial")
#: default --min-utility: the share of the original's task accuracy above the majority class that is kept (with a
#: label field), or the meaning kept between each original and its release (without one)
DEFAULT_MIN_UTILITY = 0.8
#: how the meaning kept is measured: the MiniLM cosine where the ``minilm`` extra is installed, else METEOR (NLTK,
#: with WordNet synonyms: every install has it), each in [0, 1] per pair, averaged
MEANING_MEASURES = {
    "embedding_cosine": "meaning kept (MiniLM cosine between each original and its release)",
    "meteor": "meaning kept (METEOR with WordNet synonyms between each original and its release; "
    "with the minilm extra, the MiniLM cosine)",
}
MEANING_KEPT = MEANING_MEASURES["embedding_cosine"]
UTILITY_NOT_MEASURED = "utility not measured: no content metric of its release was computed"
#: the share of a setting's records its validity gate may flag before the setting is not recommended: above it,
#: most of the release is the gate's fallback (copies, cut text), not the method
MAX_FLAGGED_SHARE = 0.5
#: the share of a setting's released records the fidelity meter may call ``changed`` (saying something the input
#: does not) before the setting is not recommended, however well it hides the authors (docs/results/faithful.md;
#: the meter agrees with blind hand labels on 77 % of held-out pairs, so a share is an estimate, not a count)
MAX_CHANGED_SHARE = 0.2


def task_utility(task_accuracy: float | None, original_accuracy: float, majority: float) -> float:
    """The share of the original's accuracy *above the majority class* that a release keeps, in [0, 1] (above 1 when
    the release does better): a release the analyst can only answer with the majority class keeps 0, however large
    that class is. (A plain ratio of accuracies scored noise at 0.92 on a 70 %-female sample.)"""
    return max(0.0, ((task_accuracy or 0.0) - majority) / (original_accuracy - majority))


def task_is_learnable(original_accuracy: float | None, majority: float, n_test: int) -> bool:
    """Whether the original text beats the majority class by at least one test document: otherwise no share of it
    can be measured, and utility falls back to the meaning kept."""
    return original_accuracy is not None and n_test > 0 and original_accuracy - majority >= 1.0 / n_test - 1e-12


@dataclass(frozen=True)
class SettingResult:
    """One method setting, measured. Accuracies are attribution accuracies on ``n_test`` documents; ``utility`` is
    None when it could not be measured; ``flagged_records`` of ``records`` were flagged by the method's validity
    gate (None: the method has no gate)."""

    method: str
    method_name: str
    params: dict
    worst_accuracy: float
    worst_interval: tuple[float, float]
    worst_attack: str
    worst_by_threat: dict
    by_attack: dict
    n_test: int
    utility: float | None
    utility_name: str
    task_accuracy: float | None
    meteor: float | None
    embedding_cosine: float | None
    detector_f1: float | None
    flagged_records: int | None
    seconds: float
    records: int | None = None
    faithful: float | None = None
    changed: float | None = None
    unsure: float | None = None  # the meter could not settle these: neither faithful nor changed
    generalised: float | None = None  # true but less specific (generalise's levels)
    words_kept: float | None = None  # the original's words found in order in the release

    @property
    def is_reference(self) -> bool:
        return self.method_name == REFERENCE

    @property
    def is_floor(self) -> bool:
        """A style-free view released as it is (``view:…``): measured as a floor, never a recommendation."""
        return self.method_name.startswith(FLOOR_PREFIX)

    @property
    def mostly_flagged(self) -> bool:
        """Whether the validity gate flagged more than :data:`MAX_FLAGGED_SHARE` of the records."""
        return bool(self.flagged_records and self.records and self.flagged_records > MAX_FLAGGED_SHARE * self.records)

    @property
    def mostly_changed(self) -> bool:
        """Whether the fidelity meter calls more than :data:`MAX_CHANGED_SHARE` of the released records ``changed``."""
        return self.changed is not None and self.changed > MAX_CHANGED_SHARE

    @property
    def rankable(self) -> bool:
        """Whether the setting may stand on the front and be recommended: its worst case and utility measured, its
        records mostly the method's own output, and few of them saying something their input does not."""
        return (
            self.utility is not None
            and not np.isnan(self.worst_accuracy)
            and not self.mostly_flagged
            and not self.mostly_changed
            and not self.is_floor
        )

    def to_dict(self) -> dict:
        values = asdict(self)
        values["worst_interval"] = list(self.worst_interval)
        return values


@dataclass(frozen=True)
class Recommendation:
    """The chosen setting (None when no setting meets the floor), the settings within the noise of it, and why."""

    choice: str | None
    params: dict | None
    method_name: str | None
    within_noise: list[str]
    reason: str

    def to_dict(self) -> dict:
        return asdict(self)


def _mean(frame: pd.DataFrame, column: str) -> float | None:
    if column not in frame or frame[column].dropna().empty:
        return None
    return float(frame[column].dropna().mean())


def setting_results(frame: pd.DataFrame, labelled: bool, majority: float | None = None) -> list[SettingResult]:
    """One :class:`SettingResult` per method setting of a results table (one run; the SVM and neural attackers).

    ``majority``: with ``labelled``, the test documents' share in their most frequent label; utility is then
    :func:`task_utility` (or the meaning kept, when the original does not beat the majority class)."""
    frame = frame.copy()
    for column in ("attacker", "threat_model", "classifier"):
        frame[column] = frame[column].fillna("")
    original_task, labelled_utility = None, False
    reference = frame[frame["method_name"] == REFERENCE]
    if labelled and not reference.empty:
        tasks = reference[~reference["task"].isin(["attack", "content", "detector"])]
        original_task = _mean(tasks, "accuracy")
        n_task = int(tasks["n_test"].max()) if "n_test" in tasks and not tasks.empty else 0
        labelled_utility = task_is_learnable(original_task, majority or 0.0, n_task)
    content_rows = frame[frame["task"] == "content"]
    measure = next(
        (m for m in MEANING_MEASURES if m in content_rows and not content_rows[m].dropna().empty), "embedding_cosine"
    )
    utility_of = _UtilityRule(labelled, labelled_utility, original_task, majority or 0.0, measure)
    return [
        _setting_result(method, params, group, utility_of)
        for (method, params), group in frame.groupby(["method", "params"], sort=False)
    ]


@dataclass(frozen=True)
class _UtilityRule:
    """How a setting's utility is measured on this run: the task's accuracy kept above the majority class (a
    labelled, learnable task whose original accuracy was measured), else the meaning kept by ``measure``."""

    labelled: bool
    learnable: bool
    original_task: float | None
    majority: float
    measure: str

    def __call__(self, group: pd.DataFrame, content: pd.DataFrame) -> tuple[float | None, str, float | None]:
        """(utility or None when not measured, what it is, the task's accuracy on the release or None)."""
        task_accuracy = None
        if self.labelled:
            tasks = group[
                ~group["task"].isin(["attack", "content", "detector"])
                & group["threat_model"].isin(["adversarial", "none"])
            ]
            task_accuracy = _mean(tasks, "accuracy")
        if self.learnable and self.original_task is not None:
            utility: float | None = task_utility(task_accuracy, self.original_task, self.majority)
            name = (
                f"share of the original's task accuracy above the majority class ({self.majority:.0%}) that the "
                "release keeps (analyst retrained on the release)"
            )
            return utility, name, task_accuracy
        utility = 1.0 if group["method_name"].iloc[0] == REFERENCE else _mean(content, self.measure)
        name = (
            MEANING_MEASURES[self.measure]
            if not self.labelled
            else (
                f"{MEANING_MEASURES[self.measure]}: the task on the original text does not beat its majority class "
                f"({self.majority:.0%}) by one test document"
            )
        )
        return utility, name, task_accuracy


def _by_attack(attacks: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Accuracy per attacker and threat model (an attack on the unchanged text counts under every threat model)."""
    by_attack: dict[str, dict[str, float]] = {}
    for (attacker, threat), rows in attacks.groupby(["attacker", "threat_model"]):
        for t in THREATS if threat == "none" else (threat,):
            by_attack.setdefault(attacker, {})[t] = float(rows["accuracy"].mean())
    return by_attack


def _method_report(group: pd.DataFrame) -> dict:
    """The method's release report of a setting's rows ({} when it has none)."""
    if "method_report" not in group:
        return {}
    stored = group["method_report"].iloc[0]
    return json.loads(stored) if isinstance(stored, str) and stored else {}


def _setting_result(method: str, params: str, group: pd.DataFrame, utility_of: _UtilityRule) -> SettingResult:
    """One setting's rows summarised: its worst case over attackers and threat models, utility, fidelity, cost."""
    attacks = group[(group["task"] == "attack") & group["classifier"].isin(["svm", NEURAL])]
    by_attack = _by_attack(attacks)
    worst_by_threat = {t: max((v[t] for v in by_attack.values() if t in v), default=float("nan")) for t in THREATS}
    worst, worst_attack = float("nan"), "-"
    for attacker, values in by_attack.items():
        for threat, value in values.items():
            if not value <= worst:
                worst, worst_attack = value, f"{attacker} / {threat}"
    n_test = int(attacks["n_test"].max()) if not attacks.empty else 0
    content = group[group["task"] == "content"]
    utility, utility_name, task_accuracy = utility_of(group, content)
    report = _method_report(group)
    flagged = report.get("records_flagged")
    # the records the method rewrote: its own count, else every document the attackers saw
    records = report.get(
        "documents", int(attacks["n_train"].max()) + n_test if flagged is not None and not attacks.empty else None
    )
    return SettingResult(
        method=method,
        method_name=str(group["method_name"].iloc[0]),
        params=json.loads(params) if params else {},
        worst_accuracy=worst,
        worst_interval=wilson_interval(worst, n_test) if n_test else (float("nan"), float("nan")),
        worst_attack=worst_attack,
        worst_by_threat=worst_by_threat,
        by_attack=by_attack,
        n_test=n_test,
        utility=None if utility is None else float(utility),
        utility_name=utility_name,
        task_accuracy=task_accuracy,
        meteor=_mean(content, "meteor"),
        embedding_cosine=_mean(content, "embedding_cosine"),
        detector_f1=_mean(group[group["task"] == "detector"], "f1_macro"),
        flagged_records=flagged,
        seconds=float(group["cell_seconds"].max()),
        records=records,
        faithful=_mean(content, "faithful"),
        changed=_mean(content, "changed"),
        unsure=_mean(content, "unsure"),
        generalised=_mean(content, "generalised"),
        words_kept=_mean(content, "words_kept"),
    )


def content_floors(results: list[SettingResult], chance: float) -> list[dict]:
    """How much of the original's identifiability each floor keeps: per floor (and the meaning attacker on the
    original text, the meaning floor) the worst-case accuracy and the share of the original's worst case above
    chance that it keeps, ``(floor - chance) / (original - chance)``. Empty when no floor was measured."""
    reference = next((r for r in results if r.is_reference), None)
    floors = [r for r in results if r.is_floor and not np.isnan(r.worst_accuracy)]
    if reference is None or not floors or np.isnan(reference.worst_accuracy):
        return []
    above = reference.worst_accuracy - chance

    def share(value: float) -> float | None:
        return None if above <= 0 else float(np.clip((value - chance) / above, 0.0, 1.0))

    rows = [
        {
            "floor": r.method,
            "view": r.method_name[len(FLOOR_PREFIX) :],
            "worst_accuracy": r.worst_accuracy,
            "worst_interval": list(r.worst_interval),
            "worst_attack": r.worst_attack,
            "share_kept": share(r.worst_accuracy),
        }
        for r in floors
    ]
    meaning = reference.by_attack.get("meaning", {}).get("static")
    if meaning is not None:
        rows.append(
            {
                "floor": "meaning floor",
                "view": "a sentence embedding of the original (the meaning attacker)",
                "worst_accuracy": meaning,
                "worst_interval": list(wilson_interval(meaning, reference.n_test)),
                "worst_attack": "meaning / static",
                "share_kept": share(meaning),
            }
        )
    return rows


def _utility(result: SettingResult) -> float:
    """The utility of a setting that is ranked: a rankable one, or the unprotected text (utility 1, or the task's
    share), always has one."""
    if result.utility is None:
        raise ValueError(f"{result.method}: its utility was not measured, so it cannot be ranked")
    return result.utility


def front(results: list[SettingResult]) -> list[str]:
    """The rankable settings (and the unprotected text) no other beats on both worst-case accuracy (lower) and
    utility (higher)."""
    candidates = [r for r in results if r.is_reference or r.rankable]
    on_front = []
    for r in candidates:
        dominated = any(
            o is not r
            and o.worst_accuracy <= r.worst_accuracy
            and _utility(o) >= _utility(r)
            and (o.worst_accuracy < r.worst_accuracy or _utility(o) > _utility(r))
            for o in candidates
        )
        if not dominated:
            on_front.append(r.method)
    return on_front


def risk_headline(reference: SettingResult, chance: float) -> str:
    """The risk in one sentence: the worst case over attackers and threat models on the unprotected text."""
    if np.isnan(reference.worst_accuracy):
        return "No attack could be measured on the unprotected text."
    lo, hi = reference.worst_interval
    attacker = reference.worst_attack.split(" / ")[0]
    return (
        f"The strongest attack names the author of {reference.worst_accuracy:.0%} of {reference.n_test} test documents "
        f"({attacker} on the unprotected text, 95 % CI {lo:.0%}–{hi:.0%}; chance {chance:.0%})."
    )


def unmeasured_utility(results: list[SettingResult]) -> dict[str, str]:
    """Settings whose utility could not be measured, with what would measure it: they are left out of the ranking."""
    return {r.method: UTILITY_NOT_MEASURED for r in results if not r.is_reference and r.utility is None}


def gate_refusals(results: list[SettingResult]) -> dict[str, str]:
    """Settings whose validity gate flagged most records, or whose released records the fidelity meter mostly calls
    ``changed``: measured, never on the front nor recommended."""
    refused = {
        r.method: f"{r.flagged_records} of {r.records} records flagged by the validity gate: not recommended"
        for r in results
        if not r.is_reference and r.mostly_flagged
    }
    for r in results:
        if not r.is_reference and not r.is_floor and r.mostly_changed and r.method not in refused:
            refused[r.method] = (
                f"the fidelity meter calls {r.changed:.0%} of its sampled outputs changed (they say "
                f"something the input does not; at most {MAX_CHANGED_SHARE:.0%} allowed): not recommended"
            )
    return refused


def _grouped(reasons: dict[str, str]) -> list[str]:
    """``"a, b (reason)"`` for each reason, the names sharing it together, in first-seen order."""
    names: dict[str, list[str]] = {}
    for name, reason in reasons.items():
        names.setdefault(reason, []).append(name)
    return [f"{', '.join(n)} ({reason})" for reason, n in names.items()]


def _not_compared(results: list[SettingResult], left_out: dict[str, str]) -> list[str]:
    """Sentences naming the methods the verdict could not weigh and what would include them."""
    missing = {**left_out, **unmeasured_utility(results)}
    parts = [f"Left out, so not compared: {'; '.join(_grouped(missing))}."] if missing else []
    return parts + [f"{name}: {reason}." for name, reason in gate_refusals(results).items()]


def _cost_of_protection(ranked: list[SettingResult], reference: SettingResult) -> str:
    """What the measured protection beyond the noise of the unprotected text costs in utility, if any exists."""
    protective = [r for r in ranked if not overlaps(r.worst_interval, reference.worst_interval)]
    if not protective:
        return "No measured method lowers the worst case beyond the noise at any utility."
    cheapest = max(protective, key=_utility)
    return (
        f"Measurable protection costs utility here: {cheapest.method} brings the worst case to "
        f"{cheapest.worst_accuracy:.0%} at utility {cheapest.utility:.2f}."
    )


def recommend(
    results: list[SettingResult], min_utility: float, chance: float, left_out: dict[str, str] | None = None
) -> Recommendation:
    """The setting with the lowest worst-case accuracy among the rankable ones keeping at least ``min_utility``.

    Settings whose 95 % interval overlaps the best one's cannot be ranked against it on these documents: among them
    (less those within the noise of the unprotected text) the one keeping the most utility is chosen, and the reason
    says so. When even the best is within the noise of the unprotected text, nothing is recommended: the reason
    names what measurable protection would cost instead. Overlapping intervals are a conservative
    test (two overlapping 95 % intervals can still differ), so "within the noise" errs towards not ranking.
    ``left_out``: methods not measured, each with what would include it; the reason names them, and the settings
    whose utility is unknown or whose records the validity gate mostly flagged."""
    reference = next((r for r in results if r.is_reference), None)
    ranked = [r for r in results if not r.is_reference and r.rankable]
    eligible = [r for r in ranked if _utility(r) >= min_utility]
    not_compared = _not_compared(results, left_out or {})
    if reference is None or not eligible:
        kept = ", ".join(f"{r.method} {r.utility:.2f}" for r in ranked)
        parts = [
            f"No measured method keeps utility ≥ {min_utility:.2f} ({kept}), so none is recommended."
            if ranked
            else "No method could be ranked, so none is recommended."
        ]
        if reference is not None and ranked:
            parts.append(_cost_of_protection(ranked, reference))
        return Recommendation(None, None, None, [], " ".join(parts + not_compared))
    best = min(eligible, key=lambda r: (r.worst_accuracy, -_utility(r)))
    tied = [
        r
        for r in eligible
        if overlaps(r.worst_interval, best.worst_interval)
        and (r is best or not overlaps(r.worst_interval, reference.worst_interval))
    ]
    choice = max(tied, key=lambda r: (_utility(r), -r.worst_accuracy))
    lo, hi = choice.worst_interval
    parts = []
    if overlaps(best.worst_interval, reference.worst_interval):
        parts.append(
            f"No method keeping utility ≥ {min_utility:.2f} lowers the worst case beyond the noise on these documents "
            f"(the lowest, {best.method}, leaves {best.worst_accuracy:.0%}, CI {best.worst_interval[0]:.0%}–"
            f"{best.worst_interval[1]:.0%}), so none is recommended."
        )
        parts.append(_cost_of_protection(ranked, reference))
        return Recommendation(None, None, None, [r.method for r in tied], " ".join(parts + not_compared))
    if len(tied) > 1:
        parts.append(
            f"{', '.join(r.method for r in tied)} cannot be ranked against each other (their 95 % intervals "
            f"overlap), so the one keeping the most utility is recommended: {choice.method}."
        )
    else:
        parts.append(
            f"{choice.method} has the lowest worst case among the methods keeping utility ≥ {min_utility:.2f}."
        )
    parts.append(
        f"With it the strongest attack over every attacker and threat model ({choice.worst_attack}) names "
        f"{choice.worst_accuracy:.0%} (CI {lo:.0%}–{hi:.0%}) at utility {choice.utility:.2f}"
        + (
            f"; it is within the noise of chance ({chance:.0%})."
            if lo <= chance
            else "; that is still above chance: "
            "the text keeps identifying its authors, so share it only with that risk accepted."
        )
    )
    return Recommendation(
        choice.method, choice.params, choice.method_name, [r.method for r in tied], " ".join(parts + not_compared)
    )
