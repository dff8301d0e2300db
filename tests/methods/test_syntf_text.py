"""SynTF as text: one synthetic bag of words per document, seeded, per-record streams."""

from __future__ import annotations

from authorguard.methods.syntf_text import SynTFText
from tests.conftest import SMALL_WORDS


def _method(tmp_path, **params):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(SMALL_WORDS), encoding="utf-8")
    return SynTFText(vocabulary=str(words), n_words=12, **params).fit()


def test_each_document_becomes_n_vocabulary_words(tmp_path):
    method = _method(tmp_path, random_state=3)
    out = method.obfuscate(["The cat chased the dog.", "Vote in the election!", "Bananas and apples."])
    assert len(out) == 3
    for text in out:
        assert len(text.split()) == 12 and set(text.split()) <= set(SMALL_WORDS)
    assert out == _method(tmp_path, random_state=3).obfuscate(
        ["The cat chased the dog.", "Vote in the election!", "Bananas and apples."]
    )
    assert not method.fits_on_private_input() and SynTFText(vocabulary="fit").fits_on_private_input()


def test_records_do_not_depend_on_batching(tmp_path):
    method = _method(tmp_path)
    texts, ids = ["a cat", "a dog", "an election vote"], ["x", "y", "z"]
    together = method.obfuscate_records(texts, ids, seed=5)
    apart = [method.obfuscate_records([t], [i], seed=5)[0] for t, i in zip(texts, ids)]
    assert together == apart
