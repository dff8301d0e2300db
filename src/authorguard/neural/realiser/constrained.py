"""The realiser under a constraint: each chunk of a view is written with its words in order, its optional words (the
roles view's articles) kept or left out, and only the view's free words between them
(:class:`~authorguard.generation.ordered_words.OrderedWords`), and the gate keeps only what the
constraint does not guarantee.

Under the constraint every view word is said in order and nothing but free words, a few punctuation marks and
spaces come between them: the view gate's coverage, invention, copy, echo, refusal, meta-talk and loop rules cannot
fire or do not apply (a constrained output *is* the view's words, some of its articles left out). What the constraint
cannot guarantee is that the text reached the view's last word before the token limit: that output is refused as
``truncated`` and sampled again.
"""

from __future__ import annotations

from authorguard.generation.constraints import vocabulary_of
from authorguard.generation.ordered_words import OrderedWords, WordPlan
from authorguard.neural.realiser.data import view_plan_words
from authorguard.text.views.constraints import constraint_spec


class ViewPlans:
    """One :class:`WordPlan` per distinct chunk view of a call (plans cache their states' allowed tokens, so
    chunks repeated across rounds and candidates share the work)."""

    def __init__(self, view_name: str, tokenizer, edges: dict | None = None) -> None:
        self.spec = constraint_spec(view_name)
        self.vocabulary = vocabulary_of(tokenizer)
        self.edges = edges or {}
        self._plans: dict = {}

    def plan(self, view: str) -> WordPlan:
        """The plan of a chunk view; ``edges[view]`` = (starts a sentence, ends a sentence, the view word before a
        chunk that starts mid-sentence), default a whole sentence."""
        if view not in self._plans:
            words, breaks, questions = view_plan_words(view)
            starts, ends, previous = self.edges.get(view, (True, True, ""))
            self._plans[view] = WordPlan(
                words,
                self.spec.free_words,
                self.vocabulary,
                breaks=breaks,
                questions=questions,
                max_free=self.spec.max_free,
                punctuation=self.spec.punctuation,
                starts_sentence=starts,
                ends_sentence=ends,
                previous=previous,
            )
        return self._plans[view]

    def constraints(self, views) -> list:
        """A fresh constraint per view (they keep each sequence's state)."""
        return [OrderedWords(self.plan(v)) for v in views]


def roles_accepts(tokenizer):
    """``accepts(view, target)``: whether ``target`` is in the language the roles constraint allows for ``view``
    (the check of the roles realiser's training targets)."""
    plans = ViewPlans("roles", tokenizer)
    return lambda view, target: plans.plan(view).accepts(target)


class ConstrainedGate:
    """The gate of constrained outputs: ``truncated`` when the output does not say the whole view (the limit came
    first), else valid. Reads the view and the output only."""

    def __init__(self, plans: ViewPlans) -> None:
        self.plans = plans

    def problem(self, view: str, output: str, truncated: bool = False) -> str | None:
        return None if self.plans.plan(view).accepts(output) else "truncated"

    def problems(self, views, outputs, truncated=None) -> list:
        return [self.problem(v, o) for v, o in zip(views, outputs, strict=True)]
