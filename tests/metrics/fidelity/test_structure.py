"""The meaning a rewrite can change while keeping every word (issue 65): a speaker, who acts, what a number
counts, a list — each on a real-shaped sentence, and the honest forms that are not findings."""

from __future__ import annotations

import pytest

from authorguard.metrics.fidelity import FidelityMeter, FidelityThresholds
from authorguard.metrics.fidelity.structure import numbers_of

pytest.importorskip("spacy")

CHANGES = [
    (
        "Although the attorney said that she could have gotten an abortion earlier, I am still angry.",
        "Although the mother said that she could have gotten an abortion earlier, I am still angry.",
        "a speaker changed",
    ),
    (
        "The EFF cites a paper of the National Research Council.",
        "The National Research Council cites a paper of the EFF.",
        "a speaker changed",  # "cite" is a verb of saying
    ),
    (
        "Look to Iraq, where nearly 100,000 of our brave men and women have left with their heads held high.",
        "Look to Iraq, where our brave men and nearly 100,000 women have left with their heads held high.",
        "a number moved",
    ),
    (
        "They should retire with the care and the dignity that they have earned.",
        "They should retire with the dignified care that they have earned.",
        "a list merged",
    ),
]
LOSSES = [
    (
        "We bought apples and pears at the market on Sunday.",
        "We bought apples at the market on Sunday.",
        "a list item lost",  # the text says less: partial, not changed
    ),
]

HONEST = [
    # a paraphrase moves the words around and keeps who does what, what is counted and what is listed
    (
        "Pennsylvania's governor vetoed legislation to expand school choice to 50,000 children.",
        "The governor of Pennsylvania vetoed legislation that would have expanded school choice to 50,000 children.",
    ),
    ("If Congress does not act, they lose their insurance.", "Unless Congress acts, they lose their insurance."),
    ("We asked whether or not the plan works.", "We asked whether the plan works."),
    ("Lucy, Fred and Ethel change in the alley.", "Lucy, Fred, and Ethel change in the alley."),
    # a pronoun for its antecedent names the same speaker; "unusual" / "rare" is no negation
    ("John said it was late. John said it again.", "John said it was late. He said it again."),
    ("It was an unusual day.", "It was a rare day."),
]


@pytest.fixture(scope="module")
def meter():
    return FidelityMeter(n_process=1, meter="rules")


def test_each_change_is_found_and_named(meter):
    scores = meter.score([c[0] for c in CHANGES], [c[1] for c in CHANGES])
    for (_, _, finding), score in zip(CHANGES, scores):
        assert score.verdict == "changed" and finding in (score.reason or ""), score.reason


def test_a_lost_list_item_is_a_loss_not_a_change(meter):
    scores = meter.score([c[0] for c in LOSSES], [c[1] for c in LOSSES])
    for (_, _, finding), score in zip(LOSSES, scores):
        assert score.verdict == "partial" and finding in (score.reason or ""), score.reason


def test_honest_rewrites_are_not_findings(meter):
    scores = meter.score([h[0] for h in HONEST], [h[1] for h in HONEST])
    for pair, score in zip(HONEST, scores):
        assert score.verdict == "faithful", (pair, score.reason)


def test_number_words_that_rarely_count_are_not_numbers():
    class Token:  # the two attributes numbers_of reads
        def __init__(self, text: str) -> None:
            self.lower_ = text.lower()

    assert numbers_of(Token("one")) == [] and numbers_of(Token("first")) == []
    assert numbers_of(Token("twelve")) == ["12"] and numbers_of(Token("1,000")) == ["1000"]


def test_a_rewritten_sentence_close_in_meaning_settles_its_new_words():
    """A paraphrase's new words are settled by its sentence's MiniLM cosine to the input's; a sentence that keeps
    its words and swaps one ("her house" -> "her car") is not a paraphrase and is never settled."""
    pytest.importorskip("sentence_transformers")
    source = "Practitioners of Raja yoga believe that a calm mind can reach a state of bliss."
    paraphrase = "Those who practise Raja yoga hold that a mind at peace is able to attain blissful calm."
    swapped = ("She sold her house in Boston last year.", "She sold her car in Boston last year.")
    on, off = (
        FidelityMeter(n_process=1, meter="rules"),
        FidelityMeter(FidelityThresholds(paraphrase_similarity=2), n_process=1, meter="rules"),
    )
    settled, unsettled = on.score([source], [paraphrase])[0], off.score([source], [paraphrase])[0]
    assert settled.paraphrase_cosine is not None and settled.verdict == "faithful", settled.reason
    assert unsettled.verdict in ("changed", "unsure") and unsettled.paraphrase_cosine is None
    car = on.score([swapped[0]], [swapped[1]])[0]
    assert car.verdict != "faithful" and car.paraphrase_cosine is None, car
