"""The ``generalised`` verdict (issue 66): hand-made pairs — each kind of truthful generalisation is named, and
each near miss that says something false (another name, a sibling noun, a figure moved without a hedge, another
day, a negation) is not; the meter gives the verdict, and on ``generalise``'s outputs of real posts."""

from __future__ import annotations

import pytest

from authorguard.metrics.fidelity import VERDICTS, FidelityMeter
from authorguard.metrics.fidelity.generalised import generalisation_findings

GENERALISED = [
    ("We met Peter Munk in Toronto.", "We met someone in a city.", ["a name", "a name's kind"]),
    ("My sister Ching called.", "My sister called.", ["a name"]),
    ("I walked my poodle on 3 May.", "I walked my dog in May.", ["a broader word", "a date's day"]),
    ("It cost $5,370.15 in all.", "It cost about $5,400 in all.", ["a figure rounded"]),
    ("Barrick bought the Busang mine. Barrick grew.", "A company bought the mine. The company grew.", ["a name"]),
    ("A suave founder smiled charmingly.", "A founder smiled.", ["a modifier left out"]),
    ("She was lethargic and grumpy, he said.", "She was [word] and [word], he said.", ["a word withheld"]),
    ("We went to Busang with Cory.", "We went to [name] with [name].", ["a name"]),
]
NOT_GENERALISED = [
    ("We met Peter Munk.", "We met John Smith."),  # another name
    ("I walked my poodle.", "I walked my cat."),  # a sibling, not an ancestor
    ("It cost $5,370.15 in all.", "It cost $5,400 in all."),  # a figure moved without its hedge
    ("It cost $5,370.15 in all.", "It cost about $9,000 in all."),  # a hedge on another figure
    ("We met on 3 May.", "We met on 4 May."),
    ("We met Peter Munk.", "We did not meet someone."),
    ("He was a former minister.", "He was a minister."),  # "former": no kind of minister
    ("She allegedly stole it.", "She stole it."),  # how sure the text was
    ("She never complained.", "She [word] complained."),  # a negation withheld says the opposite may hold
    ("It cost 5,370 dollars.", "It cost [word] dollars."),  # a figure is never a word to withhold
    ("Fifteen hijackers came.", "[word] hijackers came."),  # nor a number word
]


@pytest.mark.parametrize("source, output, kinds", GENERALISED)
def test_each_generalisation_is_named(source, output, kinds):
    found = generalisation_findings(source, output)
    assert found, (source, output)
    for kind in kinds:
        assert any(f.startswith(kind) for f in found), found


@pytest.mark.parametrize("source, output", NOT_GENERALISED)
def test_a_near_miss_is_no_generalisation(source, output):
    assert not generalisation_findings(source, output)


def test_the_meter_says_generalised_only_for_a_generalisation():
    assert VERDICTS == ("faithful", "generalised", "partial", "unsure", "changed")
    meter = FidelityMeter(n_process=1, meter="rules")
    # generalised and near-miss pairs interleaved: the meter settles the first unparsed and parses the rest, and
    # each pair's verdict and reasons are what it gets scored alone
    pairs = [(s, o, True) for s, o, _ in GENERALISED] + [(s, o, False) for s, o in NOT_GENERALISED]
    pairs = [pair for both in zip(pairs[::2], pairs[1::2]) for pair in both] + pairs[len(pairs) // 2 * 2 :]
    together = meter.score([s for s, _, _ in pairs], [o for _, o, _ in pairs])
    for (source, output, generalised), score in zip(pairs, together):
        assert (score.verdict == "generalised") == generalised, (source, output, score.verdict)
        alone = meter.score([source], [output])[0]
        assert (alone.verdict, alone.reasons) == (score.verdict, score.reasons)


def test_generalise_outputs_of_real_posts_are_faithful_or_generalised():
    from authorguard import registry
    from authorguard.text.generalise import generalise_texts

    blogs = registry.datasets.get("blogs")()
    posts = [t for t in blogs.texts[:2000] if 30 <= len(t.split()) <= 200][:60]
    results = generalise_texts(posts, "rare-2000")
    changed = [r for r in results if r.changes]
    scores = FidelityMeter(n_process=1, meter="rules").score([r.source for r in changed], [r.text for r in changed])
    good = sum(s.verdict in ("faithful", "generalised") for s in scores)
    # the rules fire and the meter reads most outputs as generalisations; the rest it names (blind readers are
    # harsher still: docs/results/generalise.md)
    assert all(s.reasons for s in scores if s.verdict not in ("faithful", "generalised"))
    assert len(changed) >= 20 and good / len(changed) >= 0.5, [
        (s.verdict, s.reasons[:2]) for s in scores if s.verdict not in ("faithful", "generalised")
    ]
