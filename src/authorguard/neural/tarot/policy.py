"""The policy: SmolLM2-135M-Instruct (the reference-LM loader's float32 copy) plus LoRA adapters, and batched,
seeded generation.

A trained stage leaves a LoRA adapter (peft) in its folder. Loading a policy merges each earlier stage's adapter
into the weights in order (base -> SFT -> DPO), so the next stage trains a fresh adapter on top and its reference
policy is the merged model with that adapter disabled (trl's way of getting the reference without a copy).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.neural.resources import first_line, require_torch
from authorguard.neural.tarot.config import PolicyConfig


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
        from authorguard.neural.reference_lm import load_reference_lm

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
    lora = LoraConfig(r=config.lora_rank, lora_alpha=config.lora_alpha, lora_dropout=config.lora_dropout,
                      target_modules=list(config.lora_targets), task_type="CAUSAL_LM")
    return get_peft_model(model, lora)


@dataclass(frozen=True)
class Generations:
    """``texts`` (decoded, special tokens dropped), ``new_tokens`` per text, and the wall ``seconds`` it took."""

    texts: list
    new_tokens: list
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        return sum(self.new_tokens) / self.seconds if self.seconds > 0 else float("nan")


def generate(model, tokenizer, prompts: Sequence[str], *, max_new_tokens: int, seed: int | None, sample: bool = True,
             temperature: float = 1.0, top_p: float = 1.0, batch_size: int = 16, progress=None) -> Generations:
    """Continue each (chat-formatted) prompt. Prompts are batched in order of length; the random stream is
    ``seed`` (the global torch state is left as it was), so the same prompts, seed and batch size give the same
    texts. ``sample`` False is greedy. ``progress(done, total)`` is called after each batch."""
    torch = require_torch()
    if not prompts:
        return Generations([], [], 0.0)
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    texts: list = [None] * len(prompts)
    counts: list = [0] * len(prompts)
    eos = tokenizer.eos_token_id
    start = time.perf_counter()
    with torch.random.fork_rng(), torch.inference_mode():
        torch.manual_seed(0 if seed is None else seed)
        for begin in range(0, len(order), batch_size):
            members = order[begin:begin + batch_size]
            _, new = sample_batch(model, tokenizer, [prompts[i] for i in members], max_new_tokens=max_new_tokens,
                                  sample=sample, temperature=temperature, top_p=top_p)
            for row, i in zip(new.tolist(), members):
                length = row.index(eos) if eos in row else len(row)
                counts[i] = length + (1 if length < len(row) else 0)
                texts[i] = tokenizer.decode(row[:length], skip_special_tokens=True).strip()
            if progress is not None:
                progress(min(begin + batch_size, len(order)), len(order))
    return Generations(texts, counts, time.perf_counter() - start)


def sample_batch(model, tokenizer, prompts: Sequence[str], *, max_new_tokens: int, sample: bool = True,
                 temperature: float = 1.0, top_p: float = 1.0, logits_processor=None):
    """One ``model.generate`` call on the chat-formatted ``prompts`` (left-padded) from the current torch random
    state: returns (the tokenizer's batch: input_ids and attention_mask, shape (B, P); the new token ids, shape
    (B, T ≤ max_new_tokens), padded after the end-of-turn token). top-k is off: only ``top_p`` truncates."""
    batch = tokenizer(list(prompts), return_tensors="pt", padding=True, add_special_tokens=False)
    options = {"do_sample": True, "temperature": temperature, "top_p": top_p, "top_k": 0} if sample else {"do_sample": False}
    if logits_processor is not None:
        options["logits_processor"] = logits_processor
    out = model.generate(**batch, max_new_tokens=max_new_tokens, pad_token_id=tokenizer.pad_token_id,
                         eos_token_id=tokenizer.eos_token_id, **options)
    return batch, out[:, batch["input_ids"].shape[1]:]


class PolicyLoader:
    """Loads a policy (:func:`load_policy` of ``adapters`` over ``base_factory()``, the reference LM by default) on
    the first call and returns it after that; its ``tokenizer`` is available without loading the model (prompts
    are rendered before anything is sampled). Merging adapters changes the base model's weights, hence a factory."""

    def __init__(self, adapters: Sequence[str | Path] = (), base_factory: Callable | None = None) -> None:
        self.adapters = list(adapters)
        self.base_factory = base_factory
        self._policy = None
        self._tokenizer = None

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            if self.base_factory is not None:
                self._tokenizer = self()[1]
            else:
                from authorguard.neural.reference_lm import load_reference_tokenizer

                self._tokenizer = load_reference_tokenizer()
            self._tokenizer.padding_side = "left"
        return self._tokenizer

    def __call__(self):
        if self._policy is None:
            base = self.base_factory() if self.base_factory is not None else None
            self._policy = load_policy(self.adapters, base)
            self._tokenizer = self._policy[1]
        return self._policy
