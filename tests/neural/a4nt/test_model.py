"""A trained (tiny, real blog-age) model folder: the text method, the CLI and the paper's evaluation."""

from __future__ import annotations

import json

import pytest

from authorguard.exceptions import InputError

pytest.importorskip("torch")


def test_documents_in_equal_documents_out_in_order(blog_age_folder, documents):
    from authorguard.methods.a4nt import A4NT

    texts, labels = documents
    method = A4NT(model=str(blog_age_folder)).fit()
    out = method.obfuscate_labelled(texts + [""], labels + [labels[0]])
    assert len(out) == len(texts) + 1 and out[-1] == ""
    assert all(isinstance(t, str) and t for t in out[:-1])
    # one document alone gets the rewrite it gets in a batch (greedy decoding is deterministic)
    assert method.obfuscate_labelled(texts[2:3], labels[2:3]) == out[2:3]
    # without attributes the model's classifier picks each direction; still one output per input
    assert len(method.obfuscate(texts)) == len(texts)


def test_sampling_is_seeded_and_selection_orders_meteor(blog_age_folder, documents):
    from authorguard.methods.a4nt import A4NT
    from authorguard.metrics.content import meteor

    texts, labels = documents
    first = A4NT(model=str(blog_age_folder), samples=3, random_state=5).fit().obfuscate_labelled(texts, labels)
    again = A4NT(model=str(blog_age_folder), samples=3, random_state=5).fit().obfuscate_labelled(texts, labels)
    assert first == again
    best = (
        A4NT(model=str(blog_age_folder), samples=4, select="max-meteor", random_state=1)
        .fit()
        .obfuscate_labelled(texts, labels)
    )
    worst = (
        A4NT(model=str(blog_age_folder), samples=4, select="min-meteor", random_state=1)
        .fit()
        .obfuscate_labelled(texts, labels)
    )
    high = sum(meteor(t, o) for t, o in zip(texts, best))
    low = sum(meteor(t, o) for t, o in zip(texts, worst))
    assert high > low


def test_placeholders_in_rewrites_are_kept_dropped_or_copied(blog_age_folder, documents):
    import re

    from authorguard.methods.a4nt import A4NT
    from authorguard.neural.a4nt.text import tokenize

    texts, labels = documents
    kept = A4NT(model=str(blog_age_folder), placeholders="keep").fit().obfuscate_labelled(texts, labels)
    assert any("<unk>" in t for t in kept)  # the tiny model's 1,500-word vocabulary leaves many words unknown
    dropped = A4NT(model=str(blog_age_folder), placeholders="drop").fit().obfuscate_labelled(texts, labels)
    copied = A4NT(model=str(blog_age_folder)).fit().obfuscate_labelled(texts, labels)  # the default
    assert len(dropped) == len(copied) == len(texts)
    for out in (dropped, copied):
        # placeholders stay only where filling would have emptied the whole document (then it is the kept rewrite)
        assert all(t == k for t, k in zip(out, kept) if "<unk>" in t or "NUM" in re.findall(r"\w+", t))
        assert sum("<unk>" in t for t in out) < sum("<unk>" in t for t in kept)

    def letters(text: str) -> str:
        return re.sub(r"\s+", "", text)

    # the same rewrites with only their placeholders removed (spacing aside)
    assert [letters(t) for t in dropped] == [letters(re.sub(r"<unk>|\bNUM\b", "", k)) or letters(k) for k in kept]
    # filled from the input: every copied word stands in the input document
    for text, out, gone in zip(texts, copied, dropped):
        assert set(tokenize(out)) - set(tokenize(gone)) <= set(tokenize(text))
    filled = [(c, d) for c, d, k in zip(copied, dropped, kept) if d != k]  # neither kept whole
    assert filled and all(len(c.split()) >= len(d.split()) for c, d in filled)
    assert all(t.strip() for t, k in zip(copied + dropped, kept + kept) if k.strip())  # never emptied by the filling
    with pytest.raises(InputError, match="placeholders"):
        A4NT(model=str(blog_age_folder), placeholders="fill").fit()


def test_the_autoencoder_baseline_and_bad_models(blog_age_folder, documents, tmp_path):
    from authorguard.methods.a4nt import A4NT, A4NTAutoencoder

    texts, labels = documents
    assert len(A4NTAutoencoder(model=str(blog_age_folder)).fit().obfuscate_labelled(texts, labels)) == len(texts)
    with pytest.raises(InputError, match="unknown to the A4NT model"):
        A4NT(model=str(blog_age_folder)).fit().obfuscate_labelled(texts[:1], ["male"])
    with pytest.raises(InputError, match="not an A4NT model folder"):
        A4NT(model=str(tmp_path)).fit()
    with pytest.raises(InputError, match="no 'fbsem' generator"):
        A4NT(model=str(blog_age_folder), variant="fbsem").fit()
    with pytest.raises(InputError, match="needs a trained model folder"):
        A4NT().fit()


def test_cli_obfuscate_with_model_and_attribute_field(blog_age_folder, documents, tmp_path):
    from typer.testing import CliRunner

    from authorguard.cli.app import app

    texts, labels = documents
    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t, "age": a}) + "\n" for i, (t, a) in enumerate(zip(texts, labels))),
        encoding="utf-8",
    )
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "obfuscate",
            str(source),
            "-o",
            str(tmp_path / "out.jsonl"),
            "--method",
            "a4nt",
            "--model",
            str(blog_age_folder),
            "--attribute-field",
            "age",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [f"d{i}" for i in range(len(texts))]
    bad = runner.invoke(
        app,
        [
            "obfuscate",
            str(source),
            "-o",
            str(tmp_path / "x.jsonl"),
            "--method",
            "a4nt",
            "--model",
            str(tmp_path / "nowhere"),
        ],
    )
    assert bad.exit_code != 0 and "not an A4NT model folder" in bad.output
    wrong = runner.invoke(
        app,
        [
            "obfuscate",
            str(source),
            "-o",
            str(tmp_path / "x.jsonl"),
            "--method",
            "synonyms",
            "--model",
            str(blog_age_folder),
        ],
    )
    assert wrong.exit_code != 0 and "takes no trained model" in wrong.output


def test_cli_evaluate_reports_the_papers_measurements(blog_age_folder, tmp_path):
    from typer.testing import CliRunner

    from authorguard.cli.app import app

    result = CliRunner().invoke(
        app, ["a4nt", "evaluate", str(blog_age_folder), "--split", "validation", "-o", str(tmp_path / "eval.json")]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))
    assert set(figures["rows"]) == {"original", "autoencoder", "cycml-lang"}
    for row in figures["rows"].values():
        for level in ("sentence", "document"):
            assert 0 <= row["A"][level]["f1_macro"] <= 1
        assert {"cnn-8", "lstm-cnn-8"} <= set(row["classifiers"])
        assert row["holdout_document_f1_max"] >= row["holdout_document_f1_mean"]
    assert figures["rows"]["original"]["meteor"] == 1.0
    assert 0 <= figures["rows"]["cycml-lang"]["meteor"] <= 1
    assert figures["rows"]["cycml-lang"]["examples"]
    assert 0.3 < figures["chance"]["document"] < 0.6


def test_a_folder_refuses_a_config_that_changes_its_data(blog_age_folder):
    from authorguard.neural.a4nt.config import A4NTConfig
    from authorguard.neural.a4nt.folder import prepare_folder

    with pytest.raises(InputError, match="made with other"):
        prepare_folder(A4NTConfig(setting="blog-gender"), blog_age_folder)


def _obfuscate_with_the_cli(folder, texts, tmp_path, *options):
    """``authorguard obfuscate --method a4nt-neutral --model FOLDER [OPTIONS]`` on ``texts`` (ids d0, d1, ...): the
    result and the rows written."""
    from typer.testing import CliRunner

    from authorguard.cli.app import app

    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts)), encoding="utf-8"
    )
    result = CliRunner().invoke(
        app,
        [
            "obfuscate",
            str(source),
            "-o",
            str(tmp_path / "out.jsonl"),
            "--method",
            "a4nt-neutral",
            "--model",
            str(folder),
            *options,
        ],
    )
    assert result.exit_code == 0, result.output
    return result, [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_neutral_method_needs_no_attribute_and_keeps_every_record(neutral_folder, documents, tmp_path):
    from authorguard.methods.a4nt import A4NTNeutral

    texts, labels = documents
    assert (neutral_folder / "neutral-autoencoder.pt").is_file() and (
        neutral_folder / "neutral-cycml-lang" / "generator.pt"
    ).is_file()
    method = A4NTNeutral(model=str(neutral_folder)).fit()
    out = method.obfuscate(texts + [""])
    assert len(out) == len(texts) + 1 and out[-1] == ""
    # one generator for every class: the attribute, given or not, changes nothing
    assert method.obfuscate_labelled(texts, labels) == out[:-1]
    assert method.obfuscate_labelled(texts, [labels[0]] * len(texts)) == out[:-1]
    assert len(A4NTNeutral(model=str(neutral_folder), variant="neutral-autoencoder").fit().obfuscate(texts)) == len(
        texts
    )
    with pytest.raises(InputError, match="not a neutral one"):
        A4NTNeutral(model=str(neutral_folder), variant="cycml-lang").fit()
    result, rows = _obfuscate_with_the_cli(neutral_folder, texts, tmp_path, "--fallback", "keep")
    assert [r["id"] for r in rows] == [f"d{i}" for i in range(len(texts))] and [r["text"] for r in rows] == out[:-1]


def test_a_document_whose_rewrite_has_no_words_gets_the_counted_fallback(neutral_folder, documents, tmp_path):
    from authorguard.methods.a4nt import A4NTNeutral

    texts, _ = documents
    method = A4NTNeutral(model=str(neutral_folder)).fit()
    raw = method.model_.obfuscate(texts, None, 1, "random", None, placeholders="copy")
    empty = [i for i, r in enumerate(raw) if not r.strip()]
    assert empty  # the tiny generator ends some documents' every sentence at once: what this test is about
    out = method.obfuscate(texts + ["", "  "])
    report = method.release_report()
    assert all(t.strip() for t in out[: len(texts)]) and out[len(texts) :] == ["", ""]  # blank inputs stay blank
    assert [out[i] for i in empty] == [texts[i] for i in empty]  # kept as written ...
    assert [out[i] for i in range(len(texts)) if i not in empty] == [
        raw[i] for i in range(len(texts)) if i not in empty
    ]
    assert report["flagged_records"] == empty and report["records_flagged"] == len(empty)  # ... and counted
    assert (
        report["records_rewritten"] + report["records_flagged"] + report["records_blank"]
        == report["documents"]
        == len(texts) + 2
    )
    assert report["refused"] == {"empty": len(empty)} and report["fallback"] == "keep"
    withheld = A4NTNeutral(model=str(neutral_folder), fallback="withhold").fit()
    assert [i for i, t in enumerate(withheld.obfuscate(texts)) if t == ""] == empty
    assert withheld.release_report()["records_flagged"] == len(empty)
    # batch rewriting (anonymize) reads the count after obfuscate_records
    assert len(withheld.obfuscate_records(texts, [f"r{i}" for i in range(len(texts))], 0)) == len(texts)
    assert withheld.records_flagged_ == len(empty)
    with pytest.raises(InputError, match="fallback"):
        A4NTNeutral(model=str(neutral_folder), fallback="copy").fit()
    result, rows = _obfuscate_with_the_cli(neutral_folder, texts, tmp_path, "--fallback", "keep")
    assert f"{len(texts) - len(empty)} records rewritten, {len(empty)} flagged (kept as written)" in " ".join(
        result.output.split()
    )
    assert [
        i for i, r in enumerate(rows) if r["release_status"] == "kept" and "validity gate" in r["release_reason"]
    ] == empty
    # the command's default withholds what the method could not protect: no text, and the status says why
    result, rows = _obfuscate_with_the_cli(neutral_folder, texts, tmp_path)
    assert [i for i, r in enumerate(rows) if r["text"] is None] == empty
    assert all(rows[i]["release_status"] == "withheld" and rows[i]["release_reason"] for i in empty)
    assert f"{len(empty)} withheld" in " ".join(result.output.split())


def test_evaluate_scores_the_neutral_variants_with_their_adversary(neutral_folder, tmp_path):
    from authorguard.neural.a4nt.evaluation import evaluate_folder

    figures = evaluate_folder(neutral_folder, "validation")
    assert {"autoencoder", "neutral-autoencoder", "cycml-lang", "neutral-cycml-lang"} <= set(figures["rows"])
    row = figures["rows"]["neutral-cycml-lang"]
    assert 0 <= row["adversary"]["document"]["accuracy"] <= 1
    assert {e["to"] for e in row["examples"]} == {"neutral"}
