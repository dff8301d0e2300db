"""The reference language model: GGUF conversion and cache, likelihood scoring, bad caches and input."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("gguf")

from authorguard.exceptions import InputError
from authorguard.generation.reference_lm import (
    MARKER,
    load_reference_lm,
    load_reference_tokenizer,
    reference_lm_cache,
    token_log_likelihoods,
)
from authorguard.utils.weights import smollm2_gguf

PROMPT = "The committee will meet on Tuesday to discuss the"


def _next_token_log_probs(model, tokenizer) -> np.ndarray:
    import torch

    ids = tokenizer(PROMPT, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        return torch.log_softmax(model(input_ids=ids).logits[0, -1], -1).numpy()


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """The model converted into a fresh cache folder, then loaded from it."""
    cache = tmp_path_factory.mktemp("lm-cache")
    return cache, load_reference_lm(cache)


def test_cached_model_gives_the_gguf_next_token_distribution(converted):
    from transformers import AutoModelForCausalLM

    cache, (model, tokenizer) = converted
    assert (reference_lm_cache(cache) / "model.safetensors").is_file()
    gguf = smollm2_gguf()
    direct = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype="float32").eval()
    again, again_tokenizer = load_reference_lm(cache)  # a second load, from the cache
    first = _next_token_log_probs(model, tokenizer)
    np.testing.assert_allclose(_next_token_log_probs(again, again_tokenizer), first, atol=1e-5)
    np.testing.assert_allclose(_next_token_log_probs(direct, tokenizer), first, atol=1e-4)
    assert tokenizer.decode(int(first.argmax())).strip()  # a real word piece, not padding
    alone = load_reference_tokenizer(cache)  # the tokenizer without the weights: the same vocabulary and padding
    assert (
        alone("a test")["input_ids"] == tokenizer("a test")["input_ids"]
        and alone.pad_token_id == tokenizer.pad_token_id
    )


def test_scrambled_text_is_less_likely(converted):
    _, (model, tokenizer) = converted
    text = "I went to the store yesterday and bought some milk and bread for breakfast."
    scrambled = " ".join(np.random.default_rng(0).permutation(text.split()))
    scores = token_log_likelihoods([text, scrambled, text * 30], model, tokenizer, max_tokens=64, details=True)
    assert scores.perplexity[1] > 3 * scores.perplexity[0]
    assert scores.n_tokens[2] == 64  # capped
    assert len(scores.token_ranks[0]) == scores.n_tokens[0] and (scores.token_ranks[0] >= 1).all()
    assert (scores.token_entropies[0] >= 0).all()
    np.testing.assert_allclose(scores.log_likelihood, [v.sum() for v in scores.token_log_probs])


def test_empty_text_is_refused(converted):
    _, (model, tokenizer) = converted
    with pytest.raises(InputError, match="empty"):
        token_log_likelihoods(["fine", "   "], model, tokenizer)


def test_incompatible_missing_and_corrupt_caches_are_converted_again_with_one_line(converted, tmp_path):
    import shutil

    cache, (model, tokenizer) = converted
    expected = _next_token_log_probs(model, tokenizer)
    copy = tmp_path / "copy"
    shutil.copytree(cache, copy)
    folder = reference_lm_cache(copy)
    marker = json.loads((folder / MARKER).read_text())
    assert len(marker["weights_sha256"]) == 64
    damages = {
        "gguf_bytes differ": lambda: (folder / MARKER).write_text(json.dumps({**marker, "gguf_bytes": 1})),
        "do not match their checksum": lambda: (folder / "model.safetensors").write_bytes(b"not a safetensors file"),
    }
    for why, damage in damages.items():
        damage()
        with pytest.warns(RuntimeWarning, match=why) as caught:
            rebuilt, rebuilt_tokenizer = load_reference_lm(copy)
        assert all("\n" not in str(w.message) for w in caught)
        np.testing.assert_allclose(_next_token_log_probs(rebuilt, rebuilt_tokenizer), expected, atol=1e-5)
    assert not (folder.parent / (folder.name + ".partial")).exists()  # never a half-written cache beside it


def test_processes_started_together_convert_the_cache_once(tmp_path, monkeypatch):
    """Two callers racing on an empty cache (a test run's workers): one converts, the other waits and reads it."""
    import threading
    import time

    from authorguard.generation import reference_lm

    conversions = []

    def slow_convert(folder, marker):  # as long as a real conversion's window for a second caller
        conversions.append(folder)
        staging = folder.with_name(folder.name + ".partial")
        staging.mkdir(parents=True)  # a second conversion at once would fail here, as it once did
        time.sleep(0.5)
        (staging / MARKER).write_text(json.dumps(marker))
        staging.rename(folder)

    monkeypatch.setattr(reference_lm, "_convert", slow_convert)
    monkeypatch.setattr(reference_lm, "_source_marker", lambda: {"format": "test"})
    found, errors = [], []

    def check():
        try:
            found.append(reference_lm._checked_cache(tmp_path, rebuild=False))
        except Exception as error:  # the assertion below names it
            errors.append(error)

    callers = [threading.Thread(target=check) for _ in range(3)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert not errors and len(conversions) == 1 and len(set(found)) == 1
