"""A WritePrints-Limited-style stylometric attacker, as JStylo runs it, on reverse-vectorised releases.

WritePrints [AC08] describes an author by lexical, syntactic and content features; JStylo's "WritePrints
(Limited)" keeps each n-gram feature class to its 50 most frequent members. What is included here:

=====================  ===============================================================================
group                  features (per document; frequencies are relative to the document's size)
=====================  ===============================================================================
length                 total characters, total words
character              share of letters, of upper-case letters, of digits
letters                frequency of each letter a-z (26)
letter bigrams         the 50 most frequent in the training documents (within words)
letter trigrams        the 50 most frequent in the training documents (within words)
digits                 frequency of each digit 0-9 (10)
word length            share of words of length 1 ... 19 and >= 20 (20)
vocabulary richness    hapax legomena and dis legomena per word type, Yule's K
special characters     frequency of each of 31 punctuation and symbol characters
function words         frequency of each NLTK English stop word (179)
frequent words         the 50 most frequent training words
=====================  ===============================================================================

With ``word_order=True`` (the ``writeprints-text`` attacker, for releases of text) five more groups, each the
``top_k`` most frequent in the training documents: word bigrams, word trigrams, part-of-speech tags, POS bigrams
and POS trigrams (NLTK's averaged-perceptron tagger, Penn Treebank tags). The ``writeprints`` attacker leaves them
out, because a term-frequency vector keeps no word order (reverse vectorisation lists each word ``count`` times
in column order), so on a vector release they would describe the vectoriser, not the author; it also reads every
release reverse-vectorised, as the SynTF paper's attacker did. Misspellings are left out of both (no
dictionary of common misspellings ships offline). On texts a vectoriser already stripped of stop words, numbers
and punctuation (SynTF's), the function-word, digit and special-character groups are zero for every document:
the attacker sees what the release contains, nothing more.

References
----------
.. [AC08] Abbasi & Chen, "Writeprints: A stylometric approach to identity-level identification and similarity
   detection in cyberspace", ACM TOIS 26(2), 2008.
.. [MAG12] McDonald, Afroz, Caliskan, Stolerman & Greenstadt, "Use fewer instances of the letter 'i': toward
   writing style anonymization", PETS 2012 (JStylo).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Hashable, Sequence

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MaxAbsScaler

from authorguard.attacks.base import Attacker
from authorguard.data.release import Release
from authorguard.metrics.classification import estimator_scores, make_classifier
from authorguard.text.resources import english_stop_words
from authorguard.utils.validation import check_number, check_texts

SPECIAL_CHARACTERS = "~@#$%^&*-_=+><[]{}/\\|.,;:!?'\"()"
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_LETTERS = string.ascii_lowercase
_MAX_WORD_LENGTH = 20


def _letters_only(text: str) -> str:
    return re.sub(r"[^a-z]+", " ", text.lower())


_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?|[^\w\s]")
_TAGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}  # text -> (words, tags): each text is tagged once
_TAG_CACHE_SIZE = 60_000


def _word_and_tag_sequences(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(lower-cased tokens, their Penn Treebank tags) of ``text``; tokens are words and punctuation marks."""
    cached = _TAGS.get(text)
    if cached is None:
        from authorguard.text.resources import pos_tagger

        tokens = _TOKEN.findall(text)
        tags = tuple(tag for _, tag in pos_tagger().tag(tokens)) if tokens else ()
        cached = (tuple(t.lower() for t in tokens), tags)
        if len(_TAGS) >= _TAG_CACHE_SIZE:
            _TAGS.clear()
        _TAGS[text] = cached
    return cached


def _ngrams(sequence: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(sequence[i : i + n]) for i in range(len(sequence) - n + 1)]


class WritePrintsLimited(TransformerMixin, BaseEstimator):
    """Texts -> a dense WritePrints-Limited feature matrix (see the module docstring for the groups).

    Parameters
    ----------
    top_k : int, default=50
        Members kept of each frequency-ranked group (letter bigrams, trigrams, words). Must be >= 1.
    word_order : bool, default=False
        Add the word and POS n-gram groups (see the module docstring).

    Attributes
    ----------
    feature_names_ : list of str
    """

    def __init__(self, top_k: int = 50, word_order: bool = False) -> None:
        self.top_k = top_k
        self.word_order = word_order

    def fit(self, raw_documents, y=None):
        check_number(self.top_k, "top_k", type(self).__name__, kind=int, low=1, closed="left")
        texts = check_texts(raw_documents, type(self).__name__)
        letters = [_letters_only(t) for t in texts]
        # char_wb pads words with spaces; the analyzer below drops n-grams containing them (within-word only)
        self._bigrams = self._top_ngrams(letters, 2)
        self._trigrams = self._top_ngrams(letters, 3)
        words = Counter(w for t in texts for w in _WORD.findall(t.lower()))
        self._frequent_words = [w for w, _ in sorted(words.items(), key=lambda item: (-item[1], item[0]))[: self.top_k]]
        self._function_words = sorted(english_stop_words())
        self._sequence_groups: list[tuple[str, int, bool, list[tuple[str, ...]]]] = []
        if self.word_order:
            sequences = [_word_and_tag_sequences(t) for t in texts]
            for group, n, tags in (
                ("word_bigram", 2, False),
                ("word_trigram", 3, False),
                ("pos", 1, True),
                ("pos_bigram", 2, True),
                ("pos_trigram", 3, True),
            ):
                counts = Counter(g for words, pos in sequences for g in _ngrams(pos if tags else words, n))
                top = [g for g, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[: self.top_k]]
                self._sequence_groups.append((group, n, tags, top))
        self.feature_names_ = (
            ["total_characters", "total_words", "share_letters", "share_upper", "share_digits"]
            + [f"letter:{c}" for c in _LETTERS]
            + [f"bigram:{g}" for g in self._bigrams]
            + [f"trigram:{g}" for g in self._trigrams]
            + [f"digit:{d}" for d in string.digits]
            + [f"word_length:{n}" for n in range(1, _MAX_WORD_LENGTH + 1)]
            + ["hapax_legomena", "dis_legomena", "yules_k"]
            + [f"special:{c}" for c in SPECIAL_CHARACTERS]
            + [f"function_word:{w}" for w in self._function_words]
            + [f"word:{w}" for w in self._frequent_words]
            + [f"{group}:{' '.join(g)}" for group, _, _, top in self._sequence_groups for g in top]
        )
        return self

    def _top_ngrams(self, letter_texts: list[str], n: int) -> list[str]:
        counter = CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False)
        try:
            counts = np.asarray(counter.fit_transform(letter_texts).sum(axis=0)).ravel()
        except ValueError:  # no n-gram at all (empty documents)
            return []
        names = counter.get_feature_names_out()
        within_words = [(name, c) for name, c in zip(names, counts) if " " not in name]
        within_words.sort(key=lambda item: (-item[1], item[0]))
        return [name for name, _ in within_words[: self.top_k]]

    @staticmethod
    def _frequencies(counts: Counter, keys: Sequence[Hashable], total: float) -> list[float]:
        return [counts[k] / total for k in keys] if total else [0.0] * len(keys)

    def _document_features(self, text: str) -> list[float]:
        n_chars = len(text)
        characters = Counter(text)
        lower = Counter(text.lower())
        letters = sum(lower[c] for c in _LETTERS)
        words = _WORD.findall(text.lower())
        n_words = len(words)
        word_counts = Counter(words)
        letter_text = _letters_only(text)
        bigrams = Counter(letter_text[i : i + 2] for i in range(len(letter_text) - 1))
        trigrams = Counter(letter_text[i : i + 3] for i in range(len(letter_text) - 2))
        n_bigrams, n_trigrams = max(letters - 1, 0), max(letters - 2, 0)
        lengths = Counter(min(len(w), _MAX_WORD_LENGTH) for w in words)
        frequency_of_frequencies = Counter(word_counts.values())
        types = len(word_counts)
        # Yule's K = 10^4 (sum_i i^2 V_i - N) / N^2, V_i = number of types occurring i times
        yules_k = (
            1e4 * (sum(i * i * v for i, v in frequency_of_frequencies.items()) - n_words) / n_words**2
            if n_words
            else 0.0
        )
        digits = sum(characters[d] for d in string.digits)
        return (
            [
                float(n_chars),
                float(n_words),
                letters / n_chars if n_chars else 0.0,
                sum(1 for c in text if c.isupper()) / n_chars if n_chars else 0.0,
                digits / n_chars if n_chars else 0.0,
            ]
            + self._frequencies(lower, _LETTERS, letters)
            + self._frequencies(bigrams, self._bigrams, n_bigrams)
            + self._frequencies(trigrams, self._trigrams, n_trigrams)
            + self._frequencies(characters, string.digits, digits)
            + self._frequencies(lengths, range(1, _MAX_WORD_LENGTH + 1), n_words)
            + [
                frequency_of_frequencies[1] / types if types else 0.0,
                frequency_of_frequencies[2] / types if types else 0.0,
                yules_k,
            ]
            + self._frequencies(characters, SPECIAL_CHARACTERS, n_chars)
            + self._frequencies(word_counts, self._function_words, n_words)
            + self._frequencies(word_counts, self._frequent_words, n_words)
            + self._sequence_features(text)
        )

    def _sequence_features(self, text: str) -> list[float]:
        if not self._sequence_groups:
            return []
        words, tags = _word_and_tag_sequences(text)
        values: list[float] = []
        for _, n, use_tags, top in self._sequence_groups:
            grams = Counter(_ngrams(tags if use_tags else words, n))
            values += self._frequencies(grams, top, max(len(words) - n + 1, 0))
        return values

    def transform(self, raw_documents) -> np.ndarray:
        """Feature matrix of shape (n_documents, len(feature_names_)), float64, non-negative."""
        texts = check_texts(raw_documents, type(self).__name__)
        return np.array([self._document_features(t) for t in texts], dtype=np.float64).reshape(
            len(texts), len(self.feature_names_)
        )

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        return np.array(self.feature_names_, dtype=object)


class WritePrintsAttacker(Attacker):
    """Reverse vectorisation + :class:`WritePrintsLimited` + max-abs scaling + naive Bayes or a linear SVM.

    Parameters
    ----------
    classifier : {"nb", "svm"}
    top_k : int, default=50
    random_state : int or None
    """

    name = "writeprints"

    def __init__(self, classifier: str = "svm", top_k: int = 50, random_state: int | None = None) -> None:
        self.classifier = classifier
        self.top_k = top_k
        self.random_state = random_state

    def fit(self, release: Release, authors: Sequence[str]) -> WritePrintsAttacker:
        self.model_ = Pipeline(
            [
                ("features", WritePrintsLimited(self.top_k)),
                ("scale", MaxAbsScaler()),
                ("clf", make_classifier(self.classifier, self.random_state)),
            ]
        )
        self.model_.fit(release.reverse_texts(), np.asarray(authors))
        self.classes_ = self.model_.classes_
        return self

    def predict(self, release: Release) -> np.ndarray:
        return self.model_.predict(release.reverse_texts())

    def scores(self, release: Release) -> np.ndarray:
        return estimator_scores(self.model_, release.reverse_texts())


class TextWritePrintsAttacker(WritePrintsAttacker):
    """WritePrints-Limited with the word and POS n-gram groups, on the text of the release
    (:meth:`Release.document_texts`: a text release's texts, a vector release's reverse-vectorised counts).
    Same parameters as :class:`WritePrintsAttacker`."""

    name = "writeprints-text"

    def fit(self, release: Release, authors: Sequence[str]) -> TextWritePrintsAttacker:
        self.model_ = Pipeline(
            [
                ("features", WritePrintsLimited(self.top_k, word_order=True)),
                ("scale", MaxAbsScaler()),
                ("clf", make_classifier(self.classifier, self.random_state)),
            ]
        )
        self.model_.fit(release.document_texts(), np.asarray(authors))
        self.classes_ = self.model_.classes_
        return self

    def predict(self, release: Release) -> np.ndarray:
        return self.model_.predict(release.document_texts())

    def scores(self, release: Release) -> np.ndarray:
        return estimator_scores(self.model_, release.document_texts())
