"""SynTF as a scikit-learn transformer on real messages."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline

from authorguard.exceptions import InputError
from authorguard.methods.syntf import SynTF
from authorguard.utils.random import SecureUniforms
from tests import reference
from tests.conftest import SMALL_WORDS


@pytest.fixture(scope="module")
def fitted(newsgroups_sample):
    return SynTF(epsilon=30.0, n_words=40, random_state=0).fit(newsgroups_sample.texts)


def test_output_is_sparse_counts_with_rows_summing_to_n(fitted, newsgroups_sample):
    out = fitted.transform(newsgroups_sample.texts[:50])
    assert sp.isspmatrix_csr(out)
    assert out.shape == (50, len(fitted.vocabulary_))
    assert out.dtype == np.int64 and out.data.min() >= 1
    np.testing.assert_array_equal(np.asarray(out.sum(axis=1)).ravel(), 40)


def test_feature_names_are_the_sorted_vocabulary(fitted):
    names = fitted.get_feature_names_out()
    assert list(names) == sorted(names) == list(fitted.vocabulary_)
    assert "hockey" in fitted.vocabulary_ and "the" not in fitted.vocabulary_  # stop words removed


def test_same_seed_same_output_and_fresh_randomness_per_call(newsgroups_sample):
    texts = newsgroups_sample.texts[:30]
    a = SynTF(n_words=20, random_state=4).fit(texts)
    b = SynTF(n_words=20, random_state=4).fit(texts)
    first = a.transform(texts)
    assert (first != b.transform(texts)).nnz == 0
    assert (first != a.transform(texts)).nnz > 0  # the stream continues: a second release is new randomness


def test_batches_give_the_same_output_as_one_call(newsgroups_sample):
    texts = newsgroups_sample.texts[:40]
    whole = SynTF(n_words=20, random_state=9).fit(texts)
    parts = SynTF(n_words=20, random_state=9).fit(texts)
    counts = parts.term_counts(texts)
    stacked = sp.vstack([parts.synthesize(counts[:13]), parts.synthesize(counts[13:])])
    assert (whole.transform(texts) != stacked).nnz == 0


def test_synthetic_counts_follow_the_mixture_of_mechanism_rows(fitted):
    # a document "hockey game game": theta = (1/3, 2/3); expected output = n * sum_v theta_v pi_v
    words = ["hockey", "game"]
    rows = [fitted.vocabulary_[w] for w in words]
    pi = np.exp(fitted.mechanism_.log_probabilities(rows))
    out = fitted.synthesize(fitted.term_counts(["hockey game game"] * 500), random_state=1)
    observed = np.asarray(out.sum(axis=0)).ravel()
    assert reference.chi_square_pvalue(observed, pi[0] / 3 + 2 * pi[1] / 3) > 1e-3


@pytest.mark.parametrize("text", ["", "the and of 1993 42", "   \n\t"])
def test_document_without_vocabulary_word_gets_the_uniform_theta(text):
    model = SynTF(n_words=40, vocabulary=SMALL_WORDS, random_state=0).fit([])
    L = len(model.vocabulary_)
    pi = np.exp(model.mechanism_.log_probabilities(np.arange(L)))
    out = model.synthesize(model.term_counts([text] * 2000), random_state=2)
    assert out.shape[0] == 2000
    observed = np.asarray(out.sum(axis=0)).ravel()
    # uniform over source words, then the mechanism
    assert reference.chi_square_pvalue(observed, pi.mean(axis=0)) > 1e-3
    # power: a document about one word would not pass
    assert reference.chi_square_pvalue(observed, pi[model.vocabulary_["hockey"]]) < 1e-6


def test_pipeline_round_trip_and_clone(newsgroups_sample):
    pipeline = Pipeline(
        [
            ("syntf", SynTF(epsilon=60.0, n_words=100, random_state=0)),
            ("tfidf", TfidfTransformer()),
            ("nb", MultinomialNB(alpha=0.01)),
        ]
    )
    labels = np.asarray(newsgroups_sample.labels)
    pipeline.fit(newsgroups_sample.texts, labels)
    predictions = pipeline.predict(newsgroups_sample.texts)
    assert predictions.shape == labels.shape and set(predictions) <= set(labels)
    assert (predictions == labels).mean() > 1 / 3  # better than chance on 3 balanced groups
    copy = clone(pipeline)
    assert copy.get_params()["syntf__epsilon"] == 60.0 and not hasattr(copy.named_steps["syntf"], "mechanism_")


def test_public_vocabulary_is_normalised_and_reported(newsgroups_sample):
    model = SynTF(n_words=10, vocabulary=["Hockey", "games", "the", "space", "zzqxv", "42"], random_state=0)
    model.fit(["ignored: the vocabulary is public"])
    assert list(model.vocabulary_) == ["game", "hockey", "space"]
    assert model.privacy_report().vocabulary_source == "public"
    out = model.transform(newsgroups_sample.texts[:5])
    assert out.shape == (5, 3)


def test_synsets_extend_the_vocabulary_with_wordnet_synonyms():
    texts = ["The automobile was fast.", "A quick car."]
    plain = SynTF(n_words=5, random_state=0).fit(texts)
    extended = SynTF(n_words=5, synsets=True, random_state=0).fit(texts)
    assert set(plain.vocabulary_) < set(extended.vocabulary_)
    assert "motorcar" in extended.vocabulary_  # a WordNet synonym of car/automobile with a GloVe vector


@pytest.mark.parametrize("morphology", ["lemma", "lower", "orth"])
def test_morphologies(morphology):
    model = SynTF(n_words=5, morphology=morphology, random_state=0).fit(["Cats were running", "cats ran"])
    expected = {
        "lemma": {"cat", "run"},
        "lower": {"cats", "running", "ran"},
        "orth": {"Cats", "cats", "running", "ran"},
    }
    assert set(model.vocabulary_) == expected[morphology]


def test_secure_mode_draws_from_the_os_csprng(newsgroups_sample):
    model = SynTF(n_words=10, secure=True, random_state=0).fit(newsgroups_sample.texts[:10])
    assert isinstance(model._uniform_source, SecureUniforms)
    out = model.transform(newsgroups_sample.texts[:10])
    np.testing.assert_array_equal(np.asarray(out.sum(axis=1)).ravel(), 10)
    assert model.privacy_report().secure_random is True


def test_privacy_report_values(fitted):
    report = fitted.privacy_report().to_dict()
    assert report["standard_epsilon"] == 30.0 * 40
    assert 0 < report["tight_epsilon"] < report["improved_epsilon"] < report["standard_epsilon"]
    assert report["tight_epsilon"] == pytest.approx(report["loss_per_word"] * 40)
    assert report["vocabulary_size"] == len(fitted.vocabulary_) and report["vocabulary_source"] == "fitted"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"epsilon": 0}, "The 'epsilon' parameter of SynTF must be a float in the range \\(0, inf\\). Got 0 instead."),
        ({"epsilon": -1}, "'epsilon' parameter of SynTF must be a float in the range \\(0, inf\\). Got -1"),
        ({"epsilon": "high"}, "'epsilon' parameter of SynTF"),
        ({"n_words": 0}, "The 'n_words' parameter of SynTF must be an int in the range \\[1, inf\\). Got 0 instead."),
        ({"n_words": 2.5}, "'n_words' parameter of SynTF"),
        (
            {"bigram_weight": 1.5},
            "The 'bigram_weight' parameter of SynTF must be a float in the range \\[0, 1\\]. Got 1.5",
        ),
        ({"bigram_weight": -0.1}, "'bigram_weight' parameter of SynTF"),
        (
            {"morphology": "stem"},
            "The 'morphology' parameter of SynTF must be one of 'lemma', 'lower', 'orth'. Got 'stem'",
        ),
        (
            {"vocabulary": "mine.txt"},
            "'vocabulary' parameter of SynTF must be None, 'embeddings', a word-list file .* \\(no such file\\)",
        ),
        ({"synsets": "yes"}, "'synsets' parameter of SynTF must be a bool"),
        ({"n_jobs": 0}, "The 'n_jobs' parameter of SynTF must be None, -1 \\(every core\\) or >= 1. Got 0"),
        ({"n_jobs": 1.5}, "'n_jobs' parameter of SynTF must be an int"),
    ],
)
def test_bad_parameters_fail_in_fit_with_one_line(params, message):
    with pytest.raises(ValueError, match=message):
        SynTF(**params).fit(["a document about hockey"])


def test_bad_documents():
    with pytest.raises(InputError, match="iterable of documents"):
        SynTF().fit("a single string")
    with pytest.raises(InputError, match="document 1 must be a str; got NoneType"):
        SynTF().fit(["hockey", None])
    with pytest.raises(InputError, match="document 0 is not valid UTF-8"):
        SynTF().fit([b"caf\xe9 hockey"])
    with pytest.raises(InputError, match="no document has a vocabulary word"):
        SynTF().fit(["", "the of and", "1993"])


def test_transform_before_fit_is_an_error():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        SynTF().transform(["hockey"])


def test_max_features_keeps_the_most_frequent_words_with_vectors():
    texts = ["hockey hockey hockey game game zzqxvw zzqxvw zzqxvw zzqxvw puck", "hockey game space"]
    model = SynTF(n_words=5, max_features=2, random_state=0).fit(texts)
    assert list(model.vocabulary_) == ["game", "hockey"]  # 'zzqxvw' is frequent but has no vector


def test_calibrate_sets_epsilon_for_a_target_loss():
    model = SynTF(n_words=5, vocabulary=SMALL_WORDS, random_state=0).fit([])
    epsilon = model.calibrate(10.0)
    assert model.get_params()["epsilon"] == epsilon == model.mechanism_.epsilon
    assert model.privacy_report().loss_per_word == pytest.approx(10.0, abs=1e-2)


def test_public_embeddings_vocabulary_capped_by_frequency_rank():
    model = SynTF(n_words=5, vocabulary="embeddings", max_features=50, random_state=0).fit([])
    assert len(model.vocabulary_) == 50 and model.vocabulary_source_ == "public"
    # GloVe is ordered by frequency: the 50 most frequent non-stop-words, lemmatised
    assert {"year", "state", "time", "government"} <= set(model.vocabulary_)


def test_transform_records_output_depends_only_on_seed_and_id():
    model = SynTF(n_words=20, vocabulary=SMALL_WORDS, random_state=0).fit([])
    texts = ["cat dog", "hockey game", "apple banana orange"]
    ids = ["a", "b", "c"]
    together = model.transform_records(texts, ids, seed=3)
    reordered = model.transform_records(texts[::-1], ids[::-1], seed=3)
    alone = model.transform_records(texts[1:2], ids[1:2], seed=3)
    assert (together[::-1] != reordered).nnz == 0
    assert (together[1] != alone[0]).nnz == 0
    assert (together != model.transform_records(texts, ids, seed=4)).nnz > 0
    assert model.transform_records(texts, ids, seed=None).sum() == 60  # secure source
    assert model.fits_on_private_input() is False and SynTF().fits_on_private_input() is True


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"min_df": 3, "max_features": 500},
        {"synsets": True, "min_df": 2, "max_features": 300},
        {"morphology": "orth"},
    ],
)
def test_fit_term_counts_tokenises_once_and_equals_fit_then_term_counts(newsgroups_sample, params):
    texts = newsgroups_sample.texts[:120]
    fitted = SynTF(**params).fit(texts)
    once = SynTF(**params)
    counts = once.fit_term_counts(texts)
    assert once.vocabulary_ == fitted.vocabulary_
    assert counts.dtype == np.int64 and counts.shape == (120, len(fitted.vocabulary_))
    assert (counts != fitted.term_counts(texts)).nnz == 0


def test_release_does_not_depend_on_the_processes_that_tokenise(newsgroups_sample, monkeypatch):
    from authorguard.text import counting

    monkeypatch.setattr(counting, "_PARALLEL_MIN_CHARACTERS", 0)  # split even this small batch
    texts = newsgroups_sample.texts[:90]
    serial = SynTF(epsilon=30.0, n_words=40, random_state=4)
    split = SynTF(epsilon=30.0, n_words=40, random_state=4, n_jobs=2)
    assert (serial.fit_transform(texts) != split.fit_transform(texts)).nnz == 0
    assert split.vocabulary_ == serial.vocabulary_
    assert (serial.term_counts(texts[::-1]) != split.term_counts(texts[::-1])).nnz == 0


@pytest.mark.parametrize("vocabulary", [None, ["hockey", "space", "orbit", "game", "god"]])
def test_counts_started_early_give_the_same_release(newsgroups_sample, vocabulary):
    from authorguard.text.counting import start_counting

    texts = list(newsgroups_sample.texts[:80])
    model = SynTF(epsilon=30.0, n_words=40, random_state=4, vocabulary=vocabulary)
    early = SynTF(epsilon=30.0, n_words=40, random_state=4, vocabulary=vocabulary)
    counted = start_counting(texts, early.build_analyzer())
    assert (early.fit_term_counts(texts, counted=counted) != model.fit_term_counts(texts)).nnz == 0
    assert early.vocabulary_ == model.vocabulary_
    with pytest.raises(ValueError, match="counted must come from start_counting"):
        SynTF(morphology="orth").fit_term_counts(texts, counted=start_counting(texts, early.build_analyzer()))


def test_fit_transform_equals_fit_then_transform(newsgroups_sample):
    texts = newsgroups_sample.texts[:60]
    both = SynTF(epsilon=30.0, n_words=40, random_state=4).fit_transform(texts)
    apart = SynTF(epsilon=30.0, n_words=40, random_state=4).fit(texts).transform(texts)
    assert (both != apart).nnz == 0


def test_a_release_that_needs_most_rows_computes_the_exact_loss_in_the_same_pass(newsgroups_sample):
    texts = newsgroups_sample.texts
    model = SynTF(epsilon=30.0, n_words=150, max_features=400, random_state=2).fit(texts)
    assert model._loss_per_word is None
    released = model.synthesize(model.term_counts(texts))
    assert model._loss_per_word is not None  # cached by the release's pass over every row
    fresh = SynTF(epsilon=30.0, n_words=150, max_features=400, random_state=2).fit(texts)
    assert model.loss_per_word() == fresh.loss_per_word()
    few = fresh.synthesize(fresh.term_counts(texts[:1]))  # a few rows: no loss pass, same stream semantics
    assert few.sum() == 150
    again = SynTF(epsilon=30.0, n_words=150, max_features=400, random_state=2).fit(texts)
    again._loss_per_word = 1.0  # loss known: only the rows drawn from are computed, the output is the same
    assert (again.synthesize(again.term_counts(texts)) != released).nnz == 0
