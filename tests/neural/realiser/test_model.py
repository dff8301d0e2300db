"""The realiser writing from views: chunking reads the view only, the fallback never returns the input."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.neural.realiser.model import Realiser, chunk_views, view_as_text
from authorguard.text.views import content_view, view_words
from authorguard.text.views.reading import SENTENCE_MARK


def test_chunks_are_whole_view_sentences_up_to_the_limit():
    views = ["a b c | d e | f g h i j k l m n", "", "x"]
    chunks = chunk_views(views, 5)
    assert [c.document for c in chunks] == [0, 0, 0, 2]
    assert [c.text for c in chunks] == ["a b c | d e", "f g h i j", "k l m n", "x"]
    assert all(len(view_words(c.text)) <= 5 for c in chunks)
    # every word of every view is in exactly one chunk, in order
    assert " ".join(w for c in chunks if c.document == 0 for w in view_words(c.text)) == " ".join(view_words(views[0]))


def test_view_as_text_ends_each_sentence():
    assert view_as_text(f"not like movie {SENTENCE_MARK} way long") == "not like movie. way long."
    assert view_as_text("") == ""


@pytest.fixture(scope="module")
def realiser(tiny_realiser, tiny_factory):
    folder, _ = tiny_realiser
    return Realiser(folder, base_factory=tiny_factory)


def test_same_view_same_output(realiser):
    a = "I really didn't enjoy the concert in Berlin!! the band was LOUD!!! 3 hours of noise."
    b = "i really did not enjoy that concert in Berlin. The band was loud. 3 hours of noise"
    outputs = [realiser.realise([content_view(t)], "ordered", content_view, seed=5) for t in (a, b)]
    assert outputs[0] == outputs[1]
    assert outputs[0][0] not in (a, b)


@pytest.mark.parametrize("fallback", ["view", "withhold"])
def test_the_fallback_never_returns_the_input(realiser, fallback):
    texts = ["We met Anna in Paris on 3 May. The weather was lovely.", "It is what it is."]
    views = [content_view(t) for t in texts]
    out = realiser.realise(views, "ordered", content_view, seed=1, retries=1, fallback=fallback)
    stats = realiser.stats
    assert len(out) == 2 and out[1] == ""  # no words in the view: nothing is written
    assert stats["records_blank"] == 1 and stats["documents"] == 2
    assert out[0] != texts[0]
    # the tiny model writes noise: the gate refuses it and the record gets the fallback, counted
    if stats["records_flagged"]:
        assert stats["flagged_records"] == [0]
        assert out[0] == (view_as_text(views[0]) if fallback == "view" else "")
    assert sum(stats["refused"].values()) >= stats["chunks_fallback"]


def test_unknown_fallback_and_missing_folder(realiser, tmp_path):
    with pytest.raises(InputError, match="unknown fallback 'keep'"):
        realiser.realise(["a b"], "ordered", content_view, seed=0, fallback="keep")
    with pytest.raises(InputError, match="has no trained adapter"):
        Realiser(tmp_path)
