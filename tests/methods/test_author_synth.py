"""The author-level synthetic corpus: one prolific author moves the statistics no more than the bound allows (no
more than an author with k documents), the document choice does not depend on order or on other authors, a seed
reproduces the release, and unusable input is one line before any counting."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("opendp")

from authorguard.exceptions import InputError
from authorguard.methods.author_synth import (
    AuthorLevelSynthesiser,
    aggregate,
    chosen_documents,
    counting_jobs,
    public_vocabulary,
)
from authorguard.privacy.author_level import AuthorBound
from authorguard.text.analysis import TermAnalyzer


@pytest.fixture(scope="module")
def corpus(newsgroups):
    """300 real messages of 20 Newsgroups with a sender, their senders and newsgroups."""
    train = newsgroups.split("train")
    keep = [i for i, a in enumerate(train.authors) if a][::30][:300]  # across the newsgroups
    return [train.texts[i] for i in keep], [train.authors[i] for i in keep], [train.labels[i] for i in keep]


@pytest.fixture(scope="module")
def vocabulary():
    return public_vocabulary(2_000, TermAnalyzer("lower"))


def _aggregates(texts, authors, labels, bound, vocabulary, seed=0):
    classes = sorted(set(labels))
    label_of = np.asarray([classes.index(label) for label in labels])
    chosen = chosen_documents(authors, list(range(len(texts))), bound.max_documents, seed)
    words, ranks = vocabulary
    clusters = ranks % 50  # any fixed clustering of the columns
    return aggregate(counting_jobs(texts, authors, label_of, chosen, len(classes), words, clusters, "lower", bound))


def test_an_author_with_ten_thousand_posts_moves_the_statistics_no_more_than_the_bound(corpus, vocabulary):
    texts, authors, labels = corpus
    bound = AuthorBound(max_documents=4, max_words=200, clip=1.0)
    base = _aggregates(texts, authors, labels, bound, vocabulary)
    moved = {}
    for name, posts in (("prolific", 10_000), ("ordinary", 4)):
        extra = [texts[(7 * i) % len(texts)] for i in range(posts)]  # real text, all in two of the labels
        extra_labels = [labels[0] if i % 2 else labels[1] for i in range(posts)]
        found = _aggregates(texts + extra, authors + [name] * posts, labels + extra_labels, bound, vocabulary)
        moved[name] = {
            "terms": float(np.linalg.norm(found.terms - base.terms)),
            "clusters": float(np.linalg.norm(found.clusters - base.clusters)),
            "classes": float(np.linalg.norm(found.classes - base.classes)),
            "lengths": float(np.linalg.norm(found.lengths - base.lengths)),
        }
        assert found.documents == base.documents + bound.max_documents  # k of their posts counted, the rest dropped
        assert found.authors == base.authors + 1
    limits = bound.sensitivities()
    for name in moved:
        for release, distance in moved[name].items():
            assert distance <= limits[release] + 1e-9, (name, release, distance)
    assert moved["prolific"]["terms"] == pytest.approx(1.0)  # clipped: the bound binds
    assert moved["prolific"]["classes"] <= moved["ordinary"]["classes"] + 1e-9


def test_the_document_choice_ignores_order_and_other_authors():
    authors = ["a"] * 30 + ["b"] * 5 + ["c"] * 12
    ids = [f"d{i}" for i in range(len(authors))]
    chosen = chosen_documents(authors, ids, 4, seed=7)
    counts = {a: sum(1 for i in chosen if authors[i] == a) for a in "abc"}
    assert counts == {"a": 4, "b": 4, "c": 4}
    order = np.random.default_rng(0).permutation(len(authors))
    shuffled = chosen_documents([authors[i] for i in order], [ids[i] for i in order], 4, seed=7)
    assert sorted(ids[order[i]] for i in shuffled) == sorted(ids[i] for i in chosen)
    without_a = chosen_documents(authors[30:], ids[30:], 4, seed=7)
    assert sorted(ids[30 + i] for i in without_a) == sorted(ids[i] for i in chosen if authors[i] != "a")
    assert sorted(chosen_documents(authors, ids, 4, seed=8).tolist()) != sorted(chosen.tolist())


def test_a_seed_reproduces_the_release_and_the_report_states_the_guarantee(corpus):
    texts, authors, labels = corpus
    options = {"epsilon": 4.0, "vocabulary_size": 2_000, "max_documents": 5}
    first = AuthorLevelSynthesiser(**options, random_state=3).fit(texts, authors, labels)
    again = AuthorLevelSynthesiser(**options, random_state=3).fit(texts, authors, labels)
    labels_a, counts_a = first.sample(50)
    labels_b, counts_b = again.sample(50)
    assert labels_a == labels_b and (counts_a != counts_b).nnz == 0
    other = AuthorLevelSynthesiser(**options, random_state=4).fit(texts, authors, labels).sample(50)[1]
    assert (other != counts_a).nnz > 0
    assert set(labels_a) <= set(labels) and counts_a.shape == (50, len(first.vocabulary_))
    assert counts_a.sum(axis=1).min() >= 1 and counts_a.sum(axis=1).max() <= 500
    found = first.privacy_report().to_dict()
    assert found["unit"] == "author" and found["epsilon"] <= 4.0 and found["delta"] == 1e-5
    assert first.bounded_["documents_counted"] + first.bounded_["documents_dropped"] == len(texts)


@pytest.mark.parametrize(
    ("texts", "authors", "labels", "message"),
    [
        ([], [], [], "the corpus is empty"),
        (["a b", "c d"], ["x", None], ["p", "q"], "record 1 has no author"),
        (["a b", "c d"], ["x", "x"], ["p", "q"], "one author"),
        (["a b", "c d"], ["x", "y"], ["p", "p"], "same label"),
        (["a b", "c d"], ["x", "y"], ["p", ""], "record 1 has no label"),
    ],
)
def test_unusable_input_is_one_line_before_any_counting(texts, authors, labels, message):
    with pytest.raises(InputError, match=message):
        AuthorLevelSynthesiser().fit(texts, authors, labels)


def test_unusable_parameters_are_refused_at_once():
    for bad in ({"epsilon": 0.0}, {"epsilon": -1.0}, {"delta": 0.0}, {"morphology": "stem"}, {"max_documents": 0}):
        with pytest.raises(InputError):
            AuthorLevelSynthesiser(**bad)
    with pytest.raises(InputError, match="keeps case"):  # the public vocabulary is uncased
        AuthorLevelSynthesiser(morphology="orth")
    assert AuthorBound(max_documents=5.0, max_words=50.0).max_words == 50  # a whole float is kept as the int


def test_words_that_give_several_terms_and_spaced_authors_are_counted_within_the_bound(vocabulary):
    bound = AuthorBound(max_documents=2, max_words=1)
    texts = ["state-of-the-art science-fiction", "cat-dog pony", "plain words here", "more plain words"]
    found = _aggregates(texts, ["a", "a ", "b", "b"], ["x", "x", "y", "y"], bound, vocabulary)
    assert found.lengths.sum() == found.documents == 4  # a length past the last edge is in the last bin
    model = AuthorLevelSynthesiser(vocabulary_size=2_000, random_state=0)
    model.fit(texts * 3, ["a", " a", "b", "b"] * 3, ["x", "x", "y", "y"] * 3)
    assert model.bounded_["authors"] == 2  # "a" and " a" are one author


def test_the_sums_do_not_depend_on_how_the_authors_are_batched(corpus, vocabulary, monkeypatch):
    import authorguard.methods.author_synth as author_synth

    texts, authors, labels = corpus
    bound = AuthorBound(max_documents=3, max_words=200, clip=1.0)
    whole = _aggregates(texts, authors, labels, bound, vocabulary)
    monkeypatch.setattr(author_synth, "AUTHORS_PER_BATCH", 17)
    batched = _aggregates(texts, authors, labels, bound, vocabulary)
    for name, values in whole.released().items():
        np.testing.assert_allclose(batched.released()[name], values, atol=1e-9)
    assert (batched.authors, batched.documents) == (whole.authors, whole.documents)
