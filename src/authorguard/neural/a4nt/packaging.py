"""The A⁴NT model shipped in the package, and how a trained folder becomes one.

A packaged folder holds what rewriting needs and nothing else: the shared settings and class names of the
folder's ``config.json``, the vocabulary and sentence splitter, the named variants' generators (weights stored in
float16, half the bytes; loaded back into float32 networks) and, for a flip variant, the attribute classifier that
picks each document's direction when no attribute is given. ``provenance.json`` says where it came from (source
folder; each network's training config, loss weights and seconds) and the SHA-256 of every file.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.config import generator_file, is_neutral


def shipped_folder() -> Path:
    """The A4NT model authorguard ships (the models distribution's ``a4nt`` folder, checksum-checked)."""
    from authorguard.utils.weights import packaged_folder

    return packaged_folder("a4nt")


def packaged_variants(folder: Path | None = None) -> list[str]:
    """The variants a packaged folder (default: the shipped one) can rewrite with; empty when nothing is packaged."""
    folder = shipped_folder() if folder is None else folder
    if not (folder / "provenance.json").is_file():
        return []
    return list(json.loads((folder / "provenance.json").read_text(encoding="utf-8"))["variants"])


def resolve_model(model: str | Path | None, variant: str) -> Path:
    """The model folder to rewrite with: ``model`` when given, else the packaged one if it holds ``variant``."""
    if model:
        return Path(model)
    shipped = packaged_variants()
    if variant in shipped:
        return shipped_folder()
    what = f"the packaged model holds {', '.join(shipped)}" if shipped else "no A4NT model is packaged"
    raise InputError(
        f"A4NT variant {variant!r} needs a trained model folder ({what}): --model DIR on the command "
        "line, model=DIR in Python (train one with authorguard a4nt train)"
    )


def _half(source: Path, target: Path) -> dict:
    """Write ``source``'s network to ``target`` with float16 weights and without its training history (the record
    stays in the source); returns what ``source`` stores."""
    import torch

    stored = torch.load(source, map_location="cpu", weights_only=False)
    kept = {
        "spec": stored["spec"],
        "state": {k: v.half() if v.is_floating_point() else v for k, v in stored["state"].items()},
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    torch.save(kept, target)
    return stored


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def package_model(folder: str | Path, variants: list[str], output: str | Path, note: str = "") -> Path:
    """Copy what rewriting with ``variants`` of the trained ``folder`` needs into ``output`` (replaced if it is a
    packaged folder already); returns ``output``."""
    folder, output = Path(folder), Path(output)
    if not (folder / "config.json").is_file():
        raise InputError(f"{folder} is not an A4NT model folder (no config.json)")
    if not variants:
        raise InputError("package: name at least one variant")
    missing = [v for v in variants if not (folder / generator_file(v)).is_file()]
    if missing:
        raise InputError(f"A4NT model folder {folder} has no {missing[0]!r} generator")
    if output.exists():
        if any(output.iterdir()) and not (output / "provenance.json").is_file():
            raise InputError(f"{output} exists and is not a packaged A4NT folder; refusing to overwrite it")
        shutil.rmtree(output)
    output.mkdir(parents=True)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    # the folder's own config.json also records the config its data stage ran under, which need not be the one
    # the shipped variant was trained with: keep what rewriting reads; provenance has each stage's config
    (output / "config.json").write_text(
        json.dumps({"shared": config["shared"], "classes": config["classes"]}, indent=2), encoding="utf-8"
    )
    for name in ("vocabulary.json", "punkt.json"):
        shutil.copyfile(folder / name, output / name)
    files = [generator_file(v) for v in variants]
    if not all(is_neutral(v) for v in variants):
        files.append("classifier.pt")  # a flip variant's direction comes from it when no attribute is given
    stages = {}
    for name in files:
        stored = _half(folder / name, output / name)
        stages[name] = {
            key: stored[key] for key in ("seconds", "best_step", "stopped_early", "config", "weights") if key in stored
        }
    provenance = {
        "source": str(folder),
        "variants": list(variants),
        "note": note,
        "weights": "float16",
        "stages": stages,
        "sha256": {p.relative_to(output).as_posix(): _sha256(p) for p in sorted(output.rglob("*")) if p.is_file()},
    }
    (output / "provenance.json").write_text(json.dumps(provenance, indent=2, default=str) + "\n", encoding="utf-8")
    return output
