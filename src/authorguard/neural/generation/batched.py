"""The fast engine: a batched key-value-cache decoding loop of our own over the transformers model, in bfloat16
where the processor computes it natively.

Why not CTranslate2 or llama.cpp (measured in docs/neural.md#generation-engines): on this project's CPUs (Intel
Xeon with AVX-512 BF16 and AMX) oneDNN's bfloat16 matrix kernels beat CTranslate2's int8 and llama.cpp's Q4_1
kernels, and most of the reference path's time is not the matrix work but the loop around it. This loop
(1) runs the model in bfloat16 when ``torch`` reports native bfloat16 support (float32 otherwise; CUDA: bfloat16);
(2) prefills each batch once, keeping only the last position's logits; (3) samples through the shared
:mod:`~authorguard.neural.generation.samplers` (top-p among a shortlist instead of sorting the vocabulary);
(4) drops finished rows from the batch and the cache as soon as a quarter of the batch has finished, so the
compute follows the live sequences instead of the longest one.

Prompts are batched in order of length; the random stream is one generator per call (``seed``), so the same
prompts, sampler, seed and batch size give the same texts on the same machine and precision.
"""

from __future__ import annotations

from authorguard.exceptions import InputError
from authorguard.neural.generation.base import GenerationEngine, merged_copy, register_engine, torch_generator
from authorguard.neural.resources import require_torch

DTYPES = ("auto", "float32", "bfloat16")


def native_bfloat16(device: str) -> bool:
    """Whether bfloat16 matrix products run natively on ``device`` (CUDA, or a CPU with AVX-512 BF16 / AMX)."""
    torch = require_torch()
    if device.startswith("cuda"):
        return True
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


@register_engine
class BatchedDecoder(GenerationEngine):
    """``dtype``: "auto" (bfloat16 where native, else float32), "float32" or "bfloat16"; ``device``: "auto"
    (CUDA when available), "cpu" or "cuda[:n]". The policy's weights are copied once in that precision."""

    name = "batched"

    def __init__(self, model, tokenizer, dtype: str = "auto", device: str = "auto") -> None:
        torch = require_torch()
        if dtype not in DTYPES:
            raise InputError(f"batched engine: unknown dtype {dtype!r} ({', '.join(DTYPES)})")
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        if dtype == "auto":
            dtype = "bfloat16" if native_bfloat16(device) else "float32"
        import copy

        source = merged_copy(model)
        if source is model:  # never change the caller's model: it may be trained or scored in float32
            source = copy.deepcopy(model)
        self.dtype, self.device = dtype, device
        import inspect

        # transformers 5 renamed ``past_key_values`` to ``cache`` (the old name warns, then goes away)
        self.cache_argument = "cache" if "cache" in inspect.signature(source.forward).parameters else "past_key_values"
        super().__init__(source.to(device=device, dtype=getattr(torch, dtype)).eval(), tokenizer)

    def _generate(self, prompts, max_new_tokens, sampler, seed, batch_size, progress):
        torch = require_torch()
        encoded = [self.tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
        order = sorted(range(len(prompts)), key=lambda i: len(encoded[i]))
        out: list = [None] * len(prompts)
        generator = torch_generator(seed)
        with torch.inference_mode():
            for begin in range(0, len(order), batch_size):
                members = order[begin:begin + batch_size]
                for i, row in zip(members, self._decode([encoded[i] for i in members], max_new_tokens, sampler, generator)):
                    out[i] = row
                if progress is not None:
                    progress(min(begin + batch_size, len(order)), len(order))
        return out

    def _decode(self, rows: list, max_new_tokens: int, sampler, generator) -> list:
        """Generated ids for one batch of tokenised prompts (left-padded here)."""
        torch = require_torch()
        from transformers import DynamicCache

        eos, pad = self.tokenizer.eos_token_id, self.tokenizer.pad_token_id
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for k, r in enumerate(rows):
            ids[k, width - len(r):] = torch.tensor(r)
            mask[k, width - len(r):] = 1
        ids, mask = ids.to(self.device), mask.to(self.device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        cache = DynamicCache()
        logits = self.model(input_ids=ids, attention_mask=mask, position_ids=positions, **{self.cache_argument: cache},
                            use_cache=True, logits_to_keep=1).logits[:, -1]
        owner = list(range(len(rows)))  # batch row -> index in ``rows``
        alive = [True] * len(rows)  # a finished row stays in the batch (its samples ignored) until compaction
        generated: list = [[] for _ in rows]
        last = positions[:, -1]
        for step in range(max_new_tokens):
            tokens = sampler(logits.float().cpu(), generator).tolist()
            for k, token in enumerate(tokens):
                if alive[k]:
                    generated[owner[k]].append(token)
                    alive[k] = token != eos
            if step == max_new_tokens - 1 or not any(alive):
                break
            next_ids = torch.tensor(tokens, device=self.device)
            if 4 * alive.count(False) >= len(alive):
                index = torch.tensor([k for k, a in enumerate(alive) if a], device=self.device)
                cache.batch_select_indices(index)
                next_ids, mask, last = next_ids[index], mask[index], last[index]
                owner = [o for o, a in zip(owner, alive) if a]
                alive = [True] * len(owner)
            mask = torch.cat([mask, torch.ones((len(owner), 1), dtype=mask.dtype, device=self.device)], 1)
            last = last + 1
            logits = self.model(input_ids=next_ids[:, None], attention_mask=mask, position_ids=last[:, None],
                                **{self.cache_argument: cache}, use_cache=True).logits[:, -1]
        return [self._cut(g) for g in generated]
