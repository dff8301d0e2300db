"""The constraint the style bottleneck writes under, :class:`OrderedWords` (a
:class:`~authorguard.generation.constraints.TokenConstraint`): a text that says ``words`` in order and, between two of
them, at most ``max_free`` words of ``free_words`` — nothing else:

- a word is matched byte for byte as written, or with its first letter capitalised at a sentence start (the
  text's start, or after a sentence stop) — never case-blind (that would let "TUESDAY" through); free words
  likewise (as given, or capitalised at a sentence start). A required word may hold spaces (a quotation, copied
  whole: :mod:`authorguard.text.atoms`);
- between two words: one space, or — only with ``punctuation`` (a view whose words carry the text's own
  punctuation, such as ``roles``, turns it off) — a comma/semicolon/colon and a space after a required word, or a
  hyphen between two required words; a sentence stop (``.`` ``!`` ``?``; with ``questions`` given, "?" after a
  question and "." after any other sentence) only right after the last word of a view sentence (``breaks``) or the
  last word — and, without ``punctuation``, required there (the text's own sentence ends) — and never after a word
  that ends with one (``"… win."``, ``U.S.``), then a space or the end; no
  quotes, brackets or apostrophes outside the words themselves (a free ``n't`` would add a negation);
- no loops (:func:`~authorguard.text.views.constraints.free_word_allowed`,
:func:`~authorguard.text.views.constraints.word_after_gap_allowed`):
  never a free word twice in a gap or right after the same view word, never two determiners, no determiner before a
  possessive, pronoun or quantifier, no free word before a quotation — each checked with look-ahead, so that no
  state is left without a token;
- an optional word (:data:`~authorguard.text.atoms.OPTIONAL_MARK` before it in the view: the roles view's articles)
  is written as given or left out — the article slot: an article only where the text had one, the text's own;
- the end of the text (the end-of-turn token) only once every word is said;
- when a gap already holds ``max_free`` free words, only the next required word may start: the word is forced.

Why an automaton over *bytes* walked with the vocabulary's byte trie, rather than a list of each word's
tokenisations: a byte-level BPE can write a word in many ways (" Paris", "Par"+"is", " "+"1"+"997" — SmolLM2
has no " 1" token, so a number after a word needs the lone-space token), and the trie walk finds every token that
keeps the text inside the language, whichever way the model splits it. The allowed set depends only on the
automaton's state, so it is computed once per state and view (:class:`WordPlan` keeps it), and the walk tries only
the bytes some state can take: 0.09 ms a walk, 4.4 % of a constrained run (``benchmarks/constraint_cost.py``).

The constraint reads only what it is given (the view's words, the free words): the bottleneck's bound holds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from authorguard.exceptions import InputError
from authorguard.generation.constraints import TokenConstraint, TokenVocabulary
from authorguard.text.atoms import OPTIONAL_MARK, closed_gap, is_optional
from authorguard.text.atoms import ends_sentence as ends_with_stop
from authorguard.text.views.constraints import free_word_allowed, word_after_gap_allowed

# automaton modes (a state is (next word index, free words in this gap, mode, typed bytes, sentence start))
BEGIN, WORD, AFTER_WORD, PUNCT, SPACE, STOP, HYPHEN = range(7)
#: punctuation allowed after a required word (then a space)
INNER_PUNCTUATION = b",;:"
#: sentence stops, allowed only at a view's sentence marks and at the end
SENTENCE_STOPS = b".!?"
SPACE_BYTE, HYPHEN_BYTE = ord(" "), ord("-")
# a gap that holds as many free words as any plan allows: after a hyphen no free word may start
_NO_FREE = ("\x00",) * 64


def _forms(word: str, sentence_start: bool) -> list[bytes]:
    forms = [word]
    if sentence_start and word[:1].islower():
        forms.append(word[0].upper() + word[1:])
    return [f.encode("utf-8") for f in forms]


def _prefix_table(forms: Sequence[bytes]) -> dict:
    """Every prefix of the forms -> whether it is a whole form."""
    table: dict = {}
    for form in forms:
        for end in range(1, len(form) + 1):
            table[form[:end]] = table.get(form[:end], False) or end == len(form)
    return table


def _next_bytes(forms: Sequence[bytes]) -> dict:
    """Every prefix of the forms (the empty one included) -> the bytes that can follow it inside a form."""
    table: dict = {}
    for form in forms:
        for end in range(len(form)):
            table.setdefault(form[:end], set()).add(form[end])
    return table


#: the bytes that may follow a whole word: separators and stops
_AFTER_WORD_BYTES = frozenset({SPACE_BYTE, HYPHEN_BYTE, *INNER_PUNCTUATION, *SENTENCE_STOPS})


class WordPlan:
    """The automaton of one view (see the module docstring): ``words`` in order, a sentence stop allowed after
    word ``k`` (1-based count of words said) for each ``k`` in ``breaks`` and after the last word, at most
    ``max_free`` of ``free_words`` in each gap. A piece cut out of a longer sentence (``starts_sentence`` /
    ``ends_sentence`` False) allows no capital on its first word / no stop after its last. ``questions`` (word
    counts after which a question ends) fixes each stop: "?" there, "." at every other break. ``previous``: the
    view word before a piece that starts mid-sentence (the last word of the chunk before it), so the loop rules
    hold across a chunk's edge ("those | the principles"). A word written with
    :data:`~authorguard.text.atoms.OPTIONAL_MARK` before it may be left out (never a sentence's last word). Shared
    by every sequence written from the same view: it caches the allowed tokens of each state it has seen."""

    def __init__(
        self,
        words: Sequence[str],
        free_words,
        vocabulary: TokenVocabulary,
        *,
        breaks=(),
        max_free: int = 2,
        starts_sentence: bool = True,
        ends_sentence: bool = True,
        questions=None,
        punctuation: bool = True,
        previous: str = "",
    ) -> None:
        if any(not w or w != w.strip() or "\n" in w for w in words):
            raise InputError(
                "constrained decoding: every required word must be non-empty, without spaces at its ends or line breaks"
            )
        if max_free < 0:
            raise InputError("constrained decoding: max_free must be >= 0")
        self.words = tuple(w[len(OPTIONAL_MARK) :] if is_optional(w) else w for w in words)
        self.vocabulary = vocabulary
        # a piece of a longer sentence: no capital first word, no stop after its last word
        self.starts_sentence = bool(starts_sentence)
        self.previous = "" if starts_sentence else previous
        self.breaks = frozenset(int(b) for b in breaks) | ({len(self.words)} if ends_sentence else set())
        # the words that may be left out: an optional word that ends no sentence and is not the last
        self.optional = frozenset(
            k for k, w in enumerate(words) if is_optional(w) and k + 1 < len(self.words) and k + 1 not in self.breaks
        )
        self.free_words = frozenset(free_words)
        # which stop a break takes: any of SENTENCE_STOPS, or (``questions`` given) "?" after a question, "." after
        # any other sentence — a statement never becomes a question, nor gains an exclamation
        self.questions = None if questions is None else frozenset(int(q) for q in questions)
        self.max_free = int(max_free)
        # whether a comma, semicolon or colon may follow a required word, and a hyphen join two (False: the words
        # carry the text's own punctuation, the realiser adds none, and each of the text's sentence ends takes its
        # stop: "Figure 10 shows how. The objects…" never runs into one sentence)
        self.punctuation = bool(punctuation)
        # no stop after a word that already ends with one (a quotation "... win.", "U.S.")
        self._closed = frozenset(k + 1 for k, w in enumerate(self.words) if ends_with_stop(w))
        # ... except a question's "?" after a word whose own stop is a full stop ("Is it in the U.S.?")
        self._open_question = frozenset(
            k + 1 for k, w in enumerate(self.words) if ends_with_stop(w) and not w.rstrip("\"')]").endswith("?")
        )
        self._required = {
            (i, start): _prefix_table(_forms(w, start)) for i, w in enumerate(self.words) for start in (False, True)
        }
        self._required_next = {
            (i, start): _next_bytes(_forms(w, start)) for i, w in enumerate(self.words) for start in (False, True)
        }
        self._free_next = {
            start: _next_bytes([f for w in sorted(self.free_words) for f in _forms(w, start)])
            for start in (False, True)
        }
        self._free_tables: dict = {}
        self._allowed: dict = {}
        self._after: dict = {}

    def start(self) -> frozenset:
        return self._skipping(frozenset({(0, (), BEGIN, b"", self.starts_sentence)}))

    def _skipping(self, states: frozenset) -> frozenset:
        """``states`` and, for each that is about to start an optional word, the state past it (an article left
        out: the next word starts where it would have, a sentence's first word capitalised as before)."""
        if not self.optional or not any(s[0] in self.optional for s in states):
            return states
        out, stack = set(states), list(states)
        while stack:
            i, free, mode, typed, start = stack.pop()
            if mode in (BEGIN, SPACE) and not typed and i in self.optional:
                past = (i + 1, free, mode, typed, start)
                if past not in out:
                    out.add(past)
                    stack.append(past)
        return frozenset(out)

    # --- the byte automaton ---------------------------------------------------------------------------------
    def _word_end(self, state) -> list:
        """The states after the word being typed ends (none when it is not a whole required or free word)."""
        i, free, _, typed, start = state
        out = []
        written = tuple(f for f in free if f != _NO_FREE[0])  # after a hyphen: no free word was written
        if (
            i < len(self.words)
            and self._required[(i, start)].get(typed)
            and word_after_gap_allowed(self.words[i], written)
        ):
            out.append((i + 1, (), AFTER_WORD, b"", False))
        if i < len(self.words) and len(free) < self.max_free and self._free_table(free, start, i).get(typed):
            out.append((i, (*free, typed.decode("utf-8").lower()), AFTER_WORD, b"", False))
        return out

    def _free_table(self, gap: tuple, start: bool, i: int) -> dict:
        """The prefix table of the free words that may come next in a gap holding ``gap`` before required word
        ``i``: none twice (nor the view word just written), no second determiner, and none after which word ``i``
        could not follow (no dead end)."""
        # the view word just written, in this sentence ("in a a year"); a sentence break starts afresh
        if gap or i in self.breaks:
            previous = ""
        else:
            previous = self.words[i - 1] if i > 0 else self.previous
        key = (gap, start, self.words[i].lower(), previous.lower())
        table = self._free_tables.get(key)
        if table is None:
            closed = i > 0 and closed_gap(self.words[i - 1], self.words[i])  # "10 miles": nothing between
            words = [
                w
                for w in sorted(self.free_words)
                if not closed
                and free_word_allowed(w, gap, previous)
                and word_after_gap_allowed(self.words[i], (*gap, w.lower()))
            ]
            table = self._free_tables[key] = _prefix_table([f for w in words for f in _forms(w, start)])
        return table

    def _begin_word(self, state, byte: int) -> list:
        i, free, _, _, start = state
        return self._typing((i, free, WORD, b"", start), byte)

    def _typing(self, state, byte: int) -> list:
        i, free, _, typed, start = state
        grown = typed + bytes([byte])
        if i < len(self.words) and (
            grown in self._required[(i, start)]
            or len(free) < self.max_free
            and grown in self._free_table(free, start, i)
        ):
            return [(i, free, WORD, grown, start)]
        return []

    def _byte(self, state, byte: int) -> list:
        i, free, mode, typed, start = state
        if mode == WORD:
            out = self._typing(state, byte)
            if byte in INNER_PUNCTUATION or byte in SENTENCE_STOPS or byte in (SPACE_BYTE, HYPHEN_BYTE):
                for ended in self._word_end(state):
                    out.extend(self._byte(ended, byte))
            return out
        if mode in (BEGIN, SPACE):
            if mode == BEGIN and byte == SPACE_BYTE:
                return [(i, free, SPACE, b"", start)]
            return self._begin_word(state, byte)
        if mode == HYPHEN:  # joins two required words only ("well-known"): no free word may start here
            return self._typing((i, _NO_FREE[: self.max_free], WORD, b"", False), byte)
        if mode == AFTER_WORD:
            if byte == SPACE_BYTE and i < len(self.words):  # nothing may follow the last word but a stop
                if not self.punctuation and not free and i in self.breaks and i not in self._closed:
                    return []  # the text's own sentence end: its stop is required (no two sentences run together)
                # a sentence that ended with its own stop ("... win." | "U.S.") lets the next one start
                return [(i, free, SPACE, b"", not free and i in self._closed and i in self.breaks)]
            if not free and i > 0:
                if byte == HYPHEN_BYTE and i < len(self.words) and self.punctuation:
                    return [(i, free, HYPHEN, b"", False)]
                if byte in INNER_PUNCTUATION and i < len(self.words) and self.punctuation:
                    return [(i, free, PUNCT, b"", False)]
                if (
                    byte in SENTENCE_STOPS
                    and i in self.breaks
                    and (i not in self._closed or byte == ord("?") and i in self._open_question)
                    and self._stop_allowed(i, byte)
                ):
                    return [(i, free, STOP, b"", False)]
            return []
        if mode == PUNCT:
            return [(i, free, SPACE, b"", False)] if byte == SPACE_BYTE else []
        if mode == STOP:
            return [(i, free, SPACE, b"", True)] if byte == SPACE_BYTE and i < len(self.words) else []
        return []

    def _candidates(self, states: frozenset) -> set:
        """A superset of the bytes that :meth:`step` accepts from ``states``."""
        out: set = set()
        n = len(self.words)
        for i, _free, mode, typed, start in states:
            if mode in (BEGIN, SPACE, HYPHEN, WORD):
                if i < n:
                    out.update(self._required_next[(i, start)].get(typed, ()))
                    out.update(self._free_next[start].get(typed, ()))
                if mode == WORD:
                    out.update(_AFTER_WORD_BYTES)
                elif mode == BEGIN:
                    out.add(SPACE_BYTE)
            elif mode == AFTER_WORD:
                out.update(_AFTER_WORD_BYTES)
            else:  # PUNCT, STOP
                out.add(SPACE_BYTE)
        return out

    def _stop_allowed(self, i: int, byte: int) -> bool:
        if self.questions is None:
            return True
        return byte == (ord("?") if i in self.questions else ord("."))

    def step(self, states: frozenset, byte: int) -> frozenset:
        return self._skipping(frozenset(s for state in states for s in self._byte(state, byte)))

    def may_end(self, states: frozenset) -> bool:
        """Whether the text may end in ``states``: every word said (a view without words: before anything)."""
        n = len(self.words)
        for state in states:
            i, free, mode = state[:3]
            if mode == STOP and i == n or mode == AFTER_WORD and i == n and not free:
                return True
            if mode == WORD and any(s[0] == n and not s[1] for s in self._word_end(state)):
                return True
            if n == 0 and mode in (BEGIN, SPACE):
                return True
        return False

    # --- tokens ----------------------------------------------------------------------------------------------
    def allowed(self, states: frozenset):
        """The token ids that keep the text in the language from ``states``: a sorted int64 array (the end token
        among them when the text may end)."""
        cached = self._allowed.get(states)
        if cached is None:
            found = []
            stack = [(self.vocabulary.trie, states)]
            while stack:
                node, current = stack.pop()
                # only the bytes some state can take: a handful, not the node's up to 256 children
                for byte in self._candidates(current):
                    child = node.get(byte)
                    if child is None:
                        continue
                    after = self.step(current, byte)
                    if after:
                        if None in child:
                            found.append(child[None])
                        stack.append((child, after))
            if self.may_end(states):
                found.append(self.vocabulary.end_id)
            cached = self._allowed[states] = np.array(sorted(found), dtype=np.int64)
        return cached

    def after(self, states: frozenset, token_id: int) -> frozenset:
        """The states after ``token_id`` (empty when the token is not allowed; the end token ends the text)."""
        key = (states, token_id)
        cached = self._after.get(key)
        if cached is None:
            data = self.vocabulary.token_bytes[token_id] if 0 <= token_id < self.vocabulary.size else None
            cached = frozenset()
            if data is not None:
                cached = states
                for byte in data:
                    cached = self.step(cached, byte)
                    if not cached:
                        break
            self._after[key] = cached
        return cached

    def accepts(self, text: str) -> bool:
        """Whether ``text`` (as written, whole) is in the language: the check of a training target."""
        states = self.start()
        for byte in text.encode("utf-8"):
            states = self.step(states, byte)
            if not states:
                return False
        return self.may_end(states)


class OrderedWords(TokenConstraint):
    """One sequence written under a :class:`WordPlan`. After the end token every token is allowed (the engine
    stops the row anyway); a token the plan does not allow is an error (the engine masked it)."""

    def __init__(self, plan: WordPlan) -> None:
        self.plan = plan
        self.states = plan.start()
        self.ended = False

    def allowed(self):
        if self.ended:
            return np.empty(0, dtype=np.int64)
        return self.plan.allowed(self.states)

    def advance(self, token_id: int) -> None:
        if self.ended:
            return
        if token_id == self.plan.vocabulary.end_id:
            self.ended = True
            return
        after = self.plan.after(self.states, token_id)
        if not after:
            raise InputError(f"constrained decoding: token {token_id} is not allowed here (the mask was not applied)")
        self.states = after
