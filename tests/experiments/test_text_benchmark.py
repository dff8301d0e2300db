"""The harness on a real text scenario (AMT-10): utility both ways, attackers x threat models, content, detector,
the report's benchmark tables, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard import registry
from authorguard.base import TextObfuscator
from authorguard.exceptions import AuthorguardError, InputError
from authorguard.experiments.config import config_from_dict
from authorguard.experiments.results import benchmark_table, worst_case
from authorguard.experiments.runner import run_experiment
from authorguard.experiments.views import build_view, view_names


def test_rows_of_a_text_scenario(tiny_text_run):
    _, frame, _ = tiny_text_run
    assert set(frame["view"]) == {"AMT-10"} and set(frame["dataset"]) == {"amt"}
    utility = frame[frame["task"] == "background"]
    assert set(utility.loc[utility["method"] == "original", "threat_model"]) == {"none"}
    assert set(utility.loc[utility["method"] == "dropout", "threat_model"]) == {"static", "adversarial"}
    attacks = frame[frame["task"] == "attack"]
    assert len(attacks) == 3 * (1 + 3 + 3)  # three attackers: one reference row, three threat models for each method
    assert set(attacks["n_test"]) == {16} and set(attacks["n_train"]) == {128}
    assert set(frame.loc[frame["method"] == "syntf", "release_kind"]) == {"vectors"}
    assert set(frame.loc[frame["method"] == "dropout", "release_kind"]) == {"text"}
    # what one document's release costs: SynTF's exact l·n; nothing for a method without a guarantee
    syntf = frame[frame["method"] == "syntf"]
    assert np.allclose(syntf["document_epsilon"], syntf["loss_per_word"] * 100) and np.allclose(
        syntf["document_epsilon"], syntf["total_loss"]
    )
    assert frame.loc[frame["method"] == "dropout", "document_epsilon"].isna().all()
    # ten authors, chance 0.1: character n-grams name most of them from their own writing
    reference = attacks[(attacks["method"] == "original") & (attacks["attacker"] == "char-ngrams")]
    assert reference["accuracy"].iloc[0] > 0.5


def test_content_and_detector_rows(tiny_text_run):
    _, frame, _ = tiny_text_run
    content = frame[frame["task"] == "content"].set_index("method")
    assert content.loc["original", "unchanged"] == 1.0 and content.loc["original", "embedding_cosine"] == pytest.approx(
        1.0
    )
    assert content.loc["original", "meteor"] > 0.99 and content.loc["original", "chrf"] == pytest.approx(1.0)
    assert content.loc["dropout", "unchanged"] == 0.0
    assert 0.2 < content.loc["dropout", "meteor"] < content.loc["original", "meteor"]
    assert content.loc["syntf", "bleu"] < content.loc["dropout", "bleu"]  # a bag of words keeps no word order
    detector = frame[frame["task"] == "detector"].set_index("method")
    assert "original" not in detector.index
    assert detector.loc["syntf", "accuracy"] > 0.9  # a reverse-vectorised bag of words is easy to recognise


def test_benchmark_table_has_worst_case_and_every_attack(tiny_text_run):
    _, frame, _ = tiny_text_run
    table = benchmark_table(frame, "AMT-10").set_index("method")
    for column in (
        "background (trained on original)",
        "background (retrained)",
        "char-ngrams static",
        "writeprints-text adversarial",
        "worst case",
        "METEOR",
        "detector F1 (char-ngrams)",
    ):
        assert column in table.columns
    dropout = frame[frame["method"] == "dropout"]
    value, name = worst_case(dropout)
    attacks = dropout[dropout["task"] == "attack"]
    assert value == pytest.approx(attacks["f1_macro"].max()) and name.split(" / ")[0] in set(attacks["attacker"])
    assert table.loc["dropout", "worst case"].startswith(f"{value:.3f}")


def test_views_of_a_mixed_config(tiny_corpus_file):
    config = config_from_dict(
        {
            "dataset": "records",
            "dataset_options": {"path": str(tiny_corpus_file)},
            "scenarios": ["Top2-Any", "speech"],
            "methods": [{"name": "original"}],
        }
    )
    assert view_names(config) == ["all", "speech"]
    assert [s.name for s in config.parsed_scenarios()] == ["Top2-Any"]
    speech = build_view(config, "speech")
    assert speech.tasks == () and set(speech.attacks[0].targets) == {"obama", "trump"}
    assert not set(speech.attacks[0].train) & set(speech.attacks[0].test)
    everything = build_view(config, "all")
    assert [a.scenario for a in everything.attacks] == ["Top2-Any"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"scenarios": ["BAC-11"]}, r"scenario 'BAC-11' must look like 'Top10-Any' .* or be a benchmark scenario"),
        ({"scenarios": []}, r"'scenarios' must name at least one scenario"),
        ({"content_metrics": "yes"}, r"'content_metrics' must be true or false"),
        ({"split_seed": -1}, r"'split_seed' parameter"),
    ],
)
def test_bad_benchmark_configs(data, message):
    with pytest.raises(InputError, match=message):
        config_from_dict({"methods": [{"name": "original"}], **data})


class DropsADocument(TextObfuscator):
    """A broken method: returns one text fewer than it was given."""

    def obfuscate(self, raw_documents):
        return list(raw_documents)[:-1]


def test_a_method_returning_the_wrong_number_of_texts_fails(tmp_path, monkeypatch):
    monkeypatch.setitem(registry.methods._targets, "drops-one", f"{__name__}:DropsADocument")
    config = config_from_dict(
        {
            "scenarios": ["AMT-10"],
            "attackers": ["function-words"],
            "classifiers": ["svm"],
            "runs": 1,
            "content_metrics": False,
            "detector": False,
            "methods": [{"name": "drops-one"}],
        }
    )
    with pytest.raises(AuthorguardError, match=r"method 'drops-one' returned 159 texts for 160 documents"):
        run_experiment(config, tmp_path / "out")


def test_split_seed_changes_the_split_not_the_documents():
    first = build_view(config_from_dict({"scenarios": ["AMT-10"], "methods": [{"name": "original"}]}), "AMT-10")
    other = build_view(
        config_from_dict({"scenarios": ["AMT-10"], "split_seed": 1, "methods": [{"name": "original"}]}), "AMT-10"
    )
    assert first.corpus.ids == other.corpus.ids and first.corpus.splits != other.corpus.splits
    assert np.array_equal(np.sort(first.attacks[0].test), first.task_test)


def test_views_of_two_records_files_are_two_corpora(tiny_corpus_file, tmp_path):
    lines = tiny_corpus_file.read_text(encoding="utf-8").splitlines()
    half = tmp_path / "half.jsonl"
    half.write_text("\n".join(lines[::2]) + "\n", encoding="utf-8")
    cache: dict = {}
    sizes = []
    for path in (tiny_corpus_file, half):
        config = config_from_dict(
            {
                "dataset": "records",
                "dataset_options": {"path": str(path)},
                "scenarios": ["Top2-Any"],
                "methods": [{"name": "original"}],
            }
        )
        sizes.append(len(build_view(config, "all", cache).corpus))
    assert sizes == [len(lines), len(lines[::2])]
