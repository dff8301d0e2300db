"""The judge's training sentences: real sentences of the development corpora only — blog posts and 20 Newsgroups
messages of authors no evaluation scenario selects (:func:`~authorguard.neural.author_encoder.episodes.
evaluation_authors`); the speeches, the Federalist papers and the AMT essays are never read (the held-out sets come
from them). Sentences of 8-45 words that end a sentence, mostly words, without quoted e-mail text, links or
addresses; at most ``per_author`` an author, drawn with a seed."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from authorguard.neural.author_encoder.episodes import evaluation_authors

DATASETS = ("blogs", "20news")
_UNWANTED = re.compile(r"https?://|www\.|@\w|^\s*[>|]|\S+\.(?:com|org|edu|net)\b|[{}<>\[\]=_*#~^]")


def usable_sentence(text: str) -> bool:
    """Whether a sentence is a clean training source: 8-45 words, ends with . ! or ?, mostly letters."""
    words = text.split()
    if not 8 <= len(words) <= 45 or text[-1:] not in ".!?" or _UNWANTED.search(text):
        return False
    letters = sum(c.isalpha() for c in text)
    return letters >= 0.7 * len(text.replace(" ", "")) and text[:1].isupper()


def development_documents(per_author: int, seed: int, datasets: Sequence[str] = DATASETS) -> list[str]:
    """Up to ``per_author`` documents of each development author (no evaluation author), in a seeded order."""
    from authorguard import registry

    rng = np.random.default_rng(seed)
    out: list[str] = []
    for dataset in datasets:
        corpus = registry.datasets.get(dataset)()
        banned = evaluation_authors(dataset, corpus)
        by_author: dict[str, list[int]] = {}
        for index, author in enumerate(corpus.authors):
            if author and author not in banned:
                by_author.setdefault(str(author), []).append(index)
        for author in sorted(by_author):
            chosen = rng.permutation(by_author[author])[:per_author]
            out.extend(corpus.texts[int(i)] for i in chosen)
    return [out[i] for i in rng.permutation(len(out))]


def training_sentences(documents: Sequence[str], limit: int, batch_size: int = 64) -> tuple[list[str], list]:
    """Up to ``limit`` usable sentences of ``documents`` (Punkt's boundaries, :class:`~authorguard.text.sentences.
    SentenceSplitter`) and their spaCy parses (each sentence parsed alone, as the rules read it), at most two a
    document."""
    from authorguard.metrics.fidelity.reading import parser
    from authorguard.text.sentences import SentenceSplitter

    splitter = SentenceSplitter()
    sentences: list[str] = []
    for document in documents:
        kept = [s for s in (" ".join(p.split()) for p in splitter.split(document)) if usable_sentence(s)][:2]
        sentences.extend(kept)
        if len(sentences) >= limit:
            break
    nlp = parser()
    sentences = sentences[:limit]
    return sentences, list(nlp.pipe(sentences, batch_size=batch_size))


def names_by_label(docs: Sequence) -> dict[str, list[str]]:
    """The names the parses found, by entity label (what :func:`~.pairs.name_replaced` swaps in), sorted."""
    found: dict[str, set[str]] = {}
    for doc in docs:
        for entity in doc.ents:
            if entity.text[:1].isupper() and len(entity.text) > 2:
                found.setdefault(entity.label_, set()).add(entity.text)
    return {label: sorted(names) for label, names in found.items()}
