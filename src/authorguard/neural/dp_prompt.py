"""DP-Prompt's rewriter: each document cut into a fixed number of segments, each paraphrased by a TAROT policy
with tokens drawn by :class:`~authorguard.generation.samplers.ClippedSampler` (logits clipped to [b_lo, b_hi] and
divided by T; the privacy argument: :mod:`authorguard.privacy.clipped_sampling`).
"""

from __future__ import annotations


def split_segments(text: str, segments: int, count_tokens) -> list[str]:
    """``text`` cut into exactly ``segments`` parts of whole sentences with near-equal policy-token counts, in order
    (a sentence goes to the part its middle token falls in; a text of fewer sentences leaves parts empty). The
    number of parts never depends on the text: the output's structure must not reveal the input's length."""
    from authorguard.text.sentences import SentenceSplitter

    sentences = SentenceSplitter().split(text) if text.strip() else []
    parts: list[list[str]] = [[] for _ in range(segments)]
    sizes = [max(count_tokens(s), 1) for s in sentences]
    total = sum(sizes)
    done = 0
    for sentence, size in zip(sentences, sizes):
        middle = done + size / 2
        parts[min(int(middle * segments / total), segments - 1)].append(sentence)
        done += size
    return [" ".join(part) for part in parts]


class DPPromptRewriter:
    """DP-Prompt on a TAROT policy: each document is cut into ``segments`` parts, each part is paraphrased by the
    policy with at most ``max_tokens // segments`` tokens sampled from clipped, tempered logits, and the parts'
    paraphrases are joined by a space. ``policy``: ``"sft"`` (the SFT rewriting policy) or ``"dpo"``, from the
    TAROT folder ``model`` (None: the packaged one); ``base_factory`` replaces the reference LM (tests).

    A blank document is paraphrased too (from an empty prompt): returning "" for it would be a deterministic,
    input-dependent output, which no ε covers."""

    def __init__(self, model=None, policy: str = "sft", base_factory=None, engine: str = "batched") -> None:
        from authorguard.exceptions import InputError
        from authorguard.neural.tarot.model import resolve_folder
        from authorguard.neural.tarot.policy import PolicyLoader, tokenizer_signature

        if policy not in ("sft", "dpo"):
            raise InputError(f"DP-Prompt: unknown policy {policy!r} (sft, dpo)")
        folder = resolve_folder(model)
        self.policy = folder.policy_config()
        self.loader = PolicyLoader(folder.adapters(policy), base_factory)
        folder.check_tokenizer(tokenizer_signature(self.loader.tokenizer))
        self.engine = engine
        self.stats: dict = {}

    def rewrite(
        self,
        texts,
        *,
        clip_low: float,
        clip_high: float,
        temperature: float,
        max_tokens: int,
        segments: int = 1,
        relative: bool = False,
        seed: int | None = None,
        batch_size: int = 64,
        max_input_tokens: int = 512,
    ) -> list[str]:
        """One paraphrase per text, in order. ``seed`` None draws every token from the OS CSPRNG (the batched
        engine; the torch engine seeds its generator from it)."""
        from authorguard.generation import ClippedSampler
        from authorguard.neural.tarot.prompts import clean_rewrite, render_prompt
        from authorguard.text.validity import RewriteGate, count_reasons

        tokenizer = self.loader.tokenizer
        per_segment = max_tokens // segments
        count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
        parts = [split_segments(text, segments, count) for text in texts]
        prompts = [
            render_prompt(tokenizer, self.policy.instruction, _first_tokens(tokenizer, part, max_input_tokens))
            for document in parts
            for part in document
        ]
        sampler = ClippedSampler(clip_low, clip_high, temperature, relative)
        out = self.loader.engine(self.engine).generate(
            prompts, max_new_tokens=per_segment, sampler=sampler, seed=seed, batch_size=batch_size
        )
        outputs = [clean_rewrite(text) for text in out.texts]
        new_tokens = sum(out.new_tokens)
        # The validity gate only counts here: resampling or withholding by a verdict that reads the input would be
        # an input-dependent choice that the ε bound does not cover. The counts are for the data owner.
        problems = RewriteGate(instruction=self.policy.instruction).problems(
            [part for document in parts for part in document], outputs, [n >= per_segment for n in out.new_tokens]
        )
        flagged = sorted(
            {i // segments for i, p in enumerate(problems) if p is not None and parts[i // segments][i % segments]}
        )
        self.stats = {
            "documents": len(texts),
            "segments": len(prompts),
            "new_tokens": new_tokens,
            "engine": self.engine,
            "seconds": round(out.seconds, 2),
            "tokens_per_second": round(new_tokens / out.seconds, 1) if out.seconds else None,
            "validity": count_reasons([p for i, p in enumerate(problems) if parts[i // segments][i % segments]]),
            "records_flagged": len(flagged),
            "flagged_records": flagged,
        }
        return [" ".join(p for p in outputs[i * segments : (i + 1) * segments] if p) for i in range(len(texts))]


def _first_tokens(tokenizer, text: str, limit: int) -> str:
    """``text`` cut to its first ``limit`` policy tokens (the prompt's length is bounded; any function of the
    input may shape the prompt without touching the bound)."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    return text if len(ids) <= limit else tokenizer.decode(ids[:limit])
