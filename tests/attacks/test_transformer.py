"""The transformer attributor: fine-tuned MiniLM beats chance on three real 20 Newsgroups authors."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")

from authorguard.attacks.transformer import TransformerAttacker
from authorguard.data.release import Release
from authorguard.exceptions import InputError


@pytest.fixture(scope="module")
def three_authors(top_author_split):
    return top_author_split(3, 25, 15)


def test_fine_tuned_attributor_beats_chance(three_authors):
    (train_texts, train_authors), (test_texts, test_authors) = three_authors
    attacker = TransformerAttacker(random_state=0, epochs=4, max_tokens=96, max_windows=2, learning_rate=1e-4)
    scores = attacker.evaluate(
        Release.from_texts(train_texts), train_authors, Release.from_texts(test_texts), test_authors
    )
    # chance is 1/3 (sd ~0.07 on 45 test documents); the training loss must fall too
    assert scores["accuracy"] > 0.55
    losses = attacker.model_.losses_
    assert np.mean(losses[-4:]) < np.mean(losses[:4])
    log_probs = attacker.model_.predict_log_proba(test_texts[:3])
    assert log_probs.shape == (3, 3) and np.allclose(np.exp(log_probs).sum(1), 1, atol=0.2)  # mean of window log-probs


def test_bad_options_and_input_fail_with_one_line():
    with pytest.raises(InputError, match="max_tokens"):
        TransformerAttacker(max_tokens=4)
    with pytest.raises(TypeError):
        TransformerAttacker(classifier="svm")  # it brings its own model
    with pytest.raises(InputError, match="fewer than 2 authors"):
        TransformerAttacker(epochs=1).fit(Release.from_texts(["a text", "another"]), ["x", "x"])


def test_a_float16_copy_of_the_encoder_is_small_encodes_alike_and_trains(three_authors, tmp_path):
    import torch
    from transformers import AutoModel, AutoTokenizer

    from authorguard.neural.attributor.weights import save_half_precision
    from authorguard.utils.weights import minilm_folder

    folder = save_half_precision(tmp_path / "minilm-fp16")
    weights = sum(f.stat().st_size for f in folder.glob("*.safetensors"))
    assert 40e6 < weights < 48e6  # 22.7 M parameters x 2 bytes: it travels within 64 MiB
    (train_texts, train_authors), _ = three_authors
    tokenizer = AutoTokenizer.from_pretrained(minilm_folder())
    batch = tokenizer(train_texts[:4], truncation=True, max_length=64, padding=True, return_tensors="pt")
    with torch.inference_mode():
        original = AutoModel.from_pretrained(minilm_folder())(**batch).last_hidden_state[:, 0]
        copy = AutoModel.from_pretrained(folder, dtype=torch.float32)(**batch).last_hidden_state[:, 0]
    assert torch.nn.functional.cosine_similarity(original, copy).min() > 0.999
    attacker = TransformerAttacker(random_state=0, base_model=str(folder), device="auto", epochs=1, max_tokens=32)
    attacker.fit(Release.from_texts(train_texts[::10]), train_authors[::10])
    assert next(attacker.model_.model_.parameters()).dtype == torch.float32  # trained in float32
    assert attacker.predict(Release.from_texts(train_texts[:2])).shape == (2,)


def test_device_and_base_model_are_checked():
    import torch

    with pytest.raises(InputError, match="'device' parameter"):
        TransformerAttacker(device="tpu")
    with pytest.raises(InputError, match="not a model folder"):
        TransformerAttacker(base_model="/nonexistent", epochs=1).fit(
            Release.from_texts(["a text", "another"]), ["x", "y"]
        )
    if not torch.cuda.is_available():
        with pytest.raises(InputError, match="no GPU"):
            TransformerAttacker(device="cuda", epochs=1).fit(Release.from_texts(["a text", "another"]), ["x", "y"])
