"""Every registered method's output on one fixed input, byte for byte: a refactor that moves code must not change
what a method writes. ``python tests/methods/test_golden.py`` records the outputs (only when a change is meant to
alter them; say why in CHANGELOG.md)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

GOLDEN = Path(__file__).with_name("golden") / "outputs.json"

TEXTS = [
    "i cant believe it's already December!!! Went to the market w/ Sarah yesterday and we bought 3 apples , "
    "some bread and a HUGE pumpkin :) Tomorrow I'll bake a pie for the neighbours.",
    "The committee said on Tuesday that the Colombian government had made an offer for the mine, but the "
    "company's board did not answer. Prices rose by 12 percent in London.",
]

#: (label, method, params): every text method that runs without a user's trained model, at a fixed seed
CASES = [
    ("original", "original", {}),
    ("normalise", "normalise", {}),
    ("generalise", "generalise", {}),
    ("generalise-modifiers", "generalise", {"level": "modifiers-2000"}),
    ("synonyms", "synonyms", {}),
    ("dropout", "dropout", {}),
    ("syntf-text", "syntf-text", {}),
    ("scrubadub", "scrubadub", {}),
    ("presidio", "presidio", {}),
    ("view:roles", "view:roles", {}),
    ("view:content", "view:content", {}),
    ("view:content-minimal", "view:content-minimal", {}),
    ("view:lemma", "view:lemma", {}),
    ("view:canonical", "view:canonical", {}),
    ("bottleneck", "bottleneck", {}),
    ("bottleneck-model", "bottleneck", {"realiser": "model"}),
    ("bottleneck-content", "bottleneck", {"level": "content"}),
    ("tarot", "tarot", {}),
    ("tarot-ppo", "tarot-ppo", {}),
    ("tarot-sft", "tarot-sft", {}),
    ("zero-shot-rewrite", "zero-shot-rewrite", {}),
    ("dp-prompt", "dp-prompt", {}),
    ("a4nt-neutral", "a4nt-neutral", {}),
]
SEED = 7


def method_outputs(method: str, params: dict) -> list[str]:
    from authorguard.methods.build import build_text_method

    return list(build_text_method(method, params, SEED).obfuscate(TEXTS))


def syntf_digest() -> str:
    """A sha256 of SynTF's released vectors (float64 bytes) on the fixed texts with a fixed vocabulary."""
    from authorguard.methods.syntf import SynTF

    vectors = SynTF(epsilon=2.0, random_state=SEED).fit(TEXTS).transform(TEXTS)
    dense = vectors.toarray() if hasattr(vectors, "toarray") else np.asarray(vectors)
    return hashlib.sha256(np.ascontiguousarray(dense, dtype=np.float64).tobytes()).hexdigest()


def record() -> dict:
    from authorguard.utils.extras import require_method

    golden: dict = {"syntf": syntf_digest()}
    for label, method, params in CASES:
        try:
            require_method(method)
        except Exception as error:
            print(f"{label}: not recorded ({error})", file=sys.stderr)
            continue
        golden[label] = method_outputs(method, params)
        print(f"{label}: {golden[label]}", file=sys.stderr)
    return golden


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_every_case_is_recorded(golden):
    assert set(golden) == {"syntf"} | {label for label, _, _ in CASES}


def test_syntf_vectors_are_unchanged(golden):
    assert syntf_digest() == golden["syntf"]


@pytest.mark.slow
@pytest.mark.parametrize(("label", "method", "params"), CASES, ids=[case[0] for case in CASES])
def test_method_output_is_unchanged(golden, label, method, params):
    from authorguard.utils.extras import require_method

    try:
        require_method(method)
    except Exception as error:
        pytest.skip(str(error))
    assert method_outputs(method, params) == golden[label]


if __name__ == "__main__":
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(record(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
