"""Synonym replacement and word dropout: rates, what is kept, reproducibility, bad parameters."""

from __future__ import annotations

import re

import pytest
from scipy import stats

from authorguard.exceptions import InputError
from authorguard.methods.perturbation import SynonymReplacement, WordDropout, _synonyms

TEXT = "The Quick brown fox, who was HAPPY, jumped over 3 lazy dogs.\nDon't stop: well-known xyzzy words!"


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", text)


@pytest.mark.parametrize("cls", [SynonymReplacement, WordDropout])
def test_rate_zero_is_the_identity_and_documents_in_equal_documents_out(cls):
    texts = [TEXT, "", "42!"]
    out = cls(rate=0.0, random_state=0).fit().obfuscate(texts)
    assert out == texts


def test_dropout_at_rate_one_keeps_only_what_is_not_a_word():
    out = WordDropout(rate=1.0, random_state=0).fit().obfuscate([TEXT])[0]
    assert _words(out) == [] and "3" in out and out.count("\n") == 1 and "  " not in out


def test_dropout_share_follows_the_binomial_law():
    words = " ".join(["word"] * 20_000)
    model = WordDropout(rate=0.3, random_state=7).fit()
    kept = len(model.obfuscate([words])[0].split())
    # deleted ~ Binomial(20000, 0.3): a two-sided test at 1e-4 must not reject
    assert stats.binomtest(20_000 - kept, 20_000, 0.3).pvalue > 1e-4
    assert model.changed_share_ == pytest.approx((20_000 - kept) / 20_000)


def test_synonyms_replace_only_words_with_synonyms_and_keep_case():
    out = SynonymReplacement(rate=1.0, random_state=1).fit().obfuscate([TEXT])[0]
    original, new = _words(TEXT), _words(out)
    assert "xyzzy" in new  # no synonym: kept
    for old, rewritten in zip(original, new):  # one word may become one word, in place
        if _synonyms(old.lower(), "common"):
            assert rewritten.lower() in _synonyms(old.lower(), "common")
            assert rewritten[0].isupper() == old[0].isupper()
    assert new[original.index("HAPPY")].isupper()
    assert out.endswith("!") and "3" in out


def test_same_seed_same_rewrite_other_seed_other_rewrite():
    texts = [TEXT] * 5
    first = SynonymReplacement(rate=0.5, random_state=3).fit().obfuscate(texts)
    assert first == SynonymReplacement(rate=0.5, random_state=3).fit().obfuscate(texts)
    assert first != SynonymReplacement(rate=0.5, random_state=4).fit().obfuscate(texts)
    assert len(set(first)) > 1  # one stream over the documents: equal inputs get different rewrites


@pytest.mark.parametrize("rate", [-0.1, 1.5, float("nan")])
def test_bad_rate_is_an_error(rate):
    with pytest.raises(InputError, match="'rate' parameter of WordDropout"):
        WordDropout(rate=rate).fit()


def test_non_text_input_is_an_error():
    with pytest.raises(InputError, match="document 1 must be a str"):
        WordDropout(random_state=0).fit().obfuscate(["fine", None])
    with pytest.raises(InputError, match="not valid UTF-8"):
        WordDropout(random_state=0).fit().obfuscate([b"caf\xe9"])


def test_secure_mode_runs_without_a_seed():
    out = WordDropout(rate=0.5, secure=True).fit().obfuscate([" ".join(["w"] * 1000)])[0]
    assert 300 < len(out.split()) < 700


def test_records_do_not_depend_on_batching_or_order():
    from authorguard.methods.perturbation import SynonymReplacement

    method = SynonymReplacement(rate=0.5, random_state=1).fit()
    texts = ["The quick brown fox jumps over the lazy dog.", "A small house stood near the big river.", "Run fast."]
    ids = ["a", "b", "c"]
    together = method.obfuscate_records(texts, ids, seed=9)
    reversed_order = method.obfuscate_records(texts[::-1], ids[::-1], seed=9)[::-1]
    assert together == reversed_order == [method.obfuscate_records([t], [i], seed=9)[0] for t, i in zip(texts, ids)]
    assert together != method.obfuscate_records(texts, ids, seed=10)
    assert method.random_state == 1  # restored afterwards


def test_synonyms_skip_one_letter_words_and_rare_senses():
    """The first user's findings: "I met Yazid" -> "I adjoin Yazid", ";o)" -> ";oxygen)", "the same time" -> "the
    saame time", "a" -> "axerophthol" (every WordNet sense); the default draws from the most frequent sense only."""
    text = "I met Yazid ;o) at the same time as a friend"
    common = {SynonymReplacement(rate=1.0, random_state=seed).fit().obfuscate([text])[0] for seed in range(40)}
    for out in common:
        assert "adjoin" not in out and "oxygen" not in out and "saame" not in out and "axerophthol" not in out
        assert out.startswith("I ") and ";o)" in out and " a " in out
    assert any("encounter" in out or "see" in out for out in common)  # met's common sense is still drawn
    every = {
        SynonymReplacement(rate=1.0, senses="all", random_state=seed).fit().obfuscate([text])[0] for seed in range(40)
    }
    assert any("oxygen" in out for out in every)  # the benchmark's baseline, kept reproducible
    with pytest.raises(InputError, match="senses"):
        SynonymReplacement(senses="rare").fit()
