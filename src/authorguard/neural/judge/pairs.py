"""Training pairs for the consistency judge, made by rule from the development corpora (FactCC's recipe,
Kryściński et al. 2020): each rule turns a real sentence into a rewrite whose relation to it is known by
construction — ``faithful`` (says the same), ``generalised`` (true but less specific) or ``changed`` (says something
the sentence does not) — and names its class.

Faithful rules: the normaliser's output, contractions and spelling variants, a leading or trailing clause moved,
an abbreviation expanded or made, a nationality by its country, an adjective or adverb by a WordNet synonym of its
only sense; several are applied together so that a faithful rewrite changes many words. Generalised: a name by
what it is and a figure rounded with a hedge (``generalise``), a rare noun by its hypernym. Changed, one class
each: a negation added or removed, a hedge reversed, an antonym, a number changed, two numbers swapped, a unit or
scale dropped, a time shifted, agent and patient swapped, a speaker changed, a quotation's words changed, a name by
another of its kind or by a wrong kind, a noun by a co-hyponym, a clause dropped, a claim added — each also on top
of a faithful rewrite, so that an edit alone does not tell.

Every rule is a function ``(sentence, doc, context) -> str | None`` (None: it does not apply); :data:`RULES` maps
its name to (class, function).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from authorguard.neural.judge.changes import CHANGED_RULES
from authorguard.neural.judge.edits import PairContext, Rule
from authorguard.neural.judge.faithful import FAITHFUL_RULES, GENERALISED_RULES

FAITHFUL, GENERALISED, CHANGED = "faithful", "generalised", "changed"
CLASSES = (FAITHFUL, GENERALISED, CHANGED)

RULES: dict[str, tuple[str, Rule]] = (
    {name: (FAITHFUL, rule) for name, rule in FAITHFUL_RULES.items()}
    | {name: (GENERALISED, rule) for name, rule in GENERALISED_RULES.items()}
    | {name: (CHANGED, rule) for name, rule in CHANGED_RULES.items()}
)

#: rules that need only the text (applied on top of another rule's output, which has no parse)
TEXT_ONLY = ("contractions", "spelling", "abbreviation", "clause_moved", "connectives")
#: the share of each class among the sentences drawn (faithful rules fit fewer sentences: about 40 % of the pairs
#: made are faithful, 10 % generalised, 50 % changed)
CLASS_SHARES = {FAITHFUL: 0.55, GENERALISED: 0.15, CHANGED: 0.30}


@dataclass(frozen=True)
class Pair:
    """A rule-made pair: the real ``source`` sentence, its ``rewrite``, the class the rules give it and their names."""

    source: str
    rewrite: str
    label: str
    rules: tuple[str, ...]


def _dressed(text: str, context: PairContext, applied: list[str], most: int) -> str:
    """Up to ``most`` text-only faithful rules applied in turn (those that apply; none already ``applied``, which
    could undo it)."""
    names = [name for name in TEXT_ONLY if name not in applied]
    context.rng.shuffle(names)
    for name in names[:most]:
        out = FAITHFUL_RULES[name](text, None, context)
        if out and out != text:
            text = out
            applied.append(name)
    return text


def pair_for(text: str, doc, label: str, context: PairContext) -> Pair | None:
    """One pair of class ``label`` from sentence ``text`` (parsed as ``doc``), or None when no rule of it applies:
    faithful — up to two rules that read the parse (the text parsed again between them), then up to two text-only
    ones; generalised or changed — one rule of that class, half of the time dressed in text-only faithful rules."""
    table = {FAITHFUL: FAITHFUL_RULES, GENERALISED: GENERALISED_RULES, CHANGED: CHANGED_RULES}[label]
    names = list(table)
    context.rng.shuffle(names)
    out, applied = text, []
    for name in names:
        if label == FAITHFUL and name in TEXT_ONLY:
            continue  # dressing, below
        found = table[name](out, doc if out == text else _parse(out), context)
        if found and found != out and found.strip():
            out = found
            applied.append(name)
            if label != FAITHFUL or len(applied) == 2:
                break
    if not applied and label != FAITHFUL:
        return None
    if label == FAITHFUL or context.rng.random() < 0.5:
        out = _dressed(out, context, applied, 2)
    if text[:1].isupper() and out[:1].islower():
        out = out[:1].upper() + out[1:]
    return Pair(text, out, label, tuple(applied)) if applied and out != text else None


def _parse(text: str):
    from authorguard.metrics.fidelity.reading import parser

    return parser()(text)


def make_pairs(sentences: list[str], docs: list, context: PairContext) -> list[Pair]:
    """One pair per sentence where a rule of its drawn class fits (the class drawn by :data:`CLASS_SHARES`):
    (source, rewrite, label, rules), in the sentences' order."""
    labels = list(CLASS_SHARES)
    shares = np.asarray([CLASS_SHARES[label] for label in labels])
    out = []
    for text, doc in zip(sentences, docs):
        label = labels[int(context.rng.choice(len(labels), p=shares))]
        pair = pair_for(text, doc, label, context)
        if pair is not None:  # a sentence no rule of its class fits gives none: the classes keep their shares
            out.append(pair)
    return out
