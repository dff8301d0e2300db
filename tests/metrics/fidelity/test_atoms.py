"""What copy-based rewriting breaks (issue 65): each failure class on real sentences — its finding, and the meter's
``changed`` verdict naming it; honest forms of the same facts are not findings; a new word that may stand for a lost
one is ``unsure``, never ``faithful``."""

from __future__ import annotations

import pytest

from authorguard.metrics.fidelity import VERDICTS, FidelityMeter, verdict_counts
from authorguard.metrics.fidelity.atoms import (
    abbreviation_findings,
    atom_findings,
    bracket_findings,
    list_findings,
    loop_findings,
    quotation_findings,
    unit_findings,
)

# the news passages and what the bottleneck made of them
MUNK = (
    "Peter Munk, the suave but aggressive founder of heavyweight Barrick Gold Corp., backed by buckets of money, "
    "power, connections"
)
CASES = [
    ("Barrick bought a 25 percent stake.", "Barrick bought a 25 stake.", unit_findings, "unit detached from 25"),
    ("It sold A$43.14 million of gold.", "It sold 43.14 million of gold.", unit_findings, "unit detached from 43.14"),
    (
        "It may boost annual earnings by as much as $1 a share.",
        "It may boost annual earnings by as much as 1 share.",
        unit_findings,
        "unit detached from 1",
    ),
    (
        "Nearly 18 million people have gained coverage.",
        "Nearly 18 people have gained coverage.",
        unit_findings,
        "million",
    ),
    ("Prices fell in the 1970s.", "Prices fell in 1970.", unit_findings, "a decade read as a year: 1970s"),
    ("Exports to the U.S. rose.", "Exports to the U. rose.", abbreviation_findings, "abbreviation broken: U.S."),
    (
        '"Soon work will begin," Foreign Minister Saleh Kebzabo told Reuters.',
        "Soon, work will begin the Foreign Minister, Saleh Kebzabo, told Reuters, recently.",
        quotation_findings,
        "quotation unmarked",
    ),
    (
        '"Soon work will begin," Kebzabo told Reuters.',
        '"Work will begin shortly," Kebzabo told Reuters.',
        quotation_findings,
        "quotation altered",
    ),
    (
        "It decided to mothball plans to build a costly stretch of the 747 jumbo line.",
        "It decided to mothball plans to build a this costly, the this stretch of the this 747 jumbo line.",
        loop_findings,
        "a loop",
    ),
    ("We went to the shop.", "We went to the the shop.", loop_findings, "a loop"),
    # a quotation opened and never closed (the fourth held-out set: "Nope" re-spelt inside one)
    (
        "I said, \u201cNope. It\u2019s got to have a 3 at the front of it.",
        "I said, \u201cNo. It\u2019s got to have a 3 at the front of it.",
        quotation_findings,
        "quotation altered",
    ),
    (
        MUNK,
        "Peter Munk suave but aggressive founder of the heavyweight Barrick Gold Corp backed by buckets of money power "
        "connections",
        list_findings,
        "run together",
    ),
]


@pytest.mark.parametrize("source, output, finder, finding", CASES)
def test_each_failure_class_is_found_and_named(source, output, finder, finding):
    found = finder(source, output)
    assert found and finding in "; ".join(found), found


@pytest.mark.parametrize(
    "source, output",
    [
        ("Barrick bought a 25 percent stake.", "Barrick bought a 25% stake."),
        ("They paid $2,000 a year.", "They paid 2,000 dollars a year."),
        ("Exports to the U.S. rose.", "Exports to the US rose."),
        ('"Soon work will begin," Kebzabo told Reuters.', "\u201cSoon work will begin,\u201d Kebzabo told Reuters."),
        ("The band, the crowd and the city were happy.", "The band, the crowd, and the city were happy."),
        ("We had had enough.", "We had had enough."),  # the input's own repetition
        (MUNK, "Peter Munk, the suave but aggressive founder of Barrick Gold Corp., had money, power, connections"),
    ],
)
def test_honest_forms_are_not_findings(source, output):
    assert atom_findings(source, output) == []


@pytest.fixture(scope="module")
def meter():
    return FidelityMeter(n_process=1, meter="rules")


def test_the_meter_calls_each_class_changed_and_says_which(meter):
    sources, outputs = [c[0] for c in CASES], [c[1] for c in CASES]
    for (_, _, _, finding), score in zip(CASES, meter.score(sources, outputs)):
        assert score.verdict == "changed" and finding.split(":")[0] in score.reason, score.reason


def test_quotations_are_compared_through_the_normalisers_tables(meter):
    """normalise writes "I'm" out inside a quotation: the same words, not an altered quotation."""
    score = meter.score(['She said, "I\'m not hungry."'], ['She said, "I am not hungry."'])[0]
    assert score.verdict == "faithful", score.reason


def test_a_possible_substitution_is_unsure_never_faithful(meter):
    """A new word WordNet does not relate, standing where its sentence lost a similar one: the meter cannot settle
    it (word vectors rate a synonym and a co-hyponym alike)."""
    score = meter.score(
        ["The fierce storm hit the small community on the coast."],
        ["The heavy storm hit the small town on the coast."],
    )[0]
    assert score.verdict == "unsure" and "may stand for" in score.reason, score
    assert set(score.substituted_words) <= {"heavy", "town"} and score.substituted_words
    counts = verdict_counts([score])
    assert counts["unsure"] == 1 and counts["faithful"] == 0 and list(counts)[: len(VERDICTS)] == list(VERDICTS)


def test_an_invention_with_nothing_lost_stays_changed(meter):
    score = meter.score(["The storm hit the coast."], ["The storm hit the coast and killed three fishermen."])[0]
    assert score.verdict == "changed"


def test_an_aside_run_into_its_sentence_is_a_loss(meter):
    """The fourth held-out set's readers called every lost bracket partial: the words are there, what they were
    (a gloss, an aside, a citation) is lost. An aside standing alone as a sentence ("(Applause.)") is style."""
    source = 'Perrier introduced a new "muse" (model) and a new ad (Figure 5).'
    assert bracket_findings(source, 'Perrier introduced a new "muse" model and a new ad (Figure 5).') == [
        "brackets lost: (model)"
    ]
    assert bracket_findings(source, source) == []
    scores = meter.score(
        [source, "Thank you. (Applause.) Now we go."],
        ['Perrier introduced a new "muse" model and a new ad (Figure 5).', "Thank you. Applause. Now we go."],
    )
    assert scores[0].verdict == "partial" and "brackets lost" in scores[0].reason
    assert scores[1].verdict == "faithful", scores[1].reason
