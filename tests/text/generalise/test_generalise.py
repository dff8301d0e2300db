"""Truthful generalisation (issue 66): each rule on real sentences — what it may change, what it never touches —
entity consistency within a record, and, over real blog posts, that every broader word is a WordNet ancestor of
the word it replaced and that no negation, quotation or bare number changes."""

from __future__ import annotations

import re

import pytest

from authorguard.exceptions import InputError
from authorguard.text.atoms import quotations
from authorguard.text.generalise import LEVELS, generalise_texts
from authorguard.text.generalise.kinds import broader_word, indefinite, place_kind, plural

MUNK = (
    "Peter Munk, the founder of Barrick Gold Corp., met my sister Ching in Toronto on 3 May. Barrick later "
    'bought the Busang mine for $5,370.15 million. Munk said "Barrick is great".'
)


def one(text: str, level: str = "names", **options) -> str:
    return generalise_texts([text], level, **options)[0].text


def test_names_become_what_they_are_and_the_same_one_keeps_its_form():
    out = one(MUNK)
    # a person: "someone", or the description the text gives ("my sister Ching" -> "my sister")
    assert out.startswith("Someone, the founder of a company, met my sister in a city")
    # the same organisation: "a company", then "the company"; the same person: "someone" again
    assert "The company later bought the mine" in out and "Someone said" in out
    # a name in a quotation is the speaker's: it stays
    assert '"Barrick is great"' in out
    # no figure changes unless asked, no date unless the level says so
    assert "$5,370.15 million" in out and "on 3 May" in out


def test_someone_only_for_a_confirmed_person_else_the_marker():
    # a first name, a title or an earlier confirmed mention make a person; a "person" nothing confirms is only
    # marked (the recogniser's label called places, pets and salons people on the second held-out set)
    out = one("Yesterday John Smith and Mr. Twiddle met Cory at the lake. Smith laughed.")
    assert out == "Yesterday someone and someone met [name] at the lake. Someone laughed."
    # a cry is no name, and neither is a run of ordinary words nothing confirms
    assert one("Heheh, that was fun.") == "Heheh, that was fun."
    # a title makes a person whatever the name's last word; "I" after a place is no part of its name
    assert one("Mr. Daily said hello.") == "Someone said hello."
    assert one("After Toronto I moved.") == "After a city I moved."
    # an organisation's word after a name: an organisation; a magazine named after a state is no state
    assert one("I read Texas Monthly in Texas.") == "I read a publication in a state."


def test_withheld_levels_mark_rare_words_and_never_a_negation_figure_or_quotation():
    # four rare content words in the first sentence: a third of them (one) withheld, the rarest first; the quotation,
    # the negation and the figure never
    text = 'She was lethargic and grumpy, but she never complained about the 17 syringes. He said "grumpy".'
    out = one(text, "withheld-2000")
    assert out == 'She was lethargic and grumpy, but she never complained about the 17 [word]. He said "grumpy".'
    long = "Lethargic, grumpy, sullen and morose, the sommelier decanted syrupy burgundy into goblets."
    withheld = one(long, "withheld-2000")
    assert withheld.count("[word]") + withheld.count("[words]") >= 2 and "decanted" in withheld  # its only verb
    # a run of withheld words is one marker (targets: withheld beyond the bound); the weaker level withholds less
    assert one("We ate spicy jambalaya.", "names", targets=["spicy", "jambalaya"]) == "We ate [words]."
    assert one(text, "withheld-5000").count("[word]") <= out.count("[word]")
    # a number word, an ordinal or a Roman numeral is a figure: never withheld
    assert one("Nineteen hijackers, the eighth in XXVI.", "withheld-2000").split()[0] == "Nineteen"
    assert "eighth" in one("Nineteen hijackers, the eighth in XXVI.", "withheld-2000")


def test_dates_and_figures_only_where_asked():
    dated = one(MUNK, "modifiers-1000", numbers=True)
    assert "in May" in dated and "on 3 May" not in dated
    assert "about $5,400 million" in dated
    # a bound keeps its number: "more than about 5,400" is not what "more than 5,370" says
    assert "more than 5,370 people" in one("We saw more than 5,370 people.", numbers=True)
    # a year is no figure to round
    assert "in 1997" in one("It opened in 1997.", numbers=True)


@pytest.mark.parametrize(
    "word, level, expected",
    [("poodle", 2000, "dog"), ("vet", 2000, "doctor"), ("volleyball", 2000, "game"), ("karaoke", 2000, "singing")],
)
def test_a_rare_noun_becomes_a_broader_word(word, level, expected):
    assert broader_word(word, level) == expected


@pytest.mark.parametrize("word", ["founder", "bass", "absence", "angel", "poll"])
def test_an_ambiguous_or_abstract_noun_stays(word):
    # "founder": a person or a horse's disease; "bass": a fish or a voice; abstract nouns' ancestors read as other
    # things ("absence" -> "want", "angel" -> "belief")
    assert broader_word(word, 2000) is None


def test_places_english_forms_and_levels():
    assert [place_kind(p) for p in ("Toronto", "Canada", "Texas")] == ["city", "country", "state"]
    assert [plural(w) for w in ("dog", "church", "city", "child")] == ["dogs", "churches", "cities", "children"]
    assert [indefinite(w) for w in ("dog", "agency", "hour", "university")] == ["a", "an", "an", "a"]
    assert list(LEVELS) == [
        "names",
        "rare-5000",
        "rare-2000",
        "modifiers-2000",
        "modifiers-1000",
        "modifiers-500",
        "withheld-5000",
        "withheld-2000",
    ]
    with pytest.raises(InputError, match="unknown level 'max'"):
        generalise_texts(["x"], "max")


def test_targets_are_generalised_whatever_their_commonness():
    # no broader common word: a target is withheld (the writer asked for it), never a negation
    assert one("I walked my dog.", "names", targets=["dog"]) == "I walked my [word]."
    assert one("I never walked.", "names", targets=["never"]) == "I never walked."
    assert one("I took my poodle to the vet.", "names", targets=["poodle"]) == "I took my dog to the vet."


@pytest.fixture(scope="module")
def posts():
    from authorguard import registry

    blogs = registry.datasets.get("blogs")()
    return [t for t in blogs.texts[:3000] if 30 <= len(t.split()) <= 250][:150]


_NEGATIONS = re.compile(r"\b(?:not|no|never|nothing|nobody|none|nor|neither|cannot)\b", re.IGNORECASE)
_DIGITS = re.compile(r"\d[\d,.]*")


def test_on_real_posts_every_change_is_broader_and_nothing_else_moves(posts):
    from authorguard.text.resources import wordnet

    wn = wordnet()
    results = generalise_texts(posts, "rare-2000")
    assert len(results) == len(posts)
    changed = 0
    for result in results:
        source, out = result.source, result.text
        # negations, quotations and bare numbers are never touched
        assert len(_NEGATIONS.findall(out)) >= len(_NEGATIONS.findall(source)), source[:200]
        assert quotations(source) == quotations(out)
        assert _DIGITS.findall(source) == _DIGITS.findall(out)
        for change in result.changes:
            assert source[change.start : change.end] == change.original
            changed += 1
            if change.kind == "word":
                # the replacement is a name of an ancestor of a sense of the word it replaced
                original = re.sub(r"^(?:a|an|the) ", "", change.original.lower())  # an article fixed with it
                word = wn.morphy(original.split()[-1], "n") or original
                said = re.sub(r"^(?:a|an|the) ", "", change.replacement.lower())
                broader = {said, wn.morphy(said, "n") or said, said.removesuffix("s"), said.removesuffix("es")}
                ancestors = {
                    lemma.lower()
                    for sense in wn.synsets(word, "n")
                    for path in sense.hypernym_paths()
                    for node in path
                    for lemma in node.lemma_names()
                }
                compound = "_".join(original.split())
                ancestors |= {
                    lemma.lower()
                    for sense in wn.synsets(compound, "n")
                    for path in sense.hypernym_paths()
                    for node in path
                    for lemma in node.lemma_names()
                }
                assert broader & ancestors, (change, source[:200])
    assert changed > 50  # the posts have names and rare words: the rules fire


def test_deterministic_and_empty_records_stay(posts):
    first = [r.text for r in generalise_texts(posts[:20] + [""], "rare-5000")]
    again = [r.text for r in generalise_texts(posts[:20] + [""], "rare-5000")]
    assert first == again and first[-1] == ""


def test_a_hyphenated_name_is_replaced_whole_and_an_html_entity_is_one_character():
    # news text not developed on: the recogniser's span stopped at the hyphen ("[name]-Cola", "[name]-shek's")
    assert one("Coca-Cola said on Monday it would buy the plant.") == "[name] said on Monday it would buy the plant."
    assert one("Chiang Kai-shek's army retreated.") == "[name]'s army retreated."
    assert one("Hewlett-Packard Co said profits rose.") == "A company said profits rose."
    # a hyphenated phrase with an ordinary word in it is no name, and is never cut in two ("someone-and-[name]")
    assert one("It was a David-and-Goliath battle.") == "It was a David-and-Goliath battle."
    # an entity is read as what it stands for and written back as it was: never "[name]amp;" or "&amp; T"
    assert one("Cheltenham &amp; Gloucester raised its rates.") == "[name] raised its rates."
    assert one("AT&amp;T shares rose.") == "AT&amp;T shares rose."
    generalised = generalise_texts(["Tom &amp; Jerry&#39;s show is on."], "names")[0]
    assert generalised.text == "Someone&#39;s show is on."
    assert [c.original for c in generalised.changes] == ["Tom &amp; Jerry"]  # offsets into the text as written


def test_decoded_entities_map_every_change_back_to_the_text_as_written():
    from authorguard.text.generalise.record import Change, DecodedEntities

    source = "A&amp;B &eacute;t&#x E &#8212; x &bogus; y"
    decoded = DecodedEntities(source)
    assert decoded.text == "A&B ét&#x E — x &bogus; y"
    found = decoded.text.index("—")
    (change,) = decoded.to_source([Change(found, found + 1, "—", "-", "word")])
    assert source[change.start : change.end] == "&#8212;" == change.original
    whole = decoded.to_source([Change(0, len(decoded.text), decoded.text, "", "word")])[0]
    assert (whole.start, whole.end) == (0, len(source))
