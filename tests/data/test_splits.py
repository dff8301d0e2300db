"""Text-benchmark scenarios: Top-k authors split within each author, attribute scenarios split by author."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from authorguard import registry
from authorguard.data.corpus import Corpus
from authorguard.data.splits import SCENARIOS, AttributeSplit, TopAuthors, split_counts
from authorguard.exceptions import InputError


def _corpus(
    per_author: dict[str, int], classes: dict[str, str] | None = None, kinds: dict[str, str] | None = None
) -> Corpus:
    ids, authors = [], []
    for author, n in per_author.items():
        for k in range(n):
            ids.append(f"{author}-{k}")
            authors.append(author)
    classes = classes or {}
    attributes = {"group": [classes.get(a, "x") for a in authors]}
    if kinds:
        attributes["kind"] = [kinds.get(i, "regular") for i in ids]
    return Corpus(ids=ids, texts=["w " * 3] * len(ids), authors=authors, name="tiny", attributes=attributes)


def test_top_authors_split_within_each_author_80_10_10_and_reproducibly():
    corpus = _corpus({"a": 20, "b": 10, "c": 30, "d": 5})
    selected = TopAuthors(3, seed=4, name="T3").select(corpus)
    assert set(selected.authors) == {"a", "b", "c"}  # most documents; d is left out
    per = Counter(zip(selected.authors, selected.splits))
    assert (per["c", "train"], per["c", "validation"], per["c", "test"]) == (24, 3, 3)
    assert (per["b", "train"], per["b", "validation"], per["b", "test"]) == (8, 1, 1)
    assert selected.splits == TopAuthors(3, seed=4, name="T3").select(corpus).splits
    assert selected.splits != TopAuthors(3, seed=5, name="T3").select(corpus).splits
    assert selected.metadata["scenario"] == "T3" and selected.metadata["seed"] == 4


def test_first_authors_and_filters():
    corpus = _corpus({"b": 5, "a": 4, "c": 40}, kinds={"a-0": "obfuscation"})
    first = TopAuthors(2, rank="first", where={"kind": ("regular",)}).select(corpus)
    assert sorted(set(first.authors)) == ["a", "b"] and "a-0" not in first.ids


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        (TopAuthors(2, name="T2"), "scenario T2: author 'b' has 2; the 80/10/10 split needs at least 3"),
        (TopAuthors(5, name="T5"), "scenario T5: only 2 authors in 'tiny', 5 needed"),
    ],
)
def test_scenarios_that_cannot_be_built_are_one_line_errors(scenario, message):
    with pytest.raises(InputError, match=message):
        scenario.select(_corpus({"a": 10, "b": 2}))


def test_attribute_split_keeps_every_author_in_one_split():
    authors = {f"u{i}": 3 for i in range(40)}
    classes = {a: ("young" if i % 2 else "old") for i, a in enumerate(authors)}
    selected = AttributeSplit("group", seed=1).select(_corpus(authors, classes))
    splits_of = {}
    for author, split in zip(selected.authors, selected.splits):
        splits_of.setdefault(author, set()).add(split)
    assert all(len(s) == 1 for s in splits_of.values())
    by_class = Counter((classes[a], next(iter(s))) for a, s in splits_of.items())
    assert by_class["young", "train"] == 16 and by_class["young", "test"] == 2 and by_class["old", "validation"] == 2
    assert set(selected.labels) == {"young", "old"}


def test_attribute_groups_merge_and_drop_values_and_mixed_authors_fail():
    corpus = _corpus(
        {"a": 3, "b": 3, "c": 3, "d": 3, "e": 3, "f": 3},
        {"a": "13-17", "b": "23-27", "c": "33-48", "d": "13-17", "e": "23-27", "f": "13-17"},
    )
    merged = AttributeSplit("group", {"13-17": "teen", "23-27": "adult", "33-48": "adult"}).select(corpus)
    assert Counter(merged.labels) == {"teen": 9, "adult": 9}
    dropped = AttributeSplit("group", {"13-17": "teen", "33-48": "adult"})
    with pytest.raises(InputError, match="class 'adult' \\(authors\\) has 1; the 80/10/10 split needs at least 3"):
        dropped.select(corpus)
    mixed = Corpus(ids=["1", "2"], texts=["x", "y"], authors=["a", "a"], attributes={"group": ["p", "q"]}, name="m")
    with pytest.raises(InputError, match="author 'a' has documents of two classes"):
        AttributeSplit("group").select(mixed)
    with pytest.raises(InputError, match="no column 'age'"):
        AttributeSplit("age").select(mixed)


def test_real_scenarios_beside_tarot_and_a4nt():
    blogs = registry.datasets.get("blogs")()
    counts = split_counts(SCENARIOS["BAC-10"].selection.select(blogs))
    assert counts["documents"] == 23_504 and counts["tarot_documents"] == 23_534
    assert all(part["authors"] == 10 for part in counts["splits"].values())
    age = SCENARIOS["blog-age"].selection.select(blogs)
    train_authors = {a for a, s in zip(age.authors, age.splits) if s == "train"}
    test_authors = {a for a, s in zip(age.authors, age.splits) if s == "test"}
    assert not train_authors & test_authors and set(age.labels) == {"13-17", "23-48"}
    speech = SCENARIOS["speech"].selection.select(registry.datasets.get("speeches")())
    assert Counter(speech.labels) == {"obama": 50, "trump": 10}
    assert Counter(zip(speech.labels, speech.splits))["trump", "test"] == 1
    amt = SCENARIOS["AMT-10"].selection.select(registry.datasets.get("amt")())
    assert set(amt.column("kind")) == {"regular"} and len(set(amt.authors)) == 10
    assert np.all([s in ("train", "validation", "test") for s in amt.splits])


def test_per_author_documents_sampled_and_cut():
    corpus = Corpus(
        [f"d{i}" for i in range(16)],
        [f"w{i} x y z" for i in range(16)],
        authors=[f"a{i // 2}" for i in range(16)],
        attributes={"g": ["f"] * 8 + ["m"] * 8},
    )
    selected = AttributeSplit(
        "g", per_author=True, max_authors=3, max_words=5, fractions=(0.4, 0.3, 0.3), seed=0
    ).select(corpus)
    assert len(selected) == 6 and sorted(selected.labels) == ["f"] * 3 + ["m"] * 3  # 3 of the 4 authors per class
    assert sorted(selected.splits) == ["test", "test", "train", "train", "validation", "validation"]
    assert selected.ids == selected.authors  # one document per author, named by the author
    assert all(len(t.split()) == 5 for t in selected.texts)  # two 4-word posts joined, cut to 5 words
    first = selected.texts[0]
    assert first.startswith(corpus.texts[corpus.authors.index(selected.authors[0])])
    with pytest.raises(InputError, match="per_author needs unit='author'"):
        AttributeSplit("g", per_author=True, unit="document")


def test_capping_documents_per_author_and_split_keeps_small_groups_whole():
    from authorguard.experiments.views import cap_per_author

    selected = TopAuthors(3, seed=4, name="T3").select(_corpus({"a": 20, "b": 10, "c": 30}))
    keep = cap_per_author(selected, 5, seed=0)
    per = Counter((a, s) for a, s, k in zip(selected.authors, selected.splits, keep) if k)
    assert per["c", "train"] == 5 and per["a", "train"] == 5 and per["b", "test"] == 1 and per["c", "test"] == 3
    assert np.array_equal(keep, cap_per_author(selected, 5, seed=0))
    assert not np.array_equal(keep, cap_per_author(selected, 5, seed=1))


def test_experiment_config_caps_benchmark_views():
    from authorguard.experiments.config import ExperimentConfig, MethodSpec
    from authorguard.experiments.views import build_view

    base = {"methods": (MethodSpec("original"),), "scenarios": ("AMT-10",), "runs": 1}
    full = build_view(ExperimentConfig(**base), "AMT-10")
    capped = build_view(ExperimentConfig(**base, max_documents_per_author=2), "AMT-10")
    assert len(capped.corpus) < len(full.corpus)
    assert max(Counter(zip(capped.corpus.authors, capped.corpus.splits)).values()) <= 2
    assert "validation" in set(full.corpus.splits) and set(capped.corpus.splits) == {"train", "test"}
    assert (
        ExperimentConfig(**base).evaluation_fingerprint()
        != ExperimentConfig(**base, max_documents_per_author=2).evaluation_fingerprint()
    )
    with pytest.raises(InputError, match="max_documents_per_author"):
        ExperimentConfig(**base, max_documents_per_author=0)


def test_the_syntf_papers_top10_any_as_a_benchmark_scenario_keeps_the_dataset_split():
    from authorguard.data.scenarios import AuthorshipScenario
    from authorguard.data.splits import DatasetAuthors

    news = registry.datasets.get("20news")()
    selected = SCENARIOS["20news-Top10-Any"].selection.select(news)
    assert set(selected.authors) == set(AuthorshipScenario(10).authors(news))  # the vector harness's Top10-Any
    assert set(selected.splits) == {"train", "test"}  # 20 Newsgroups' own split by date, no validation
    position = {doc: i for i, doc in enumerate(news.ids)}
    assert all(news.splits[position[d]] == s for d, s in zip(selected.ids, selected.splits))
    counts = split_counts(selected)
    assert (
        counts["authors"] == 10
        and min(Counter(a for a, s in zip(selected.authors, selected.splits) if s == "test").values()) >= 9
    )
    assert DatasetAuthors(5, multi=True).name == "Top5-Multi"
    with pytest.raises(InputError, match="top_k"):
        DatasetAuthors(1)
