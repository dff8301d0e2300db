"""The one loader of authorguard's trained models: the installed distribution's checksums hold, and a missing
install, an unknown model, a damaged, missing or foreign file are each refused in one line before anything reads
them."""

from __future__ import annotations

import json
import shutil

import pytest

from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.utils import weights


@pytest.fixture
def models_copy(tmp_path, monkeypatch):
    """A copy of the installed models' small folders and their checksums, found in place of the installed ones."""
    root = weights.models_root()
    if root is None:
        pytest.skip("authorguard-models is not installed (authorguard setup --models)")
    copy = tmp_path / "authorguard_models"
    shutil.copytree(root / "feature_judge", copy / "feature_judge")
    shutil.copytree(root / "author_encoder", copy / "author_encoder")
    sums = json.loads((root / weights.MODELS_CHECKSUMS).read_text(encoding="utf-8"))
    (copy / weights.MODELS_CHECKSUMS).write_text(
        json.dumps({k: v for k, v in sums.items() if k.split("/")[0] in ("feature_judge", "author_encoder")}),
        encoding="utf-8",
    )
    monkeypatch.setattr(weights, "models_root", lambda: copy)
    monkeypatch.setattr(weights, "_CHECKED", {})
    return copy


def test_every_installed_model_file_matches_its_checksum():
    root = weights.models_root()
    if root is None:
        pytest.skip("authorguard-models is not installed (authorguard setup --models)")
    sums = json.loads((root / weights.MODELS_CHECKSUMS).read_text(encoding="utf-8"))
    assert sorted(sums) == weights.model_files(root)
    assert all(weights.file_sha256(root / name) == digest for name, digest in sums.items())


def test_a_checked_folder_is_returned(models_copy):
    assert weights.packaged_folder("feature_judge") == models_copy / "feature_judge"


def test_models_not_installed_is_one_line_with_the_fix(monkeypatch):
    monkeypatch.setattr(weights, "models_root", lambda: None)
    monkeypatch.setattr(weights, "_CHECKED", {})
    with pytest.raises(DataNotFoundError, match="authorguard setup --models") as error:
        weights.packaged_folder("tarot")
    assert "\n" not in str(error.value)


def test_an_unknown_model_names_the_ones_installed(models_copy):
    with pytest.raises(DataNotFoundError, match="no 'tarot'.*author_encoder, feature_judge"):
        weights.packaged_folder("tarot")


def test_a_damaged_file_is_refused_naming_it(models_copy):
    target = next((models_copy / "author_encoder").glob("*.safetensors"))
    target.write_bytes(target.read_bytes()[:-1] + b"\0")
    with pytest.raises(InputError, match=f"{target.name}: fails its checksum") as error:
        weights.packaged_folder("author_encoder")
    assert "\n" not in str(error.value)


def test_a_missing_file_is_refused_naming_it(models_copy):
    (models_copy / "author_encoder" / "encoder.json").unlink()
    with pytest.raises(DataNotFoundError, match="encoder.json: missing"):
        weights.packaged_folder("author_encoder")


def test_a_foreign_file_is_refused(models_copy):
    (models_copy / "feature_judge" / "extra.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match="extra.json: not a file of the installed models"):
        weights.packaged_folder("feature_judge")


def test_a_method_needing_the_models_says_so_before_it_loads(monkeypatch):
    from authorguard.utils.extras import MissingExtraError, require_method

    monkeypatch.setattr(weights, "models_root", lambda: None)
    with pytest.raises(MissingExtraError, match="method 'tarot' needs .*authorguard setup --models"):
        require_method("tarot")
