"""Sentence boundaries that keep every character: NLTK's Punkt (Kiss & Strunk, 2006), trainable on a corpus.

A :class:`SentenceSplitter` with default parameters knows no abbreviation (it splits at ``.``, ``!``, ``?`` before
a space and a word); :meth:`SentenceSplitter.train` learns a corpus's abbreviations and sentence starters,
unsupervised (A⁴NT trains one per setting; Stanford CoreNLP, which the paper used, is not available offline).
Blank lines always end a sentence (blog posts are joined by them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PARAGRAPHS = re.compile(r"\n\s*\n")


class SentenceSplitter:
    """Punkt sentence boundaries learned from a corpus; :meth:`split` keeps every character of the text (the
    sentences, stripped, in order; none empty)."""

    def __init__(self, parameters=None) -> None:
        from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

        self.parameters = parameters if parameters is not None else PunktParameters()
        self._tokenizer = PunktSentenceTokenizer(self.parameters)

    @classmethod
    def train(cls, texts: Iterable[str], max_words: int) -> SentenceSplitter:
        """Train on the first ``max_words`` whitespace words of ``texts`` (Punkt is unsupervised)."""
        from nltk.tokenize.punkt import PunktTrainer

        trainer = PunktTrainer()
        trainer.INCLUDE_ALL_COLLOCS = True
        words = 0
        for text in texts:
            trainer.train(text, finalize=False)
            words += len(text.split())
            if words >= max_words:
                break
        trainer.finalize_training()
        return cls(trainer.get_params())

    def split(self, text: str) -> list[str]:
        sentences: list[str] = []
        for paragraph in _PARAGRAPHS.split(text):
            sentences.extend(s.strip() for s in self._tokenizer.tokenize(paragraph) if s.strip())
        return sentences

    def to_dict(self) -> dict:
        p = self.parameters
        return {
            "abbrev_types": sorted(p.abbrev_types),
            "collocations": sorted(map(list, p.collocations)),
            "sent_starters": sorted(p.sent_starters),
            "ortho_context": dict(p.ortho_context),
        }

    @classmethod
    def from_dict(cls, data: dict) -> SentenceSplitter:
        from nltk.tokenize.punkt import PunktParameters

        p = PunktParameters()
        p.abbrev_types = set(data["abbrev_types"])
        p.collocations = {tuple(c) for c in data["collocations"]}
        p.sent_starters = set(data["sent_starters"])
        for word, flags in data["ortho_context"].items():
            p.ortho_context[word] = int(flags)
        return cls(p)
