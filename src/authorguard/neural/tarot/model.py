"""A trained TAROT policy (or the untuned model) rewriting documents chunk by chunk.

``stage`` picks the policy: ``"dpo"`` (SFT + DPO adapters), ``"ppo"`` (SFT + PPO adapters), ``"sft"`` (SFT adapter
only) or ``"zero-shot"``
(SmolLM2-135M-Instruct untuned, the paper's prompt: its GPT-3.5 row). The folder is ``model`` or, when None,
the adapters shipped in the models distribution (its ``tarot`` folder).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import PolicyConfig
from authorguard.neural.tarot.folder import TarotFolder
from authorguard.neural.tarot.policy import PolicyLoader, generate, tokenizer_signature
from authorguard.neural.tarot.prompts import chunk_documents, clean_rewrite, reassemble, render_prompt
from authorguard.neural.tarot.selection import LimitedSampler, SelectionConfig, release_stats, select_rewrites
from authorguard.text.validity import RewriteGate

if TYPE_CHECKING:
    from authorguard.neural.tarot.reward import ObfuscationReward

POLICY_STAGES = ("zero-shot", "sft", "dpo", "ppo")


def resolve_folder(model: str | Path | None) -> TarotFolder:
    """The model folder: ``model``, or the packaged one."""
    if model is not None:
        folder = TarotFolder(model)
        if not folder.path.is_dir():
            raise InputError(
                f"TAROT model folder {folder.path} does not exist (train one with 'authorguard tarot sft -o DIR')"
            )
        return folder
    from authorguard.utils.weights import packaged_folder

    return TarotFolder(packaged_folder("tarot"))


#: tokens an anchored rewrite may write before its next anchor is forced (a chunk is at most ~96 tokens)
ANCHOR_GAP = 32


class TarotRewriter:
    """``rewrite(texts, seed)`` -> one rewritten text per input. ``stats`` after each call: documents, chunks,
    empty rewrites, generated tokens and tokens/s."""

    def __init__(
        self,
        model: str | Path | None = None,
        stage: str = "dpo",
        base_factory: Callable | None = None,
        engine: str = "batched",
    ) -> None:
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
        self._reward: ObfuscationReward | None = None

    def rewrite(
        self,
        texts: Sequence[str],
        seed: int | None,
        *,
        temperature: float = 0.7,
        top_p: float = 0.95,
        batch_size: int = 64,
        max_new_tokens: int | None = None,
        selection: SelectionConfig = SelectionConfig(),
        anchored: bool = False,
    ) -> list[str]:
        """One output per text: each chunk's selected rewrite (:mod:`~authorguard.neural.tarot.selection`), or its
        fallback; ``stats`` then counts chunks, fallbacks and flagged records. ``anchored``: each chunk is written
        under an :class:`~authorguard.generation.anchors.AnchorPlan` of its names, numbers and negations
        (:func:`~authorguard.text.views.anchor_words`), copied in order."""
        tokenizer = self.loader.tokenizer
        count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
        chunks = chunk_documents(texts, count, self.policy.max_chunk_tokens)
        prompts = [render_prompt(tokenizer, self.policy.instruction, c.text) for c in chunks]
        limit = max_new_tokens or self.policy.max_new_tokens

        plans = None
        if anchored and chunks:
            from authorguard.generation.anchors import AnchorPlan
            from authorguard.generation.constraints import vocabulary_of
            from authorguard.text.views import anchor_words

            vocabulary = vocabulary_of(tokenizer)
            plans = [AnchorPlan(anchor_words(c.text), vocabulary, max_gap=ANCHOR_GAP) for c in chunks]

        def sample(indices, repeats, round_seed):
            repeated = [prompts[i] for i in indices for _ in range(repeats)]
            constraints = None
            if plans is not None:
                from authorguard.generation.anchors import AnchorsInOrder

                constraints = [AnchorsInOrder(plans[i]) for i in indices for _ in range(repeats)]
            out = generate(
                None,
                tokenizer,
                repeated,
                max_new_tokens=limit,
                seed=round_seed,
                temperature=temperature,
                top_p=top_p,
                batch_size=batch_size,
                engine=self.loader.engine(self.engine),
                constraints=constraints,
            )
            return replace(out, texts=[clean_rewrite(t) for t in out.texts])

        score = self.reward if selection.candidates > 1 or selection.min_utility > -1 else None
        # nothing to rewrite (blank documents): the policy is not even loaded
        chosen = select_rewrites(
            [c.text for c in chunks],
            LimitedSampler(sample, limit),
            self.gate,
            score,
            selection,
            0 if seed is None else seed,
        )
        self.stats = release_stats([c.document for c in chunks], chosen, len(texts), selection.fallback, self.engine)
        outputs = reassemble(chunks, chosen.texts, len(texts))
        if selection.fallback == "withhold":  # a record with any unprotected chunk is withheld whole, never in part
            for document in self.stats["flagged_records"]:
                outputs[document] = ""
        return outputs

    @property
    def gate(self) -> RewriteGate:
        return RewriteGate(instruction=self.policy.instruction)

    @property
    def reward(self):
        """TAROT's reward (MiniLM utility + author-encoder privacy), loaded on first use."""
        if self._reward is None:
            from authorguard.neural.tarot.config import RewardConfig
            from authorguard.neural.tarot.reward import ObfuscationReward

            self._reward = ObfuscationReward(
                RewardConfig(gate=False), instruction=self.policy.instruction
            )  # gated already
        return self._reward
