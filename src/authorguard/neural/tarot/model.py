"""A trained TAROT policy (or the untuned model) rewriting documents chunk by chunk.

``stage`` picks the policy: ``"dpo"`` (SFT + DPO adapters), ``"ppo"`` (SFT + PPO adapters), ``"sft"`` (SFT adapter
only) or ``"zero-shot"``
(SmolLM2-135M-Instruct untuned, the paper's prompt: its GPT-3.5 row). The folder is ``model`` or, when None,
the adapters shipped in the package (``authorguard/neural/tarot/packaged``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.neural.tarot.config import PolicyConfig
from authorguard.neural.tarot.folder import TarotFolder
from authorguard.neural.generation.base import Generations
from authorguard.neural.tarot.policy import PolicyLoader, generate, tokenizer_signature
from authorguard.neural.tarot.prompts import chunk_documents, clean_rewrite, reassemble, render_prompt

PACKAGED = Path(__file__).parent / "packaged"
POLICY_STAGES = ("zero-shot", "sft", "dpo", "ppo")


def resolve_folder(model: str | Path | None) -> TarotFolder:
    """The model folder: ``model``, or the packaged one."""
    if model is not None:
        folder = TarotFolder(model)
        if not folder.path.is_dir():
            raise InputError(f"TAROT model folder {folder.path} does not exist (train one with 'authorguard tarot sft -o DIR')")
        return folder
    if not (PACKAGED / "tarot.json").is_file():
        raise DataNotFoundError("no TAROT policy is packaged: train one (authorguard tarot sft|prefs|dpo -o DIR) and pass --model DIR")
    return TarotFolder(PACKAGED)


class TarotRewriter:
    """``rewrite(texts, seed)`` -> one rewritten text per input. ``stats`` after each call: documents, chunks,
    empty rewrites, generated tokens and tokens/s."""

    def __init__(self, model: str | Path | None = None, stage: str = "dpo", base_factory: Callable | None = None,
                 engine: str = "batched") -> None:
        if stage not in POLICY_STAGES:
            raise InputError(f"TAROT: unknown stage {stage!r} (stages: {', '.join(POLICY_STAGES)})")
        if stage == "zero-shot":
            self.policy = PolicyConfig()
            self.loader = PolicyLoader((), base_factory)
        else:
            folder = resolve_folder(model)
            self.policy = folder.policy_config()
            self.loader = PolicyLoader(folder.adapters(stage), base_factory)
            folder.check_tokenizer(tokenizer_signature(self.loader.tokenizer))
        self.stage = stage
        self.engine = engine
        self.stats: dict = {}

    def rewrite(self, texts: Sequence[str], seed: int | None, *, temperature: float = 0.7, top_p: float = 0.95,
                batch_size: int = 64, max_new_tokens: int | None = None) -> list[str]:
        tokenizer = self.loader.tokenizer
        count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
        chunks = chunk_documents(texts, count, self.policy.max_chunk_tokens)
        prompts = [render_prompt(tokenizer, self.policy.instruction, c.text) for c in chunks]
        out = Generations([], [], 0.0, [])  # nothing to rewrite (blank documents): the policy is not even loaded
        if prompts:
            out = generate(None, tokenizer, prompts, max_new_tokens=max_new_tokens or self.policy.max_new_tokens,
                           seed=seed, temperature=temperature, top_p=top_p, batch_size=batch_size,
                           engine=self.loader.engine(self.engine))
        rewrites = [clean_rewrite(t) for t in out.texts]
        self.stats = {"documents": len(texts), "chunks": len(chunks), "empty_rewrites": sum(not r for r in rewrites),
                      "new_tokens": sum(out.new_tokens), "engine": self.engine, "seconds": round(out.seconds, 2),
                      "tokens_per_second": round(out.tokens_per_second, 1)}
        return reassemble(chunks, rewrites, len(texts))
