"""Training the realiser: the loss falls, the stages resume, a changed config is refused."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from authorguard.exceptions import InputError
from authorguard.neural.realiser.trainer import chat_rows, read_record, train_realiser


def test_loss_falls_and_the_adapter_is_saved(tiny_realiser):
    folder, record = tiny_realiser
    losses = [entry["loss"] for entry in record["history"] if "loss" in entry]
    assert len(losses) >= 3
    assert losses[-1] < losses[0]
    assert (folder / "adapter" / "adapter_config.json").is_file()
    assert record["done"] and record["held_out_loss"] is not None


def test_a_done_folder_is_not_trained_again(tiny_realiser, tiny_factory, tiny_realiser_configs):
    folder, record = tiny_realiser
    again = train_realiser(folder, *tiny_realiser_configs, base=tiny_factory())
    assert again["history"] == record["history"]


def test_a_stopped_run_resumes_from_its_checkpoint(tiny_realiser, tiny_factory, tiny_realiser_configs, tmp_path):
    folder, record = tiny_realiser
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    shutil.rmtree(copy / "adapter")
    state = read_record(copy)
    state["done"] = False
    (copy / "realiser.json").write_text(json.dumps(state), encoding="utf-8")
    resumed = train_realiser(copy, *tiny_realiser_configs, base=tiny_factory())
    # resumed from the last checkpoint (the final step): no step is trained twice
    assert [e["step"] for e in resumed["history"] if "loss" in e][-1] == [
        e["step"] for e in record["history"] if "loss" in e
    ][-1]
    assert (copy / "adapter" / "adapter_config.json").is_file()


def test_a_changed_config_is_refused(tiny_realiser, tiny_factory, tiny_realiser_configs):
    folder, _ = tiny_realiser
    realiser, training = tiny_realiser_configs
    with pytest.raises(InputError, match="was started with another training"):
        train_realiser(folder, realiser, dataclasses.replace(training, learning_rate=1e-3), base=tiny_factory())


def test_chat_rows_put_the_view_in_the_prompt_and_the_text_in_the_completion(tiny_realiser_configs):
    realiser, _ = tiny_realiser_configs
    rows = chat_rows(
        realiser, [{"level": "bag", "view": "a b", "text": "A b."}, {"level": "lemma", "view": "c", "text": "C."}]
    )
    assert rows[0]["prompt"][0] == {"role": "system", "content": realiser.system}
    assert rows[0]["prompt"][1]["content"].startswith(realiser.bag_instruction) and rows[0]["prompt"][1][
        "content"
    ].endswith("a b")
    assert rows[1]["prompt"][1]["content"].startswith(realiser.ordered_instruction)
    assert rows[0]["completion"][0]["content"] == "A b."
