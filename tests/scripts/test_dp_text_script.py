"""scripts/dp_text/synthetic_posts.py's pieces that decide its figures: what travels is what the run counts, and the
membership audit's advantage is measured on targets its threshold was not chosen on."""

from __future__ import annotations

import numpy as np
import pytest

from tests.scripts.loading import load_script


@pytest.fixture(scope="module")
def script():
    return load_script("dp_text/synthetic_posts.py")


def test_slim_keeps_exactly_the_posts_the_fine_tune_counts(script, tmp_path):
    from authorguard.privacy.author_level import chosen_documents

    rng = np.random.default_rng(0)
    rows = [{"id": f"p{i}", "author": f"a{rng.integers(12)}", "label": "13-17", "text": f"post {i}"} for i in range(90)]
    source = tmp_path / "data"
    source.mkdir()
    script._write(source / "train.jsonl.xz", rows)
    for name in ("test.jsonl.xz", "targets.jsonl.xz"):
        script._write(source / name, [])
    (source / "prepared.json").write_text("{}")
    script.slim(source, tmp_path / "carry", posts_per_author=3, seed=0)
    slimmed = script._read(tmp_path / "carry" / "train.jsonl.xz")
    # the run chooses again among what travelled: the same posts, since each author's smallest keys are kept
    again = chosen_documents([r["author"] for r in slimmed], [r["id"] for r in slimmed], 3, 0)
    whole = chosen_documents([r["author"] for r in rows], [r["id"] for r in rows], 3, 0)
    assert sorted(slimmed[i]["id"] for i in again) == sorted(rows[i]["id"] for i in whole)
    assert len(again) == len(slimmed)


def test_the_advantage_is_measured_on_the_held_half_and_refuses_a_degenerate_split(script):
    member = np.arange(200) % 2 == 0
    perfect = script._advantage(member.astype(float), member, seed=0)
    assert perfect["advantage"] == 1.0 and perfect["held_targets"] == 100
    noise = script._advantage(np.random.default_rng(1).random(200), member, seed=0)
    assert abs(noise["advantage"]) < 0.3  # chance, within the interval of 100 held-out targets
    low, high = noise["tpr"][1:]
    assert low <= noise["tpr"][0] <= high
    assert script._advantage(np.zeros(4), np.array([True, True, True, True]), seed=0)["advantage"] is None
