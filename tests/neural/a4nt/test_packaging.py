"""Packaging a trained folder (float16 generators, provenance) and the model shipped with the package."""

from __future__ import annotations

import hashlib
import json

import pytest

from authorguard.exceptions import InputError

pytest.importorskip("torch")


def test_a_packaged_folder_rewrites_like_its_source(blog_age_folder, documents, tmp_path):
    import torch

    from authorguard.methods.a4nt import A4NT
    from authorguard.neural.a4nt.packaging import package_model

    texts, labels = documents
    out = package_model(blog_age_folder, ["cycml-lang"], tmp_path / "packaged", note="test")
    stored = torch.load(out / "cycml-lang" / "generator.pt", weights_only=False)
    assert set(stored) == {"spec", "state"} and all(
        v.dtype == torch.float16 for v in stored["state"].values() if v.is_floating_point()
    )
    assert (out / "classifier.pt").is_file()  # a flip variant picks the direction with it
    provenance = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["variants"] == ["cycml-lang"] and provenance["note"] == "test"
    for name, digest in provenance["sha256"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    source = A4NT(model=str(blog_age_folder)).fit()
    packaged = A4NT(model=str(out)).fit()
    # float16 weights round each logit by ~1e-3 relative: greedy choices agree but for near ties
    same = [a == b for a, b in zip(source.obfuscate(texts), packaged.obfuscate(texts))]
    assert sum(same) >= len(texts) - 1
    assert packaged.obfuscate_labelled(texts, labels) and len(packaged.obfuscate_labelled(texts, labels)) == len(texts)


def test_a_neutral_package_needs_no_classifier(neutral_folder, documents, tmp_path):
    from authorguard.methods.a4nt import A4NTNeutral
    from authorguard.neural.a4nt.packaging import package_model

    texts, _ = documents
    out = package_model(neutral_folder, ["neutral-cycml-lang"], tmp_path / "packaged")
    assert not (out / "classifier.pt").exists() and not (out / "holdouts").exists()
    assert len(A4NTNeutral(model=str(out)).fit().obfuscate(texts)) == len(texts)


def test_bad_packaging_requests_are_refused(blog_age_folder, tmp_path):
    from authorguard.neural.a4nt.packaging import package_model

    with pytest.raises(InputError, match="no 'fbsem' generator"):
        package_model(blog_age_folder, ["fbsem"], tmp_path / "p")
    with pytest.raises(InputError, match="not an A4NT model folder"):
        package_model(tmp_path, ["cycml-lang"], tmp_path / "p")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep", encoding="utf-8")
    with pytest.raises(InputError, match="refusing to overwrite"):
        package_model(blog_age_folder, ["cycml-lang"], tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep"


def test_without_a_model_folder_only_packaged_variants_load(monkeypatch, blog_age_folder, tmp_path):
    from authorguard.neural.a4nt import packaging

    monkeypatch.setattr(packaging, "shipped_folder", lambda: tmp_path / "nothing")
    with pytest.raises(InputError, match="no A4NT model is packaged"):
        packaging.resolve_model(None, "cycml-lang")
    shipped = packaging.package_model(blog_age_folder, ["cycml-lang"], tmp_path / "shipped")
    monkeypatch.setattr(packaging, "shipped_folder", lambda: shipped)
    assert packaging.resolve_model(None, "cycml-lang") == shipped
    assert packaging.resolve_model(str(blog_age_folder), "fbsem") == blog_age_folder
    with pytest.raises(InputError, match="packaged model holds cycml-lang"):
        packaging.resolve_model(None, "neutral-cycml-lang")


def test_the_shipped_neutral_model_rewrites_after_install(documents, tmp_path):
    from typer.testing import CliRunner

    from authorguard.cli.app import app
    from authorguard.methods.a4nt import A4NT
    from authorguard.neural.a4nt.packaging import packaged_variants, shipped_folder

    assert packaged_variants() == ["neutral-cycml-lang"]
    PACKAGED = shipped_folder()
    provenance = json.loads((PACKAGED / "provenance.json").read_text(encoding="utf-8"))
    for name, digest in provenance["sha256"].items():  # the committed files are the ones packaged
        assert hashlib.sha256((PACKAGED / name).read_bytes()).hexdigest() == digest
    texts, _ = documents
    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(json.dumps({"id": f"r{i}", "text": t}) + "\n" for i, t in enumerate(texts)), encoding="utf-8"
    )
    result = CliRunner().invoke(
        app, ["obfuscate", str(source), "-o", str(tmp_path / "out.jsonl"), "--method", "a4nt-neutral"]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [f"r{i}" for i in range(len(texts))]
    assert all(r["text"] and r["text"] != t for r, t in zip(rows, texts))
    with pytest.raises(InputError, match="packaged model holds neutral-cycml-lang"):
        A4NT().fit()  # the paper's flip variant is not shipped
