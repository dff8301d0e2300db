"""The validity gate of a text written from a view: it reads the view and the output, never the original text.

A choice that read the original (a MiniLM cosine to it, its names, its length) would leak it into what is released
and break the bottleneck's bound; so every rule here compares the output with the *view* it was written from:

- the rules of :class:`~authorguard.text.validity.RewriteGate` that need no original: ``empty``, ``refusal``,
  ``instruction`` (echoed), ``meta`` (talk about a text), ``loop``, ``truncated``;
- ``copy``: the output is the view again (its words in order, nothing added: not text);
- ``coverage``: the output's own view (at the same level) misses more than ``1 - min_coverage`` of the view's
  distinct words (Porter stems) — a dropped word is lost content, a dropped ``not`` a flipped meaning;
- ``invented``: more than ``max_invented`` of the output view's distinct words are not in the view — new content.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.text.validity import _ngrams, _stem, form_problem, sequence_similarity, words
from authorguard.text.views import view_words
from authorguard.utils.validation import check_number


@dataclass(frozen=True)
class ViewGateConfig:
    """``min_coverage``: the least share of the view's words the output must say; ``max_invented``: the largest
    share of the output's view words that are not in the view; ``max_repetition``: the largest share of repeated
    word trigrams; ``max_copy``: the largest word-sequence similarity of output and view (above: an echo);
    ``max_instruction``: the largest share of the instruction's word bigrams the output may contain."""

    min_coverage: float = 0.8
    max_invented: float = 0.3
    max_repetition: float = 0.2
    max_copy: float = 0.9
    max_instruction: float = 0.5

    def __post_init__(self) -> None:
        for name in ("min_coverage", "max_invented", "max_repetition", "max_copy", "max_instruction"):
            check_number(getattr(self, name), name, "ViewGateConfig", low=0, high=1, closed="both")


def _stems(view: str) -> set[str]:
    return {_stem(w.lower()) for w in view_words(view)}


class ViewGate:
    """``gate.problem(view, output, truncated=False)`` -> a reason of :data:`~authorguard.text.validity.REASONS` or
    None. ``view_of(text)`` is the view function of the level the view was made at (the output is read at the same
    level); ``instruction``: the prompt's instruction (to recognise it echoed)."""

    def __init__(
        self, view_of: Callable[[str], str], config: ViewGateConfig = ViewGateConfig(), instruction: str | None = None
    ) -> None:
        self.view_of = view_of
        self.config = config
        self._instruction_bigrams = set(_ngrams(words(instruction), 2)) if instruction else set()

    def problem(self, view: str, output: str, truncated: bool = False) -> str | None:
        config = self.config
        # a view is not text: nothing in it excuses a refusal, meta talk or repetition (reference "")
        form = form_problem(
            output, "", self._instruction_bigrams, config.max_instruction, config.max_repetition, truncated
        )
        if form is not None:
            return form
        if sequence_similarity(" ".join(view_words(view)), output) > config.max_copy:
            return "copy"
        theirs, said = _stems(view), _stems(self.view_of(output))
        if theirs and len(theirs & said) < config.min_coverage * len(theirs):
            return "coverage"
        if said and len(said - theirs) > config.max_invented * len(said):
            return "invented"
        return None

    def problems(
        self, views: Sequence[str], outputs: Sequence[str], truncated: Sequence[bool] | None = None
    ) -> list[str | None]:
        if len(views) != len(outputs) or (truncated is not None and len(truncated) != len(outputs)):
            raise InputError(f"view gate: {len(views)} views, {len(outputs)} outputs")
        flags = truncated if truncated is not None else [False] * len(outputs)
        return [self.problem(v, o, bool(t)) for v, o, t in zip(views, outputs, flags)]
