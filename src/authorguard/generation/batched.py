"""The fast engine: a batched key-value-cache decoding loop of our own over the transformers model, in bfloat16
where the processor computes it natively.

Why not CTranslate2 or llama.cpp (measured in docs/neural.md#generation-engines): on this project's CPUs (Intel
Xeon with AVX-512 BF16 and AMX) oneDNN's bfloat16 matrix kernels beat CTranslate2's int8 and llama.cpp's Q4_1
kernels, and most of the reference path's time is not the matrix work but the loop around it. This loop
(1) runs the model in bfloat16 when ``torch`` reports native bfloat16 support (float32 otherwise; CUDA: bfloat16);
(2) prefills the prompts that join the batch together, computing logits for the last position only; (3) samples through
the shared
:mod:`~authorguard.generation.samplers` (top-p among a shortlist instead of sorting the vocabulary);
(4) batches continuously: finished rows leave the batch and queued prompts are prefilled and join it whenever
a quarter of the slots is free, so the compute follows ``batch_size`` live sequences instead of waiting for the
longest row of a fixed batch (the cache is left-padded to one width; columns no row attends to are trimmed).

Prompts are admitted in order of length; the random stream is one generator per call (``seed``, on the engine's
device: sampling runs where the logits are), so the same prompts, sampler, seed and batch size give the same texts
on the same machine, device and precision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from authorguard.exceptions import InputError
from authorguard.generation.base import GenerationEngine, merged_copy, own_forward
from authorguard.generation.constraints import masked_logits
from authorguard.utils.weights import require_torch, torch_generator

if TYPE_CHECKING:
    import torch
    from transformers import DynamicCache

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
            source = own_forward(copy.deepcopy(model))
        self.dtype, self.device = dtype, device
        import inspect

        # transformers 5 renamed ``past_key_values`` to ``cache`` (the old name warns, then goes away)
        self.cache_argument = "cache" if "cache" in inspect.signature(source.forward).parameters else "past_key_values"
        super().__init__(source.to(device=device, dtype=getattr(torch, dtype)).eval(), tokenizer)

    def _generate(self, prompts, max_new_tokens, sampler, seed, batch_size, progress, constraints):
        """Continuous batching: up to ``batch_size`` sequences decode together; finished ones leave and queued
        prompts (shortest first) are prefilled and join, whenever a quarter of the slots is free."""
        torch = require_torch()
        encoded = [self.tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
        queue = sorted(range(len(prompts)), key=lambda i: len(encoded[i]))
        out: list = [None] * len(prompts)
        # sampling stays on the engine's device: copying (B, 49,152) logits to the CPU every step would cost more
        # than the step on a GPU. A CPU run's stream is unchanged; a CUDA run draws from a CUDA generator.
        generator = torch_generator(seed, self.device)
        live = _LiveBatch(self)
        finished = 0
        with torch.inference_mode():
            while queue or live.rows:
                if live.rows:
                    assert live.logits is not None  # set whenever rows are live
                    logits = live.logits.float()
                    if constraints is not None:
                        row_constraints = [constraints[r[0]] if r[2] else None for r in live.rows]
                        logits = masked_logits(logits, row_constraints)
                    tokens = sampler(logits, generator).tolist()
                    if constraints is not None:
                        for constraint, token in zip(row_constraints, tokens):
                            if constraint is not None:
                                constraint.advance(token)
                    ended = live.record(tokens, self.tokenizer.eos_token_id, max_new_tokens)
                    for owner, ids in ended:
                        out[owner] = self._cut(ids)
                    finished += len(ended)
                    if progress is not None and ended:
                        progress(finished, len(prompts))
                free = batch_size - live.alive_count
                admit = bool(queue) and (4 * free >= batch_size or live.alive_count == 0)
                if admit or 4 * live.dead_count >= max(len(live.rows), 1):
                    live.compact()
                if live.rows:
                    live.step()
                if admit:
                    members, queue = queue[:free], queue[free:]
                    live.admit(members, [encoded[i] for i in members])
        return out


class _LiveBatch:
    """The sequences being decoded: their key-value cache (left-padded to one width), attention mask, positions,
    generated ids and the logits of their next token. Finished rows stay (ignored) until :meth:`compact`."""

    def __init__(self, engine: BatchedDecoder) -> None:
        self.engine = engine
        # set together when the first rows are admitted, reset when none is left
        self.cache: DynamicCache | None = None
        self.rows: list = []  # per batch row: [owner index, generated ids, alive]
        self.mask: torch.Tensor | None = None
        self.last: torch.Tensor | None = None
        self.logits: torch.Tensor | None = None

    @property
    def alive_count(self) -> int:
        return sum(1 for r in self.rows if r[2])

    @property
    def dead_count(self) -> int:
        return len(self.rows) - self.alive_count

    def record(self, tokens: list, eos: int, max_new_tokens: int) -> list:
        """Append each live row's sampled token; the (owner, ids) of the rows that just finished."""
        ended = []
        for row, token in zip(self.rows, tokens):
            if row[2]:
                row[1].append(token)
                if token == eos or len(row[1]) >= max_new_tokens:
                    row[2] = False
                    ended.append((row[0], row[1]))
        return ended

    def compact(self) -> None:
        """Drop finished rows, then the leading cache columns that no remaining row attends to."""
        torch = require_torch()
        keep = [k for k, r in enumerate(self.rows) if r[2]]
        if len(keep) == len(self.rows):
            return
        self.rows = [self.rows[k] for k in keep]
        if not keep:
            self.cache = self.mask = self.last = self.logits = None
            return
        assert self.cache is not None and self.mask is not None and self.last is not None and self.logits is not None
        index = torch.tensor(keep, device=self.engine.device)
        self.cache.batch_select_indices(index)
        self.mask, self.last, self.logits = self.mask[index], self.last[index], self.logits[index]
        lead = int(self.mask.any(0).int().argmax())
        if lead:
            for layer in self.cache.layers:
                layer.keys, layer.values = layer.keys[..., lead:, :], layer.values[..., lead:, :]
            self.mask = self.mask[:, lead:]

    def step(self) -> None:
        """Feed every row its last sampled token (a finished row's too: it is dropped at the next compaction)."""
        torch = require_torch()
        engine = self.engine
        assert self.mask is not None and self.last is not None  # only live rows are stepped
        next_ids = torch.tensor(
            [r[1][-1] if r[1] else engine.tokenizer.pad_token_id for r in self.rows], device=engine.device
        )
        self.mask = torch.cat([self.mask, self.mask.new_ones((len(self.rows), 1))], 1)
        self.last = self.last + 1
        self.logits = engine.model(
            input_ids=next_ids[:, None],
            attention_mask=self.mask,
            position_ids=self.last[:, None],
            **{engine.cache_argument: self.cache},
            use_cache=True,
        ).logits[:, -1]

    def admit(self, owners: list, prompts: list) -> None:
        """Prefill ``prompts`` (token id lists) as one left-padded batch and add them to the live rows."""
        torch = require_torch()
        engine = self.engine
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), engine.tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for k, p in enumerate(prompts):
            ids[k, width - len(p) :] = torch.tensor(p)
            mask[k, width - len(p) :] = 1
        ids, mask = ids.to(engine.device), mask.to(engine.device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        cache = growing_cache()
        # The output layer on the last position only, fed a contiguous (B, H) matrix: ``logits_to_keep=1`` hands
        # it a strided (B, 1, H) view, for which torch copies the 49,152 x 576 output matrix once per row (a
        # batched matmul): 3.5x slower prefill at batch 64 in bfloat16 (measured in docs/neural.md).
        hidden = engine.model.base_model(
            input_ids=ids, attention_mask=mask, position_ids=positions, **{engine.cache_argument: cache}, use_cache=True
        ).last_hidden_state
        logits = engine.model.get_output_embeddings()(hidden[:, -1].contiguous())
        new_rows = [[owner, [], True] for owner in owners]
        if not self.rows:
            self.cache, self.mask, self.last, self.logits, self.rows = cache, mask, positions[:, -1], logits, new_rows
            return
        import torch.nn.functional as F

        assert self.cache is not None and self.mask is not None  # set with the rows
        width = max(self.mask.shape[1], mask.shape[1])
        pad = lambda t, dim: F.pad(t, ((0, 0) if dim == -2 else ()) + (width - t.shape[dim], 0))  # noqa: E731
        for layer, new in zip(self.cache.layers, cache.layers):
            layer.keys = torch.cat([pad(layer.keys, -2), pad(new.keys, -2)])
            layer.values = torch.cat([pad(layer.values, -2), pad(new.values, -2)])
        self.mask = torch.cat([pad(self.mask, -1), pad(mask, -1)])
        self.last = torch.cat([self.last, positions[:, -1]])
        self.logits = torch.cat([self.logits, logits])
        self.rows += new_rows


def growing_cache():
    """A transformers ``DynamicCache`` whose layers append in place (:func:`growing_layer_class`)."""
    from transformers import DynamicCache

    cache = DynamicCache()
    cache.layer_class_to_replicate = growing_layer_class()
    return cache


_GROWING_LAYER = None


def growing_layer_class():
    """A ``DynamicLayer`` that keeps its keys and values in buffers with spare columns: appending a step writes in
    place instead of concatenating, which copies the whole cache at every step (30 % of a decoding step at batch
    64). ``keys``/``values`` stay views of the buffers; when something else replaces them (row selection, trimming,
    merging) the next update copies them into fresh buffers once."""
    global _GROWING_LAYER
    if _GROWING_LAYER is None:
        from transformers.cache_utils import DynamicLayer

        class GrowingLayer(DynamicLayer):
            spare_columns = 64
            keys: torch.Tensor | None  # DynamicLayer's: None until initialised
            values: torch.Tensor | None

            def update(self, key_states, value_states, *args, **kwargs):
                if not self.is_initialized:
                    self.lazy_initialization(key_states, value_states)
                assert self.keys is not None and self.values is not None  # initialised above
                length = self.keys.shape[-2] if self.keys.dim() == 4 else 0
                total = length + key_states.shape[-2]
                buffers = getattr(self, "buffers", None)
                if (
                    buffers is None
                    or buffers[0].shape[-2] < total
                    or self.keys.dim() != 4
                    or self.keys.data_ptr() != buffers[0].data_ptr()
                    or self.keys.shape[:2] != buffers[0].shape[:2]
                ):
                    shape = (*key_states.shape[:2], total + self.spare_columns, key_states.shape[-1])
                    buffers = (key_states.new_empty(shape), value_states.new_empty(shape))
                    if length:
                        buffers[0][..., :length, :] = self.keys
                        buffers[1][..., :length, :] = self.values
                    self.buffers = buffers
                buffers[0][..., length:total, :] = key_states
                buffers[1][..., length:total, :] = value_states
                self.keys, self.values = buffers[0][..., :total, :], buffers[1][..., :total, :]
                return self.keys, self.values

        _GROWING_LAYER = GrowingLayer
    return _GROWING_LAYER
