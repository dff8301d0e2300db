"""A float16 copy of the attributor's base encoder: what travels to a GPU machine that receives at most 64 MiB a
call and reaches no model hub (all-MiniLM-L6-v2 is 88.7 MB in float32, 44 MB in float16)."""

from __future__ import annotations

from pathlib import Path

from authorguard.neural.attributor.trainer import base_model_folder
from authorguard.utils.weights import require_torch


def save_half_precision(output: str | Path, base_model: str = "") -> Path:
    """Write the encoder of ``base_model`` ("" = the packaged all-MiniLM-L6-v2) with float16 weights and its
    tokenizer to ``output``; returns the folder. :class:`~authorguard.neural.attributor.trainer.FineTunedClassifier`
    loads it with ``base_model=str(output)`` and trains in float32."""
    torch = require_torch()
    from transformers import AutoModel, AutoTokenizer

    source = base_model_folder(base_model)
    output = Path(output)
    AutoModel.from_pretrained(source, dtype=torch.float16).save_pretrained(output)
    AutoTokenizer.from_pretrained(source).save_pretrained(output)
    return output
