"""The style bottleneck as a text method: the guarantee (outputs depend on the view only), its fallback, its report."""

from __future__ import annotations

import pytest

from authorguard import registry
from authorguard.exceptions import InputError

pytest.importorskip("torch")
pytest.importorskip("trl")

# one text and a restyling of it that keeps its view: casing, punctuation, contractions changed (the roles view
# carries the text's own articles)
SAME_VIEW = [
    (
        "I really didn't enjoy the concert in Berlin!! the band was LOUD!!! 3 hours of noise.",
        "i really did not enjoy the concert in Berlin. The band was loud. 3 hours of noise",
    ),
    (
        "Honestly, we'll never buy that car again!!! it broke down twice!",
        "Honestly, we will never buy that car again. It broke down twice.",
    ),
]


@pytest.fixture
def tiny_bottleneck(tiny_realiser, tiny_factory, monkeypatch):
    """Bottleneck methods written by the language model (realiser="model", also at level roles) whose realiser is
    the tiny one (the real SmolLM2 is not loaded)."""
    from authorguard.methods import bottleneck
    from authorguard.neural.realiser.model import Realiser

    folder, _ = tiny_realiser
    realiser = Realiser(folder, base_factory=tiny_factory)
    monkeypatch.setattr(bottleneck, "_load", lambda model, engine: realiser)
    return lambda **params: bottleneck.Bottleneck(**{"realiser": "model", **params})


@pytest.mark.parametrize("level", ["roles", "content", "lemma", "canonical", "syntf"])
def test_same_view_same_output_at_every_level(tiny_bottleneck, level):
    # the guarantee holds for every chunk the realiser writes; a chunk given the normalise fallback is the text's own
    # (counted, status "normalised"): here the fallback is the view, so every output is the view's
    params = {"level": level, "retries": 0, "fallback": "view"}
    if level == "syntf":
        params["n_words"] = 12
    for a, b in SAME_VIEW:
        assert (
            tiny_bottleneck(**params).fit().views([a]) == tiny_bottleneck(**params).fit().views([b]) or level == "syntf"
        )
        first = tiny_bottleneck(random_state=3, **params).fit().obfuscate([a])
        second = tiny_bottleneck(random_state=3, **params).fit().obfuscate([b])
        assert first == second, level
        assert first[0] not in (a, b)


@pytest.mark.parametrize("level", ["roles", "content"])
@pytest.mark.parametrize("fallback", ["view", "withhold"])
def test_records_in_records_out_and_the_input_never_comes_back(tiny_bottleneck, fallback, level):
    texts = [
        "we met ANNA in Paris on 3 May!!! the weather was lovely",
        "",
        "The... a? An!",
        "Prices went up again this month... We should buy less coffee!!",
    ]
    method = tiny_bottleneck(random_state=0, fallback=fallback, retries=1, level=level).fit()
    out = method.obfuscate(texts)
    assert len(out) == len(texts)
    assert all(o != t for o, t in zip(out, texts) if t)
    report = method.release_report()
    assert report["records_no_content"] == [2]  # only function words: a counted refusal
    statuses = method.record_statuses(texts, out)
    assert statuses[2]["status"] == "withheld" and "no content words" in statuses[2]["reason"]
    for index in report["flagged_records"]:
        expected = "withheld" if fallback == "withhold" else "view"
        assert statuses[index]["status"] == expected
        assert "kept as written" not in (statuses[index]["reason"] or "")


def test_a_chunk_the_constraint_cannot_write_is_released_as_normalise_wrote_it(tiny_bottleneck, monkeypatch):
    """The roles level's default fallback: a chunk with no valid realisation is ``normalise``'s text of that chunk
    (faithful), never the view's bare words; the record's status says so."""
    from authorguard.neural.realiser import constrained
    from authorguard.text.normalise import normalise

    # every realisation refused: every chunk falls back
    monkeypatch.setattr(constrained.ConstrainedGate, "problem", lambda self, view, output, truncated=False: "truncated")
    texts = [
        'Barrick said "work will begin soon," and its shares rose 25 percent to A$43.14 in the 1970s.',
        "I didn't like the movie, honestly!! It's WAY too long :) Anna's dog, Rex, barked at the U.S. mailman.",
    ]
    method = tiny_bottleneck(random_state=0, retries=0).fit()
    out = method.obfuscate(texts)
    assert method.fallback_ == "normalise"
    for text, output in zip(texts, out):
        assert " ".join(output.split()) == " ".join(normalise(text).split())
    statuses = method.record_statuses(texts, out)
    assert [s["status"] for s in statuses] == ["normalised", "normalised"]
    assert "fallback normalise" in statuses[0]["reason"]


def test_syntf_level_reports_its_epsilon(tiny_bottleneck):
    method = tiny_bottleneck(level="syntf", n_words=12, random_state=0, retries=0).fit()
    method.obfuscate(["Our team won the final game last night. Everyone was so happy."])
    report = method.release_report()
    assert report["epsilon_per_word"] == method.epsilon and report["words_per_bag"] == 12
    assert 0 < report["epsilon_per_document"] <= method.epsilon * 12


def test_the_roles_level_writes_its_view_under_the_constraint(tiny_bottleneck):
    """Even a random tiny realiser writes, at the roles level, exactly the view's words in order, each article the
    text's own or left out (the article slot) — or the chunk falls back, counted."""
    from authorguard.neural.realiser.data import view_plan_words
    from authorguard.text.atoms import is_optional
    from authorguard.text.views.roles import roles_view

    texts = [
        "I didn't like the movie, honestly!! It's WAY too long.",
        "Anna's dog has been sick; he's been to the vet.",
    ]
    method = tiny_bottleneck(random_state=0, retries=2, batch_size=4).fit()
    out = method.obfuscate(texts)
    report = method.release_report()
    for text, output in zip(texts, out):
        words, _, _ = view_plan_words(roles_view(text))
        required = [w.lower().strip(",;:.!?") for w in words if not is_optional(w)]
        articles = {w[1:] for w in words if is_optional(w)}
        said = [w.strip(",;:.!?").lower() for w in output.split()]
        assert [w for w in said if w not in articles] == required, (output, words)
        assert all(w in articles for w in said if w in ("a", "an", "the")), (output, words)
    assert report["level"] == "roles" and "coverage" not in report.get("refused", {})


def test_bad_parameters_are_one_line(tiny_bottleneck):
    with pytest.raises(InputError, match="cannot be written under a constraint"):
        tiny_bottleneck(level="lemma", constrained=True).fit()
    with pytest.raises(InputError, match="constrained"):
        tiny_bottleneck(constrained="yes").fit()
    with pytest.raises(InputError, match="level"):
        tiny_bottleneck(level="style").fit()
    with pytest.raises(InputError, match="fallback"):
        tiny_bottleneck(fallback="keep").fit()
    with pytest.raises(InputError, match="normalise fallback needs the roles level"):
        tiny_bottleneck(level="content", fallback="normalise").fit()
    with pytest.raises(InputError, match="not valid UTF-8"):
        tiny_bottleneck().fit().obfuscate([b"\xff\xfe"])


def test_view_methods_release_the_view():
    assert registry.methods.get("view:roles")().fit().obfuscate(
        ["I didn't like the movie, honestly. It's way too long!"]
    ) == ["I did not like the movie, honestly. it is way too long."]
    out = (
        registry.methods.get("view:content")()
        .fit()
        .obfuscate(["I didn't like the movie, honestly. It was way too long!"])
    )
    assert out == ["not like movie honestly. way long."]
    assert registry.methods.get("view:canonical")().fit().obfuscate(["The kids watched movies."]) == [
        "child watch film."
    ]


def test_the_packaged_realiser_loads_and_keeps_the_guarantee():
    """After install (and ``authorguard setup --models``), ``bottleneck`` with no model uses the shipped adapter; two
    restylings of one text give one output."""
    from authorguard.utils.weights import find_smollm2

    if find_smollm2() is None:
        pytest.skip("SmolLM2's weights are not set up (authorguard setup --models)")
    from authorguard.utils.weights import packaged_folder

    assert (packaged_folder("realiser") / "adapter" / "adapter_model.safetensors").stat().st_size < 10_000_000
    a, b = SAME_VIEW[0]
    method = registry.methods.get("bottleneck")(random_state=0, batch_size=4).fit()
    first, second = method.obfuscate([a]), method.obfuscate([b])
    assert first == second and first[0] not in ("", a, b)


def test_the_rule_realiser_writes_the_roles_view_without_its_articles(monkeypatch):
    """No model, no sampling: every view word in order, the optional articles left out (a bound one such as "a
    lot" kept), each sentence capitalised, a quoted question not asked twice, a question after a quoted statement
    still a question."""
    from authorguard.utils import weights

    monkeypatch.setattr(weights, "models_root", lambda: None)  # the rule needs no trained model
    method = registry.methods.get("bottleneck")(realiser="rule").fit()
    out = method.obfuscate(
        [
            'The committee met on Tuesday. A lot of people said, “What are they doing?” Did he say "go."? '
            "i'll bake a pie for the neighbours."
        ]
    )
    assert out == [
        'Committee met on Tuesday. A lot of people said, "What are they doing?" Did he say "go."? '
        "I will bake pie for neighbors."
    ]
    assert method.release_report()["realiser"] == "rule"
    assert method.obfuscate([":) :)"]) == [""]  # no words: nothing to write, withheld
    assert method.record_statuses([":) :)"], [""])[0]["status"] == "withheld"


def test_the_rule_realiser_is_for_the_roles_level_only():
    with pytest.raises(InputError, match="rule realiser writes the roles view only"):
        registry.methods.get("bottleneck")(realiser="rule", level="content").fit()
    with pytest.raises(InputError, match="realiser"):
        registry.methods.get("bottleneck")(realiser="poem").fit()
