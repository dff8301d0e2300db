"""The code's distribution stays light: no trained model inside ``src/authorguard`` and none declared as its package
data (the models ship as ``authorguard-models``, ``models/``; benchmarks/wheel_size.py builds both wheels)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the largest file the code's package may hold (its biggest today: generalise's word table, 0.2 MB)
MAX_FILE_BYTES = 512 * 1024
WEIGHT_SUFFIXES = {".safetensors", ".pt", ".bin", ".gguf", ".onnx", ".pkl"}


def test_no_file_of_the_package_is_a_model():
    files = [p for p in (ROOT / "src" / "authorguard").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    heavy = [str(p.relative_to(ROOT)) for p in files if p.stat().st_size > MAX_FILE_BYTES]
    weights = [str(p.relative_to(ROOT)) for p in files if p.suffix in WEIGHT_SUFFIXES]
    assert not heavy and not weights, f"model-sized files in the code's package: {heavy + weights}"
    assert sum(p.stat().st_size for p in files) < 3 * 2**20


def test_the_package_data_declares_no_model_folder():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    assert not any("packaged" in pattern for patterns in data.values() for pattern in patterns)


def test_the_models_distribution_holds_every_model_with_its_checksums():
    models = ROOT / "models" / "src" / "authorguard_models"
    assert {p.name for p in models.iterdir() if p.is_dir() and p.name != "__pycache__"} == {
        "a4nt",
        "author_encoder",
        "feature_judge",
        "realiser",
        "realiser_roles",
        "tarot",
    }
    assert (models / "checksums.json").is_file()
