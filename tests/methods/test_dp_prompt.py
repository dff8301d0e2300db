"""DP-Prompt on the packaged SFT policy (real SmolLM2-135M, a few tokens): documents in = documents out, the budget
fixed before any input, the privacy ledger of a batch release."""

from __future__ import annotations

import json

import pytest

from authorguard.exceptions import InputError

pytest.importorskip("transformers")

DOCUMENTS = [
    "I went to the market today and bought apples. Then it rained.",
    "",
    "A second text that says a little more about the weather, which was grey all day. It rained. " * 3,
]


def test_split_segments_gives_a_fixed_number_of_parts_in_order():
    from authorguard.neural.dp_prompt import split_segments

    count = lambda text: len(text.split())  # noqa: E731
    text = "One two three. Four five six seven. Eight. Nine ten eleven twelve thirteen."
    parts = split_segments(text, 3, count)
    assert len(parts) == 3 and " ".join(p for p in parts if p) == text
    assert split_segments("Just one.", 3, count) == ["", "Just one.", ""]  # a short text leaves parts empty
    assert split_segments("", 2, count) == ["", ""]


def test_every_document_gets_a_paraphrase_and_the_budget_does_not_depend_on_the_input():
    from authorguard.methods.dp_prompt import DPPrompt

    method = DPPrompt(
        clip_low=-2.0, clip_high=2.0, relative=False, temperature=1.0, max_tokens=6, segments=2, random_state=3
    ).fit()
    before = method.privacy_report()
    out = method.obfuscate(DOCUMENTS)
    assert len(out) == 3 and all(isinstance(t, str) for t in out)
    assert method.obfuscate(DOCUMENTS) == out  # seeded
    report = method.release_report()
    assert report["documents"] == 3 and report["segments"] == 6
    assert report["new_tokens"] <= 3 * 6  # at most max_tokens per document, blank ones included
    # the gate only counts (acting on its verdicts would break the bound): 3-token paraphrases stop mid-sentence
    assert sum(report["validity"].values()) <= 6 and report["records_flagged"] == len(report["flagged_records"])
    assert report["validity"].get("valid", 0) < sum(report["validity"].values())
    assert method.privacy_report() == before  # nothing about the input entered the budget
    assert report["document_epsilon"] == pytest.approx(6 * 2 * 4.0 / 1.0)
    assert DPPrompt(
        epsilon=48.0, max_tokens=6, clip_low=-4.0, clip_high=0.0
    ).privacy_report().temperature == pytest.approx(1.0)


def test_bad_settings_are_one_line_errors():
    from authorguard.methods.dp_prompt import DPPrompt

    with pytest.raises(InputError, match="not both"):
        DPPrompt(temperature=1.0, epsilon=10.0).fit()
    with pytest.raises(InputError, match="multiple of segments"):
        DPPrompt(temperature=1.0, max_tokens=10, segments=3).fit()
    with pytest.raises(InputError, match="low < high"):
        DPPrompt(temperature=1.0, clip_low=1.0, clip_high=0.0).fit()
    with pytest.raises(InputError, match="needs high <= 0"):  # relative logits are <= 0: a budget paid for nothing
        DPPrompt(temperature=1.0, clip_low=-1.0, clip_high=1.0).fit()
    with pytest.raises(InputError, match="unknown policy"):
        DPPrompt(temperature=1.0, policy="ppo").fit()


def test_a_batch_release_reports_and_composes_the_document_epsilon(tmp_path):
    from typer.testing import CliRunner

    from authorguard.cli.app import app

    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(DOCUMENTS)), encoding="utf-8"
    )
    config = tmp_path / "dp.toml"
    config.write_text("clip_low = -2.0\nclip_high = 0.0\ntemperature = 2.0\nmax_tokens = 4\n", encoding="utf-8")
    runner = CliRunner()
    arguments = [
        "anonymize",
        str(source),
        str(tmp_path / "out"),
        "--method",
        "dp-prompt",
        "--config",
        str(config),
        "--seed",
        "1",
        "--json",
    ]
    first = runner.invoke(app, arguments)
    assert first.exit_code == 0, first.output
    privacy = json.loads((tmp_path / "out" / "privacy.json").read_text(encoding="utf-8"))
    assert privacy["per_release"]["document_epsilon"] == pytest.approx(4 * 2 * 2.0 / 2.0)
    assert privacy["composed_document_epsilon"] == pytest.approx(8.0)
    again = runner.invoke(app, arguments + ["--force"])
    assert again.exit_code == 0, again.output
    privacy = json.loads((tmp_path / "out" / "privacy.json").read_text(encoding="utf-8"))
    assert privacy["releases_per_record"] == 2 and privacy["composed_document_epsilon"] == pytest.approx(16.0)


def test_dp_prompt_has_a_documented_default_epsilon():
    from authorguard.methods.dp_prompt import DEFAULT_EPSILON, DPPrompt

    assert DPPrompt().privacy_report().document_epsilon == pytest.approx(DEFAULT_EPSILON)
    assert DPPrompt(epsilon=3000.0).privacy_report().document_epsilon == pytest.approx(3000.0)
    with pytest.raises(InputError, match="temperature or epsilon, not both"):
        DPPrompt(epsilon=3000.0, temperature=1.0).privacy_report()
