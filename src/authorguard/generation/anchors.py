"""The looser constraint TAROT can take, :class:`AnchorsInOrder`: anchors (names, numbers, negations) in order with
any text between them, each forced after ``max_gap`` tokens without it.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence

import numpy as np

from authorguard.exceptions import InputError
from authorguard.generation.constraints import TokenConstraint, TokenVocabulary


class AnchorPlan:
    """Anchors in order with free text between: each anchor (a tuple of forms, any one of which counts: ``("not",
    "n't")``) must appear, in order, as a whole word (a form starting with ``'`` or ``n'`` may end a word: "didn't");
    any token may come between two anchors, except that after ``max_gap`` tokens without the next anchor only that
    anchor may be written (its first form, after a space): the anchor is forced. The end only once every anchor
    appeared. For TAROT (``tarot(constrained=True)``): the input's names, numbers and negations, copied in order."""

    def __init__(self, anchors: Sequence[Sequence[str]], vocabulary: TokenVocabulary, *, max_gap: int = 24) -> None:
        import re

        if any(not forms or any(not f or any(ch.isspace() for ch in f) for f in forms) for forms in anchors):
            raise InputError("constrained decoding: every anchor needs non-empty forms without spaces")
        self.anchors = [tuple(forms) for forms in anchors]
        self.vocabulary = vocabulary
        self.max_gap = int(max_gap)
        # a form that is a word's ending ("n't", "'s") may follow letters; any other form is a whole word
        self.patterns = [
            re.compile(
                "|".join(
                    ("" if f.startswith(("'", "n'")) else r"(?<![\w'])") + re.escape(f) + r"(?![\w'])" for f in forms
                )
            )
            for forms in self.anchors
        ]
        self.all_but_end, self.word_ends = vocabulary.all_but_end, vocabulary.word_ends
        self._forced: dict = {}

    def target(self, index: int, boundary: bool) -> bytes:
        """What a forced anchor ``index`` writes: its first form, after a space unless at a word boundary."""
        return (b"" if boundary else b" ") + self.anchors[index][0].encode("utf-8")

    def forced(self, rest: bytes):
        """The tokens whose bytes are a non-empty prefix of ``rest`` (what of a forced anchor is still to write)."""
        if rest not in self._forced:
            found = []
            node = self.vocabulary.trie
            for byte in rest:
                if byte not in node:
                    break
                node = node[byte]
                if None in node:
                    found.append(node[None])
            self._forced[rest] = np.array(sorted(found), dtype=np.int64)
        return self._forced[rest]


class AnchorsInOrder(TokenConstraint):
    """One sequence written under an :class:`AnchorPlan`."""

    def __init__(self, plan: AnchorPlan) -> None:
        self.plan = plan
        self.next = 0
        self.text = ""  # decoded since the last anchor found
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")  # keeps an incomplete character
        self.gap = 0
        self.rest: bytes | None = None  # what of a forced anchor is still to write, or None when not forcing
        self.ended = False
        self._force_if_due()

    def _force_if_due(self) -> None:
        if self.rest is None and self.gap >= self.plan.max_gap and self.next < len(self.plan.anchors):
            boundary = not self.text or not (self.text[-1].isalnum() or self.text[-1] == "'")
            self.rest = self.plan.target(self.next, boundary)

    def _found(self, at_end: bool) -> None:
        while self.next < len(self.plan.anchors):
            match = self.plan.patterns[self.next].search(self.text)
            # a match at the very end may still grow into a longer word, unless the text ends here
            if match is None or (match.end() == len(self.text) and not at_end):
                return
            self.text, self.next, self.gap, self.rest = self.text[match.end() :], self.next + 1, 0, None

    def allowed(self):
        if self.ended:
            return np.empty(0, dtype=np.int64)
        if self.next >= len(self.plan.anchors):
            return np.append(self.plan.all_but_end, self.plan.vocabulary.end_id)
        if self.rest is None:
            return self.plan.all_but_end
        if self.rest:
            return self.plan.forced(self.rest)
        # the forced form is written: a token that ends the word (or the text, after the last anchor)
        if self.next == len(self.plan.anchors) - 1:
            return np.append(self.plan.word_ends, self.plan.vocabulary.end_id)
        return self.plan.word_ends

    def advance(self, token_id: int) -> None:
        if self.ended:
            return
        vocabulary = self.plan.vocabulary
        if token_id == vocabulary.end_id:
            self._found(True)
            self.ended = True
            return
        data = vocabulary.token_bytes[token_id] if 0 <= token_id < vocabulary.size else None
        if data is None:
            raise InputError(f"constrained decoding: token {token_id} is not allowed here (the mask was not applied)")
        if self.rest:
            if not self.rest.startswith(data):
                raise InputError(
                    f"constrained decoding: token {token_id} is not allowed here (the mask was not applied)"
                )
            self.rest = self.rest[len(data) :]
        self.gap += 1
        self.text += self.decoder.decode(data)
        self._found(False)
        self._force_if_due()
