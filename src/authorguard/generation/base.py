"""The generation interface: a loaded policy (a causal LM and its tokenizer) continues chat-formatted prompts.

An engine is built once over a loaded policy (``make_engine(name, model, tokenizer)``) and then called as often as
needed; :func:`make_engine` does that and checks the name. Engines differ in how fast they decode, never in what
a call means: same prompts, same sampler, same seed and batch size on the same engine give the same texts.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from authorguard.exceptions import InputError


@dataclass(frozen=True)
class Generations:
    """``texts`` (decoded, special tokens dropped), ``token_ids`` (the generated ids per prompt, the end-of-turn
    token included when it was generated), ``new_tokens`` per text (= len(token_ids[i])) and the wall ``seconds``."""

    texts: list
    new_tokens: list
    seconds: float
    token_ids: list | None = None

    @property
    def tokens_per_second(self) -> float:
        return sum(self.new_tokens) / self.seconds if self.seconds > 0 else float("nan")


class GenerationEngine(abc.ABC):
    """Continues prompts with a loaded policy. ``model``: a transformers causal LM (a peft model is merged into a
    copy first); ``tokenizer``: its tokenizer, which tokenises the prompts and decodes the outputs."""

    name: str = ""

    def __init__(self, model, tokenizer) -> None:
        self.model = model
        self.tokenizer = tokenizer

    def generate(
        self,
        prompts: Sequence[str],
        *,
        max_new_tokens: int,
        sampler,
        seed: int | None,
        batch_size: int = 16,
        progress: Callable[[int, int], None] | None = None,
        constraints: Sequence | None = None,
    ) -> Generations:
        """Continue each prompt by at most ``max_new_tokens`` tokens, each drawn by ``sampler`` (see
        :mod:`~authorguard.generation.samplers`). ``seed`` None draws from the OS CSPRNG (not
        reproducible). ``progress(done, total)`` as prompts finish. ``constraints``: one
        :class:`~authorguard.generation.constraints.TokenConstraint` (or None) per prompt, fresh (they keep the
        sequence's state): the tokens it forbids are masked before the sampler. The global torch random state is
        untouched."""
        from authorguard.generation.constraints import check_constraints

        if not prompts:
            return Generations([], [], 0.0, [])
        if max_new_tokens < 1 or batch_size < 1:
            raise InputError(f"{self.name} engine: max_new_tokens and batch_size must be >= 1")
        constraints = check_constraints(constraints, len(prompts), sampler)
        started = time.perf_counter()
        ids = self._generate(list(prompts), int(max_new_tokens), sampler, seed, int(batch_size), progress, constraints)
        seconds = time.perf_counter() - started
        texts = [self.tokenizer.decode(row, skip_special_tokens=True).strip() for row in ids]
        return Generations(texts, [len(row) for row in ids], seconds, ids)

    @abc.abstractmethod
    def _generate(
        self,
        prompts: list,
        max_new_tokens: int,
        sampler,
        seed: int | None,
        batch_size: int,
        progress,
        constraints: list | None,
    ) -> list:
        """The generated token ids per prompt, in the prompts' order (cut after the end-of-turn token);
        ``constraints``: None, or one constraint (or None) per prompt, applied as a mask before ``sampler``."""

    def _cut(self, row: list) -> list:
        eos = self.tokenizer.eos_token_id
        return row[: row.index(eos) + 1] if eos in row else row


def merged_copy(model):
    """``model`` itself, or, for a peft model (an adapter being trained), a copy with the adapter merged in."""
    if hasattr(model, "merge_and_unload"):
        import copy

        return own_forward(copy.deepcopy(model).merge_and_unload())
    return model


def own_forward(copied):
    """Remove instance-level ``forward`` patches from a copied model: a trainer may wrap ``forward`` in a closure
    over the *original* module (trl's DPO trainer does), so the copy would silently run the original's weights."""
    for module in copied.modules():
        module.__dict__.pop("forward", None)
    return copied


def engine_names() -> tuple:
    """The registered engines' names (:data:`authorguard.registry.engines`), known without importing torch."""
    from authorguard import registry

    return tuple(registry.engines.names())


def make_engine(name: str, model, tokenizer, **options) -> GenerationEngine:
    """The engine ``name`` (registered in :data:`authorguard.registry.engines`) over the loaded policy; a one-line
    error for an unknown name."""
    from authorguard import registry

    if name not in registry.engines:
        raise InputError(f"unknown generation engine {name!r} (engines: {', '.join(engine_names())})")
    return registry.engines.get(name)(model, tokenizer, **options)
