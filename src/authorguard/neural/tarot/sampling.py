"""Resumable sampling of several rewrites per prompt, block by block (SFT candidates, preference pairs, evaluation).

Prompts are cut into blocks of ``block_size``; block b is generated with seed ``seed * 100003 + b`` and written
atomically to ``<store>/block-<b>.json`` as soon as it is done, so an interrupted stage resumes at the first
missing block and gives the texts it would have given uninterrupted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.generation import DEFAULT_ENGINE, make_engine
from authorguard.neural.tarot.policy import generate
from authorguard.neural.tarot.prompts import clean_rewrite


@dataclass(frozen=True)
class Samples:
    """``texts[i][k]``: the k-th rewrite of prompt i (cleaned); ``new_tokens`` and ``seconds`` of the generation
    (the blocks generated in this call and earlier ones)."""

    texts: list
    new_tokens: int
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        return self.new_tokens / self.seconds if self.seconds > 0 else float("nan")


def sample_rewrites(
    store: str | Path,
    prompts: Sequence[str],
    repeats: int,
    load_policy: Callable,
    *,
    seed: int,
    max_new_tokens: int,
    temperature: float,
    top_p: float,
    block_size: int = 16,
    progress: Callable[[int, int], None] | None = None,
) -> Samples:
    """``repeats`` sampled rewrites of every chat-formatted prompt. ``load_policy()`` -> (model, tokenizer) is called
    only when a block is missing."""
    store = Path(store)
    store.mkdir(parents=True, exist_ok=True)
    engine = None
    texts: list = []
    tokens, seconds = 0, 0.0
    blocks = range(0, len(prompts), block_size)
    for number, begin in enumerate(blocks):
        members = list(prompts[begin : begin + block_size])
        file = store / f"block-{number:05d}.json"
        record = _read_block(file, members, repeats)
        if record is None:
            if engine is None:
                engine = make_engine(DEFAULT_ENGINE, *load_policy())
            repeated = [p for p in members for _ in range(repeats)]
            out = generate(
                None,
                None,
                repeated,
                max_new_tokens=max_new_tokens,
                seed=seed * 100003 + number,
                temperature=temperature,
                top_p=top_p,
                batch_size=len(repeated),
                engine=engine,
            )
            record = {
                "prompts": members,
                "repeats": repeats,
                "raw": out.texts,
                "new_tokens": sum(out.new_tokens),
                "seconds": out.seconds,
            }
            staging = file.with_suffix(".partial")
            staging.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
            staging.replace(file)
        raw = record["raw"]
        texts.extend([clean_rewrite(t) for t in raw[i * repeats : (i + 1) * repeats]] for i in range(len(members)))
        tokens += record["new_tokens"]
        seconds += record["seconds"]
        if progress is not None:
            progress(min(begin + block_size, len(prompts)), len(prompts))
    return Samples(texts, tokens, seconds)


def _read_block(file: Path, prompts: list, repeats: int) -> dict | None:
    """A stored block, or None when there is none; a block of other prompts is an error (the stage's config changed)."""
    if not file.is_file():
        return None
    try:
        record = json.loads(file.read_text(encoding="utf-8"))
    except ValueError:
        return None  # torn by an interruption: generate again
    if record.get("prompts") != prompts or record.get("repeats") != repeats:
        raise InputError(
            f"{file} holds other prompts than this run's: the stage's config changed; delete {file.parent}"
        )
    return record
