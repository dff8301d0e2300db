"""The policy: SmolLM2-135M-Instruct (the reference-LM loader's float32 copy) plus LoRA adapters, and batched,
seeded generation through :mod:`authorguard.generation`.

A trained stage leaves a LoRA adapter (peft) in its folder. Loading a policy merges each earlier stage's adapter
into the weights in order (base -> SFT -> DPO), so the next stage trains a fresh adapter on top and its reference
policy is the merged model with that adapter disabled (trl's way of getting the reference without a copy).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from authorguard.exceptions import InputError
from authorguard.generation.base import Generations
from authorguard.neural.tarot.config import PolicyConfig
from authorguard.utils.weights import first_line, require_torch

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


def tokenizer_signature(tokenizer) -> dict:
    """What a trained adapter depends on in the tokenizer: its size and a hash of its chat template."""
    template = tokenizer.chat_template or ""
    return {"vocabulary_size": len(tokenizer), "chat_template_sha1": hashlib.sha1(template.encode()).hexdigest()[:12]}


def load_policy(adapters: Sequence[str | Path] = (), base=None):
    """(model, tokenizer): the base model (``base`` = (model, tokenizer), or the reference LM loaded afresh) with the
    LoRA adapters in ``adapters`` merged into its weights in order; eval mode. An adapter that does not fit the
    base is an error naming its folder."""
    require_torch()
    if base is None:
        from authorguard.generation.reference_lm import load_reference_lm

        base = load_reference_lm()
    model, tokenizer = base
    for folder in adapters:
        from peft import PeftModel

        folder = Path(folder)
        if not (folder / "adapter_config.json").is_file():
            raise InputError(f"TAROT adapter folder {folder} has no adapter_config.json (not a trained stage?)")
        try:
            model = PeftModel.from_pretrained(model, str(folder)).merge_and_unload()
        except Exception as error:  # peft / torch raise many kinds on a mismatched adapter
            raise InputError(f"TAROT adapter {folder} does not fit the policy: {first_line(error, 200)}") from None
    model.eval()
    tokenizer.padding_side = "left"  # generation continues the prompt: pad on the left
    return model, tokenizer


def add_adapter(model, config: PolicyConfig, seed: int):
    """``model`` wrapped with a fresh trainable LoRA adapter (peft), initialised from ``seed``."""
    torch = require_torch()
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(seed)
    lora = LoraConfig(
        r=config.lora_rank,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=list(config.lora_targets),
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, lora)


def generate(
    model,
    tokenizer,
    prompts: Sequence[str],
    *,
    max_new_tokens: int,
    seed: int | None,
    sample: bool = True,
    temperature: float = 1.0,
    top_p: float = 1.0,
    batch_size: int = 16,
    progress=None,
    engine="batched",
    constraints=None,
) -> Generations:
    """Continue each (chat-formatted) prompt with ``engine`` (a name of :data:`~authorguard.generation.ENGINES`,
    built over ``model`` for this call, or an engine already built). The random stream is ``seed`` (None: 0); the
    same prompts, seed, batch size and engine give the same texts. ``sample`` False is greedy, else nucleus
    sampling (``temperature``, ``top_p``; no top-k). ``progress(done, total)`` is called after each batch.
    ``constraints``: one fresh :class:`~authorguard.generation.constraints.TokenConstraint` (or None) per prompt."""
    from authorguard.generation import make_engine, sampler_for

    if isinstance(engine, str):
        engine = make_engine(engine, model, tokenizer)
    return engine.generate(
        prompts,
        max_new_tokens=max_new_tokens,
        sampler=sampler_for(sample, temperature, top_p),
        seed=0 if seed is None else seed,
        batch_size=batch_size,
        progress=progress,
        constraints=constraints,
    )


class PolicyLoader:
    """Loads a policy (:func:`load_policy` of ``adapters`` over ``base_factory()``, the reference LM by default) on
    the first call and returns it after that; its ``tokenizer`` is available without loading the model (prompts
    are rendered before anything is sampled). Merging adapters changes the base model's weights, hence a factory."""

    def __init__(self, adapters: Sequence[str | Path] = (), base_factory: Callable | None = None) -> None:
        self.adapters = list(adapters)
        self.base_factory = base_factory
        self._policy: tuple[PreTrainedModel, PreTrainedTokenizerBase] | None = None
        self._tokenizer: PreTrainedTokenizerBase | None = None
        self._engines: dict = {}

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            if self.base_factory is not None:
                self._tokenizer = self()[1]
            else:
                from authorguard.generation.reference_lm import load_reference_tokenizer

                self._tokenizer = load_reference_tokenizer()
            self._tokenizer.padding_side = "left"
        return self._tokenizer

    def __call__(self):
        if self._policy is None:
            base = self.base_factory() if self.base_factory is not None else None
            self._policy = load_policy(self.adapters, base)
            self._tokenizer = self._policy[1]
        return self._policy

    def engine(self, name: str = "batched"):
        """The generation engine ``name`` over the loaded policy, built once (the fast engine copies the weights)."""
        if name not in self._engines:
            from authorguard.generation import make_engine

            self._engines[name] = make_engine(name, *self())
        return self._engines[name]
