"""The reference engine: transformers' ``generate`` in the model's own precision (float32 for the policies).

Slow on a CPU (generic sampling warpers sort the whole vocabulary every step; finished rows keep being computed)
but it is the library's own implementation: the fast engine is checked against it.
"""

from __future__ import annotations

from authorguard.generation.base import GenerationEngine, merged_copy
from authorguard.utils.weights import require_torch


class TransformersEngine(GenerationEngine):
    name = "torch"

    def __init__(self, model, tokenizer) -> None:
        super().__init__(merged_copy(model), tokenizer)

    def _generate(self, prompts, max_new_tokens, sampler, seed, batch_size, progress, constraints):
        import secrets

        torch = require_torch()
        self.tokenizer.padding_side = "left"
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        out: list = [None] * len(prompts)
        options = sampler.transformers_options()
        with torch.random.fork_rng(), torch.inference_mode():
            torch.manual_seed(secrets.randbits(63) if seed is None else seed)
            for begin in range(0, len(order), batch_size):
                members = order[begin : begin + batch_size]
                batch = self.tokenizer(
                    [prompts[i] for i in members], return_tensors="pt", padding=True, add_special_tokens=False
                )
                width = batch["input_ids"].shape[1]
                batch_options = options
                if constraints is not None:
                    from transformers import LogitsProcessorList

                    from authorguard.generation.constraints import constraint_processor

                    mask = constraint_processor([constraints[i] for i in members], width)
                    batch_options = {
                        **options,
                        "logits_processor": LogitsProcessorList([mask, *options.get("logits_processor", [])]),
                    }
                new = self.model.generate(
                    **batch,
                    max_new_tokens=max_new_tokens,
                    pad_token_id=self.tokenizer.pad_token_id,
                    eos_token_id=self.tokenizer.eos_token_id,
                    **batch_options,
                )[:, width:]
                for row, i in zip(new.tolist(), members):
                    out[i] = self._cut(row)
                if progress is not None:
                    progress(min(begin + batch_size, len(order)), len(order))
        return out
