"""GloVe text format and the packaged GloVe 6B 50d default."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from authorguard.embeddings import load_word_vectors
from authorguard.embeddings.glove import load_glove_text, load_packaged_glove
from authorguard.exceptions import DataNotFoundError, InputError
from tests.conftest import GLOVE_TOP100K


def _write(path, text, compress=False):
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


@pytest.mark.parametrize("compress", [False, True])
def test_reads_plain_and_gzip_text(tmp_path, compress):
    path = _write(tmp_path / ("v.txt.gz" if compress else "v.txt"), "the 0.5 -1 2\ncat 1e-3 0 -0.25\n", compress)
    vectors = load_glove_text(path)
    assert vectors.words == ("the", "cat") and vectors.dim == 3
    np.testing.assert_allclose(vectors.vector_matrix(["cat"]), [[1e-3, 0, -0.25]])
    assert "CAT" in vectors  # uncased look-up


def test_restricts_to_the_vocabulary(tmp_path):
    path = _write(tmp_path / "v.txt", "the 1 2\ncat 3 4\ndog 5 6\n")
    assert load_glove_text(path, vocabulary=["Dog", "cat", "zebra"]).words == ("cat", "dog")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("the 1 2\ncat 3 4 5\n", "line 2 has 3 values, expected 2 \\(inconsistent dimensions\\)"),
        ("the 1 2\ncat 3 x\n", "line 2 has a value that is not a number"),
        ("the 1 2\n\ncat 3 4\n", "line 2 is empty"),
        ("the\n", "line 1 has a word but no vector"),
        ("", "no vectors in file"),
    ],
)
def test_malformed_files_name_the_line(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        load_glove_text(_write(tmp_path / "bad.txt", text))


def test_non_utf8_and_missing_files(tmp_path):
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9 1 2\n")
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_glove_text(tmp_path / "latin.txt")
    with pytest.raises(DataNotFoundError, match="does not exist"):
        load_glove_text(tmp_path / "nope.txt")
    (tmp_path / "broken.txt.gz").write_bytes(b"not gzip at all")
    with pytest.raises(InputError, match="cannot read embeddings"):
        load_glove_text(tmp_path / "broken.txt.gz")


def test_packaged_glove_equals_stanfords_text_file():
    words = ["the", "hockey", "atheism", "autocephalous", "cat"]
    from_text = load_glove_text(GLOVE_TOP100K, vocabulary=words)
    packaged = load_packaged_glove(vocabulary=words)
    assert set(packaged.words) == set(from_text.words) == set(words)
    # the text file prints float32 values with '%.5g'
    np.testing.assert_allclose(packaged.vector_matrix(words), from_text.vector_matrix(words), rtol=1e-4, atol=1e-6)


def test_whole_packaged_glove_has_400k_words():
    vectors = load_packaged_glove()
    assert len(vectors) == 400_000 and vectors.dim == 50 and vectors.words[0] == "the"


def test_load_word_vectors_resolves_names_paths_and_errors(tmp_path):
    assert load_word_vectors(None, vocabulary=["cat"]).name == "glove-6b-50d"
    path = _write(tmp_path / "v.txt", "cat 1 2\n")
    assert load_word_vectors(str(path)).words == ("cat",)
    with pytest.raises(InputError, match="neither a registered name"):
        load_word_vectors("glove-6b-51d")


def test_values_pandas_does_not_parse_fall_back_to_numpy(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("cat 0.5 nan\ndog 1e-3 -2\n", encoding="utf-8")
    vectors = load_glove_text(path)
    assert vectors.words == ("cat", "dog") and np.isnan(vectors.vectors[0, 1])
    np.testing.assert_array_equal(vectors.vectors[1], np.array([1e-3, -2], dtype=np.float32))
