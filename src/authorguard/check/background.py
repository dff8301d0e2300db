"""The other candidates: authors of the staged corpora in the text's genre, or a person's own background file.

A stylometric attacker picks the writer out *of a set of candidates*; how hard that is depends on who else is in
the set. The default set is drawn from the staged corpora of the text's genre — ``blog`` (the blog sample's
bloggers), ``essay`` (the AMT writing samples), ``forum`` (20 Newsgroups senders: e-mail-like Usenet posts) — by a
small character n-gram classifier of genre (:func:`genre_of`; its held-out accuracy is measured by
``scripts/check/measure.py genre``). Each genre's pool (authors with at least :data:`MIN_AUTHOR_WORDS` words,
their documents in order, at most :data:`MAX_AUTHOR_WORDS` words) and the genre classifier are built once from the
corpora and kept in the cache folder (``check/``), so a check reads one small file instead of a corpus.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from authorguard.check.texts import jsonl_rows, word_count
from authorguard.config import cache_dir
from authorguard.exceptions import InputError

#: genre -> (what it is, the corpus its authors come from)
GENRES = {
    "blog": "personal blog posts (the Blog Authorship Corpus sample)",
    "essay": "essays and writing samples (the EBG/AMT corpus)",
    "forum": "e-mail-like forum posts (20 Newsgroups senders)",
}
MIN_AUTHOR_WORDS = 600
MAX_AUTHOR_WORDS = 12_000
#: documents per genre the genre classifier learns from (seeded sample)
GENRE_TRAINING_DOCUMENTS = 600
POOL_VERSION = 1


@dataclass(frozen=True)
class Background:
    """``authors[name]``: that author's documents in order; ``genre`` and ``source`` say where they come from;
    ``pool``: the whole pool these authors were taken from (:meth:`without`; None: ``authors`` is the pool), whose
    cached features the check reads."""

    authors: dict
    genre: str
    source: str
    pool: dict | None = None

    def __post_init__(self) -> None:
        if not self.authors:
            raise InputError(f"the background ({self.source}) has no authors")

    def __len__(self) -> int:
        return len(self.authors)

    def without(self, names: Sequence[str]) -> Background:
        """The same background less the authors ``names`` (a writer drawn from it, for measurement)."""
        dropped = set(names)
        return Background(
            {a: t for a, t in self.authors.items() if a not in dropped},
            self.genre,
            self.source,
            self.pool if self.pool is not None else self.authors,
        )


def _corpus_documents(genre: str) -> tuple[list[str], list[str]]:
    """(authors, texts) of every document of the genre's staged corpus (authors known, texts not blank)."""
    if genre == "blog":
        from authorguard.data.blogs import load_blogs

        corpus = load_blogs()
        keep: Sequence[int] = range(len(corpus))
    elif genre == "essay":
        from authorguard.data.amt import load_amt

        corpus = load_amt()
        keep = [i for i, kind in enumerate(corpus.attributes["kind"]) if kind == "regular"]
    elif genre == "forum":
        from authorguard.data.newsgroups import load_20newsgroups

        corpus = load_20newsgroups()
        keep = range(len(corpus))
    else:
        raise InputError(f"unknown genre {genre!r} (genres: {', '.join(GENRES)})")
    pairs = [(str(corpus.authors[i]), corpus.texts[i]) for i in keep if corpus.authors[i] and corpus.texts[i].strip()]
    return [a for a, _ in pairs], [t for _, t in pairs]


def _pool_path(genre: str) -> Path:
    return cache_dir() / "check" / f"background-{genre}-v{POOL_VERSION}.json.gz"


def build_pool(genre: str) -> dict:
    """{author: documents} of the genre's corpus: authors with at least MIN_AUTHOR_WORDS words, their documents
    in corpus order up to MAX_AUTHOR_WORDS words."""
    authors, texts = _corpus_documents(genre)
    pool: dict[str, list[str]] = {}
    words: dict[str, int] = {}
    for author, text in zip(authors, texts):
        if words.get(author, 0) >= MAX_AUTHOR_WORDS:
            continue
        pool.setdefault(author, []).append(text)
        words[author] = words.get(author, 0) + word_count(text)
    return {a: docs for a, docs in pool.items() if words[a] >= MIN_AUTHOR_WORDS}


def load_background(genre: str, *, rebuild: bool = False) -> Background:
    """The genre's pool of authors from the cache (built from the staged corpus on first use)."""
    if genre not in GENRES:
        raise InputError(f"unknown genre {genre!r} (genres: {', '.join(GENRES)})")
    path = _pool_path(genre)
    if rebuild or not path.is_file():
        pool = build_pool(genre)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        with gzip.open(partial, "wt", encoding="utf-8") as handle:
            json.dump(pool, handle)
        partial.replace(path)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            pool = json.load(handle)
    except (OSError, json.JSONDecodeError, EOFError):
        raise InputError(
            f"the cached background {path} is corrupt: delete it (it is rebuilt from the corpus)"
        ) from None
    return Background(pool, genre, GENRES[genre])


def read_background(path: str, author_field: str = "author", text_field: str = "text") -> Background:
    """A person's own background: a JSONL file of {author_field, text_field} rows (two authors at least)."""
    source = Path(path)
    if not source.is_file():
        raise InputError(f"{source}: no such background file")
    authors: dict[str, list[str]] = {}
    for row in jsonl_rows(source, [author_field, text_field]):
        authors.setdefault(str(row[author_field]), []).append(row[text_field])
    if len(authors) < 2:
        raise InputError(f"{source} holds {len(authors)} author(s): a background needs two at least")
    return Background(authors, "own", str(source))


def _genre_model_path() -> Path:
    return cache_dir() / "check" / f"genre-v{POOL_VERSION}.json"


def genre_training_documents(
    rng: np.random.Generator,
    per_genre: int = GENRE_TRAINING_DOCUMENTS,
    exclude: Callable[[str, int], bool] | None = None,
) -> tuple[list[str], list[str]]:
    """(texts, genres): a seeded sample of ``per_genre`` documents of at least 50 words from each genre's pool."""
    texts, labels = [], []
    for genre in GENRES:
        documents = [d for docs in load_background(genre).authors.values() for d in docs if word_count(d) >= 50]
        for i in rng.choice(len(documents), min(per_genre, len(documents)), replace=False):
            if exclude is None or not exclude(genre, int(i)):
                texts.append(documents[i])
                labels.append(genre)
    return texts, labels


def fit_genre_classifier(texts: Sequence[str], genres: Sequence[str]):
    """Character 1-3-gram tf-idf (casing, punctuation and spacing habits of a genre) + a linear SVM."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import Pipeline
    from sklearn.svm import LinearSVC

    model = Pipeline(
        [
            (
                "tfidf",
                TfidfVectorizer(
                    analyzer="char",
                    ngram_range=(1, 3),
                    sublinear_tf=True,
                    lowercase=False,
                    min_df=3,
                    max_features=30_000,
                ),
            ),
            ("svm", LinearSVC(C=1.0, random_state=0)),
        ]
    )
    return model.fit(list(texts), list(genres))


_GENRE_MODEL = None


def genre_of(text: str) -> str:
    """The genre of ``text`` among :data:`GENRES` (the classifier is fitted once on the pools, seed 0, and its
    vocabulary and weights kept in the cache as JSON)."""
    global _GENRE_MODEL
    if _GENRE_MODEL is None:
        _GENRE_MODEL = _load_or_fit_genre_model()
    vectorizer, weights, intercepts, classes = _GENRE_MODEL
    features = vectorizer.transform([text])
    return str(classes[int(np.argmax(features @ weights.T + intercepts))])


def _load_or_fit_genre_model():
    from sklearn.feature_extraction.text import TfidfVectorizer

    path = _genre_model_path()
    if not path.is_file():
        texts, genres = genre_training_documents(np.random.default_rng(0))
        model = fit_genre_classifier(texts, genres)
        tfidf, svm = model.named_steps["tfidf"], model.named_steps["svm"]
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text(
            json.dumps(
                {
                    "vocabulary": {k: int(v) for k, v in tfidf.vocabulary_.items()},
                    "idf": tfidf.idf_.tolist(),
                    "weights": svm.coef_.tolist(),
                    "intercepts": svm.intercept_.tolist(),
                    "classes": svm.classes_.tolist(),
                }
            )
        )
        partial.replace(path)
    try:
        stored = json.loads(path.read_text())
        vectorizer = TfidfVectorizer(
            analyzer="char", ngram_range=(1, 3), sublinear_tf=True, lowercase=False, vocabulary=stored["vocabulary"]
        )
        vectorizer.idf_ = np.asarray(stored["idf"])
        return vectorizer, np.asarray(stored["weights"]), np.asarray(stored["intercepts"]), stored["classes"]
    except (OSError, ValueError, KeyError):
        raise InputError(f"the cached genre classifier {path} is corrupt: delete it (it is refitted)") from None


def as_background(
    background: str | os.PathLike | Mapping[str, Sequence[str]] | Background | None, genre: str | None = None
) -> Background | None:
    """The check's background from what a caller has: a genre's staged pool (``genre``), a JSONL file of
    author/text rows (a path), a mapping author -> documents, a :class:`Background`, or None (the text's genre is
    guessed later)."""
    if background is not None and genre is not None:
        raise InputError("check: give a background or a genre, not both")
    if genre is not None:
        return load_background(genre)
    if background is None or isinstance(background, Background):
        return background
    if isinstance(background, Mapping):
        authors: dict[str, list[str]] = {}
        for author, documents in background.items():
            if isinstance(documents, str):
                documents = [documents]
            kept = [d for d in documents if isinstance(d, str) and d.strip()]
            if not kept:
                raise InputError(f"check: background author {author!r} has no text")
            authors[str(author)] = kept
        if len(authors) < 2:
            raise InputError(f"check: the background holds {len(authors)} author(s): it needs two at least")
        return Background(authors, "own", "your own background (given in Python)")
    return read_background(str(background))
