"""authorguard assess: profile and refusals, the plan, the statistics, the recommendation, and a whole run on a
generated corpus whose authors are identifiable only by planted marker words."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from authorguard.assess.plan import Candidate, plan_assessment
from authorguard.assess.profile import profile_corpus
from authorguard.assess.recommend import SettingResult, recommend, task_is_learnable, task_utility
from authorguard.assess.statistics import overlaps, wilson_interval
from authorguard.cli.app import app
from authorguard.exceptions import InputError

WORDS = ("the river city morning people walked along market street while children played near old stone bridge "
         "and evening light fell over quiet houses where families shared bread talked about weather work travel").split()
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
            rows.append({"id": f"{author}-{i}", "text": " ".join(words).capitalize() + ".", "writer": author,
                         "topic": "a" if i % 2 else "b"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _result(name, worst, utility, n=40, reference=False):
    return SettingResult(name, "original" if reference else name, {}, worst, wilson_interval(worst, n), "char-ngrams / static",
                         {}, {}, n, utility, "meaning", None, None, None, None, None, 1.0)


def test_profile_counts_and_refuses_what_cannot_be_measured():
    texts = ["a b c", "d e", "", "f g h i"] * 3
    authors = ["x", "x", "x", None] * 3
    profile = profile_corpus(texts, authors, ["l1", None, "l2", "l1"] * 3)
    assert (profile.documents, profile.authors, profile.without_author, profile.empty_texts) == (12, 1, 3, 3)
    assert profile.words_max == 4 and profile.usable_documents == 6 and profile.usable_authors == 1
    assert profile.label_counts == {"l1": 6, "l2": 3}
    with pytest.raises(InputError, match="needs at least 2 such authors and 20 such documents"):
        profile.check_measurable()


def test_wilson_interval_known_values_and_bounds():
    lo, hi = wilson_interval(0.5, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0.0, 10)[0] == 0.0 and 0.0 < wilson_interval(0.0, 10)[1] < 0.35
    assert wilson_interval(1.0, 10)[1] == 1.0
    # coverage, exactly over every outcome k of n = 30 trials: the 95 % interval holds the true proportion about 95 %
    # of the time on average over p (Wilson's known behaviour: it oscillates around the nominal level, never far below)
    from scipy.stats import binom

    def coverage(p, n=30):
        return sum(binom.pmf(k, n, p) for k in range(n + 1) if wilson_interval(k / n, n)[0] <= p <= wilson_interval(k / n, n)[1])

    values = [coverage(p) for p in np.linspace(0.05, 0.95, 37)]
    assert 0.935 < np.mean(values) < 0.965 and min(values) > 0.88
    assert overlaps((0.1, 0.3), (0.25, 0.5)) and not overlaps((0.1, 0.2), (0.3, 0.4))


def test_recommendation_ranks_only_outside_the_noise():
    reference = _result("original", 0.95, 1.0, reference=True)
    strong, weak, useless = _result("strong", 0.30, 0.85), _result("weak", 0.35, 0.90), _result("useless", 0.10, 0.2)
    chosen = recommend([reference, strong, weak, useless], 0.8, chance=0.25)
    # strong and weak overlap: not ranked, the one keeping more utility is chosen; useless is below the floor
    assert chosen.choice == "weak" and set(chosen.within_noise) == {"strong", "weak"} and "cannot be ranked" in chosen.reason
    alone = recommend([reference, _result("strong", 0.30, 0.85), _result("mild", 0.80, 0.95)], 0.8, chance=0.25)
    assert alone.choice == "strong" and "lowest worst case" in alone.reason
    # nothing beyond the noise of the unprotected text: no recommendation, and what protection would cost
    none = recommend([reference, _result("mild", 0.90, 0.95), useless], 0.8, chance=0.25)
    assert none.choice is None and "none is recommended" in none.reason and "useless brings it to 10%" in none.reason
    floor = recommend([reference, useless], 0.8, chance=0.25)
    assert floor.choice is None and "utility floor" in floor.reason


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
    cheap, costly = Candidate("dropout", {"rate": 0.3}, "cheap", 0.0, 0.001), Candidate("tarot", {}, "costly", 30.0, 5.0)
    attackers = (("char-ngrams", 0.002, False),)
    roomy = plan_assessment(authors, 100, 3600, labelled=False, candidates=(cheap, costly), attackers=attackers)
    assert len(roomy.documents) == 130 and [m.name for m in roomy.methods] == ["cheap", "costly"]
    tight = plan_assessment(authors, 100, 300, labelled=False, candidates=(cheap, costly), attackers=attackers)
    assert [m.name for m in tight.methods] == ["cheap"] and "costly" in tight.left_out and tight.estimated_seconds <= 300
    assert len(tight.documents) >= 100
    again = plan_assessment(authors, 100, 300, labelled=False, candidates=(cheap, costly), attackers=attackers)
    assert again.documents == tight.documents
    capped = plan_assessment(authors, 100, 60, labelled=False, candidates=(cheap,), attackers=attackers, max_authors=2)
    assert capped.authors == 2 and "authors" in capped.left_out


def test_assess_finds_planted_markers_recommends_what_removes_them_and_resumes(tmp_path):
    from authorguard.assess.run import AssessOptions, read_assessment, run_assessment

    corpus = planted_corpus(tmp_path / "posts.jsonl")
    candidates = (Candidate("synonyms", {"rate": 0.1}, "synonyms 0.1", 1.0, 0.01),
                  Candidate("dropout", {"rate": 0.9}, "dropout 0.9", 0.0, 0.001))
    attackers = (("char-ngrams", 0.002, False), ("function-words", 0.001, False))
    options = AssessOptions(author_field="writer", budget_minutes=10, min_utility=0.0)
    first = run_assessment(corpus, tmp_path / "out", options, candidates=candidates, attackers=attackers, log=lambda line: None)
    audit = first["audit"]["char-ngrams"]
    assert audit["accuracy"] >= 0.9 and audit["interval"][0] > first["chance"]  # the markers give the authors away
    by_method = {r["method"]: r for r in first["results"]}
    assert by_method["dropout 0.9"]["worst_interval"][1] < by_method["original"]["worst_interval"][0]
    assert first["recommendation"]["choice"] == "dropout 0.9"
    assert "--method dropout" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert (tmp_path / "out" / "recommended.toml").read_text(encoding="utf-8") == "rate = 0.9\n"
    assert "data:image/png;base64," in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    # the JSON round-trips and a second run reuses every cell
    assert read_assessment(tmp_path / "out") == json.loads(json.dumps(first))
    run_assessment(corpus, tmp_path / "out", options, candidates=candidates, attackers=attackers, log=lambda line: None)
    experiment = json.loads((tmp_path / "out" / "work" / "run" / "experiment.json").read_text(encoding="utf-8"))
    assert experiment["cells_computed"] == 0
    (tmp_path / "bad.json").write_text('{"schema": 99}', encoding="utf-8")
    with pytest.raises(InputError, match="schema 99"):
        read_assessment(tmp_path / "bad.json")


def test_assess_cli_refuses_too_small_or_malformed_input_in_one_line(tmp_path):
    runner = CliRunner()
    small = tmp_path / "small.jsonl"
    small.write_text("".join(json.dumps({"id": i, "text": "a b c", "writer": "x" if i < 5 else "y"}) + "\n" for i in range(6)))
    result = runner.invoke(app, ["assess", str(small), "-o", str(tmp_path / "o"), "--author-field", "writer"])
    assert result.exit_code == 2 and "too little to measure" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    missing = runner.invoke(app, ["assess", str(small), "-o", str(tmp_path / "o"), "--author-field", "author"])
    assert missing.exit_code == 2 and "has no 'author' field" in missing.stderr
    floor = runner.invoke(app, ["assess", str(small), "-o", str(tmp_path / "o"), "--author-field", "writer", "--min-utility", "2"])
    assert floor.exit_code == 2 and "min_utility" in floor.stderr
