"""From the tidy results table to the paper's quantities: beta, gain, the best setting, mean +- sd tables.

beta_U = F1_U(method) / F1_U(original) and beta_A likewise, per run (paired: the same run seed) and
classifier; gain = beta_U - beta_A [WK18]. The unprotected reference is the method registered as
``original``; without it there are no betas.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from authorguard.attacks.base import THREAT_MODELS, canonical_threat_model
from authorguard.exceptions import InputError

REFERENCE = "original"
_KEYS = ["method", "params", "run", "classifier"]


def gains(frame: pd.DataFrame, utility_task: str = "topic") -> pd.DataFrame:
    """One row per method x setting x run x scenario x attacker x threat model x classifier with
    ``utility_f1``, ``attack_f1``, ``beta_u``, ``beta_a`` and ``gain`` (columns of the privacy report kept)."""
    frame = frame.copy()
    for column in ("attacker", "threat_model"):
        frame[column] = frame[column].fillna("")
    if REFERENCE not in set(frame["method_name"]):
        raise InputError(f"the results have no {REFERENCE!r} method: betas and gains need the unprotected reference")
    # the analyst of the SynTF paper retrains on the release (threat model "adversarial"; "none" for the reference)
    utility = frame[(frame["task"] == utility_task) & frame["threat_model"].isin(["adversarial", "none", ""])]
    if utility.empty:
        raise InputError(f"the results have no {utility_task!r} task rows")
    attack = frame[frame["task"] == "attack"]
    reference_u = utility[utility["method_name"] == REFERENCE].groupby(["run", "classifier"])["f1_macro"].mean()
    reference_a = (
        attack[attack["method_name"] == REFERENCE]
        .groupby(["run", "scenario", "attacker", "classifier"])["f1_macro"]
        .mean()
    )
    u = utility.set_index(_KEYS)["f1_macro"].rename("utility_f1")
    out = attack.join(u, on=_KEYS).rename(columns={"f1_macro": "attack_f1"})
    out = out.join(reference_u.rename("utility_f1_original"), on=["run", "classifier"])
    out = out.join(reference_a.rename("attack_f1_original"), on=["run", "scenario", "attacker", "classifier"])
    out["beta_u"] = out["utility_f1"] / out["utility_f1_original"]
    out["beta_a"] = out["attack_f1"] / out["attack_f1_original"]
    out["gain"] = out["beta_u"] - out["beta_a"]
    return out.reset_index(drop=True)


def select_attack(table: pd.DataFrame, attacker: str, threat_model: str, classifier: str) -> pd.DataFrame:
    """The rows of one attacker / threat model / classifier; the reference keeps its single ("none") rows."""
    for column, value in (("attacker", attacker), ("classifier", classifier)):
        if value not in set(table[column]):
            raise InputError(f"the results have no {column} {value!r} (have: {', '.join(sorted(set(table[column])))})")
    threat_model = canonical_threat_model(threat_model)
    table = table.assign(
        threat_model=table["threat_model"].map(lambda t: canonical_threat_model(t) if isinstance(t, str) else t)
    )
    threat_ok = (table["threat_model"] == threat_model) | (table["method_name"] == REFERENCE)
    if not (table["threat_model"] == threat_model).any() and set(table["method_name"]) != {REFERENCE}:
        raise InputError(f"the results have no threat model {threat_model!r}")
    return table[(table["attacker"] == attacker) & (table["classifier"] == classifier) & threat_ok]


def setting_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per method x setting: mean over runs of each scenario's gain, the minimum over scenarios (the paper's
    selection criterion), and the privacy columns. Expects :func:`select_attack` output."""
    per_scenario = (
        table.groupby(["method", "params", "scenario"], sort=False)
        .agg(gain=("gain", "mean"), beta_u=("beta_u", "mean"), beta_a=("beta_a", "mean"))
        .reset_index()
    )
    summary = (
        per_scenario.groupby(["method", "params"], sort=False)
        .agg(min_gain=("gain", "min"), mean_beta_u=("beta_u", "mean"), mean_beta_a=("beta_a", "mean"))
        .reset_index()
    )
    privacy = (
        table.groupby(["method", "params"], sort=False)[["epsilon", "loss_per_word", "total_loss", "n_words"]]
        .first()
        .reset_index()
    )
    return summary.merge(privacy, on=["method", "params"], how="left")


def best_settings(table: pd.DataFrame) -> dict[str, str]:
    """method -> the params (JSON) maximising the minimum over scenarios of the mean gain (p-hat)."""
    summary = setting_summary(table)
    best = summary.loc[summary.groupby("method", sort=False)["min_gain"].idxmax().dropna()]
    chosen = {row.method: row.params for row in best.itertuples()}
    for method in summary["method"].unique():  # the reference has no gain of its own
        chosen.setdefault(method, summary.loc[summary["method"] == method, "params"].iloc[0])
    return chosen


def mean_sd(values: pd.Series) -> str:
    values = values.dropna()
    if values.empty:
        return "–"
    if len(values) == 1:
        return f"{values.mean():.3f}"
    return f"{values.mean():.3f} ± {values.std(ddof=1):.3f}"


def table3(
    frame: pd.DataFrame, scenario: str, attacker: str, threat_model: str, classifier: str, chosen: dict[str, str]
) -> pd.DataFrame:
    """The paper's Table 3 for one scenario: per method (at its chosen setting) utility F1, attack F1, gain,
    each mean +- sd over runs, with the privacy level (loss per word l, l*n, epsilon)."""
    table = select_attack(gains(frame), attacker, threat_model, classifier)
    table = table[table["scenario"] == scenario]
    if table.empty:
        raise InputError(f"the results have no scenario {scenario!r}")
    rows = []
    for method, params in chosen.items():
        part = table[(table["method"] == method) & (table["params"] == params)]
        if part.empty:
            continue
        first = part.iloc[0]
        rows.append(
            {
                "method": method,
                "setting": _short_params(params),
                "utility F1": mean_sd(part["utility_f1"]),
                "attack F1": mean_sd(part["attack_f1"]),
                "gain": "–" if first["method_name"] == REFERENCE else mean_sd(part["gain"]),
                "l per word": _fmt(first.get("loss_per_word")),
                "l·n": _fmt(first.get("total_loss")),
                "epsilon": _fmt(first.get("epsilon")),
                "runs": part["run"].nunique(),
            }
        )
    return pd.DataFrame(rows)


def _fmt(value) -> str:
    return "–" if value is None or (isinstance(value, float) and np.isnan(value)) else f"{float(value):.4g}"


def _short_params(params: str) -> str:
    values = json.loads(params) if params else {}
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "–"


def attack_matrix(frame: pd.DataFrame, scenario: str, chosen: dict[str, str]) -> pd.DataFrame:
    """Every attack on one scenario at each method's chosen setting: rows method, columns
    attacker / threat model / classifier, cells mean +- sd of F1 over runs; plus the utility F1 per classifier."""
    frame = frame.copy()
    for column in ("attacker", "threat_model"):
        frame[column] = frame[column].fillna("")
    rows = []
    for method, params in chosen.items():
        part = frame[(frame["method"] == method) & (frame["params"] == params)]
        if part.empty:
            continue
        row = {"method": method}
        for classifier, scores in part[part["scenario"] == "all"].groupby("classifier"):
            row[f"utility {classifier}"] = mean_sd(scores["f1_macro"])
        attacks = part[(part["scenario"] == scenario) & (part["task"] == "attack")]
        for (attacker, threat, classifier), scores in attacks.groupby(["attacker", "threat_model", "classifier"]):
            threats = list(THREAT_MODELS) if threat == "none" else [canonical_threat_model(threat)]
            for t in threats:
                row[f"{attacker} {t} {classifier}"] = mean_sd(scores["f1_macro"])
        rows.append(row)
    return pd.DataFrame(rows).fillna("–")


# -- the text benchmark's tables ------------------------------------------------------------------------------

CONTENT_COLUMNS = {
    "faithful": "faithful",
    "generalised": "generalised",
    "changed": "changed",
    "unsure": "unsure",
    "meteor": "METEOR",
    "chrf": "chrF",
    "bleu": "BLEU",
    "rougeL": "ROUGE-L",
    "embedding_cosine": "MiniLM cos",
    "unchanged": "unchanged",
    "words_kept": "words kept",
    "perplexity": "LM ppl",
}
#: the registered names of the floor rows (:mod:`authorguard.methods.bottleneck`: a style-free view released as it is)
FLOOR_PREFIX = "view:"
#: the classifier column of attackers that bring their own model (:attr:`Attacker.own_classifier`)
NEURAL = "neural"


def with_classifier(rows: pd.DataFrame, classifier: str) -> pd.DataFrame:
    """Rows scored with ``classifier``, plus the attackers that bring their own model (they have no choice)."""
    return rows[rows["classifier"].isin([classifier, NEURAL])]


UTILITY_TRAINING = {"static": "trained on original", "adversarial": "retrained"}


def _attack_means(part: pd.DataFrame, metric: str) -> dict[tuple[str, str], pd.Series]:
    """(attacker, threat model) -> per-run scores; the reference's single "none" attack stands for every threat."""
    out: dict[tuple[str, str], pd.Series] = {}
    for (attacker, threat), scores in part.groupby(["attacker", "threat_model"], sort=True):
        for t in THREAT_MODELS if threat == "none" else [threat]:
            out[(attacker, t)] = scores.groupby("run")[metric].mean()
    return out


def worst_case(part: pd.DataFrame, metric: str = "f1_macro") -> tuple[float, str]:
    """The strongest attack on one method setting: the largest mean ``metric`` over every attacker x threat
    model (x classifier), and which attack that was."""
    attacks = part[part["task"] == "attack"]
    best, name = float("nan"), "–"
    for (attacker, threat, classifier), scores in attacks.groupby(["attacker", "threat_model", "classifier"]):
        value = scores[metric].mean()
        if not value <= best:  # also replaces the initial NaN
            best, name = float(value), f"{attacker} / {threat} / {classifier}"
    return best, name


def _utility_rows(group: pd.DataFrame, classifier: str) -> pd.DataFrame:
    """The utility-task rows of ``classifier`` (every task but attacks, content metrics and detectors)."""
    return group[~group["task"].isin(["attack", "content", "detector"]) & (group["classifier"] == classifier)]


def _document_epsilon(group: pd.DataFrame) -> float:
    """What one document's release costs for this method setting (NaN without a guarantee, or in results made
    before the column existed)."""
    values = group["document_epsilon"].dropna() if "document_epsilon" in group else pd.Series(dtype=float)
    return float(values.iloc[0]) if not values.empty else np.nan


def benchmark_table(
    frame: pd.DataFrame, view: str, metric: str = "f1_macro", classifier: str = "svm", part_name: str = "all"
) -> pd.DataFrame:
    """One row per method setting on one benchmark view: utility (trained on the original text, and retrained on
    the release), every attacker x threat model, the worst case, content metrics and each detector's F1;
    each a mean (± sd over runs when there are several). ``part_name``: ``"summary"`` (all but the per-attack
    columns), ``"attacks"`` (method, setting, the per-attack columns) or ``"all"``."""
    part = frame[frame["view"] == view]
    if part.empty:
        raise InputError(f"the results have no view {view!r}")
    rows = []
    for (method, params), group in part.groupby(["method", "params"], sort=False):
        row = {"method": method, "setting": setting_label(params)}
        epsilon = _document_epsilon(group)
        if not np.isnan(epsilon):
            row["document ε"] = f"{epsilon:,.0f}"
        tasks = _utility_rows(group, classifier)
        for threat, label in UTILITY_TRAINING.items():
            scores = tasks[(tasks["threat_model"] == threat) | (tasks["threat_model"] == "none")]
            if not scores.empty:
                row[f"{scores['task'].iloc[0]} ({label})"] = mean_sd(scores.groupby("run")[metric].mean())
        attacks = with_classifier(group[group["task"] == "attack"], classifier)
        for (attacker, threat), scores in _attack_means(attacks, metric).items():
            row[f"{attacker} {threat}"] = mean_sd(scores)
        value, name = worst_case(with_classifier(group, classifier), metric)
        row["worst case"] = "–" if np.isnan(value) else f"{value:.3f} ({name.rsplit(' / ', 1)[0]})"
        content = group[group["task"] == "content"]
        for column, label in CONTENT_COLUMNS.items():
            if column in content.columns and content[column].notna().any():
                row[label] = mean_sd(content.groupby("run")[column].mean())
        detectors = group[group["task"] == "detector"]
        for name, scores in detectors.groupby("attacker", sort=True):
            row[f"detector F1 ({name})"] = mean_sd(scores.groupby("run")["f1_macro"].mean())
        rows.append(row)
    table = pd.DataFrame(rows).fillna("–")
    if "document ε" in table:  # beside the setting it belongs to
        table.insert(2, "document ε", table.pop("document ε"))
    attack_columns = [c for c in table.columns if any(c.endswith(f" {t}") for t in THREAT_MODELS)]
    if part_name == "summary":
        return table.drop(columns=attack_columns)
    if part_name == "attacks":  # long: one row per method setting x attacker, one column per threat model
        long = []
        for row in table.to_dict("records"):
            attackers = dict.fromkeys(c.rsplit(" ", 1)[0] for c in attack_columns)
            for attacker in attackers:
                long.append(
                    {
                        "method": row["method"],
                        "setting": row["setting"],
                        "attacker": attacker,
                        **{t: row.get(f"{attacker} {t}", "–") for t in THREAT_MODELS},
                    }
                )
        return pd.DataFrame(long)
    return table


def benchmark_points(frame: pd.DataFrame, view: str, classifier: str = "svm") -> pd.DataFrame:
    """Per method setting of one view: ``privacy`` = worst-case attack F1 (lower is better) and ``utility`` =
    the utility task's F1 when trained on the original text (TAROT's Table 2), or METEOR where the view has no
    utility task (the attribute scenarios); with ``utility_name``, ``utility_retrained`` (the task retrained on
    the release) and ``document_epsilon`` (what one document's release costs; NaN without a guarantee)."""
    part = frame[(frame["view"] == view)]
    rows = []
    for (method, params), group in part.groupby(["method", "params"], sort=False):
        utility_rows = _utility_rows(group, classifier)
        tasks = utility_rows[utility_rows["threat_model"].isin(["static", "none"])]
        if not tasks.empty:
            utility, name = tasks["f1_macro"].mean(), f"{tasks['task'].iloc[0]} F1 (trained on original)"
        else:
            content = group[group["task"] == "content"]
            utility, name = (content["meteor"].mean() if "meteor" in content else np.nan), "METEOR"
        retrained = utility_rows[utility_rows["threat_model"].isin(["adversarial", "none"])]
        privacy, _ = worst_case(with_classifier(group, classifier))
        rows.append(
            {
                "method": method,
                "setting": setting_label(params),
                "utility": utility,
                "privacy": privacy,
                "utility_name": name,
                "utility_retrained": retrained["f1_macro"].mean() if not retrained.empty else np.nan,
                "document_epsilon": _document_epsilon(group),
            }
        )
    return pd.DataFrame(rows)


def setting_label(params: str) -> str:
    values = json.loads(params) if params else {}
    return ", ".join(f"{k}={v}" for k, v in values.items())
