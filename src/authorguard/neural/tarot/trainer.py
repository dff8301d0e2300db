"""TAROT's three stages over a model folder: ``run_sft``, ``run_preferences``, ``run_dpo``.

Each stage records its config, data counts, timings and training history in ``<stage>/<stage>.json``; a stage
that is done returns its record; an interrupted one resumes (generation blocks and trainer checkpoints are on
disk); a stage run again under another config is refused (use a new folder). ``base_factory`` () -> (model,
tokenizer) replaces the reference LM (tests use a tiny random Llama with the real tokenizer).
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from pathlib import Path

from authorguard.data.io import iter_jsonl, write_jsonl
from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import DPOConfig, PolicyConfig, PreferenceConfig, PromptConfig, RewardConfig, SFTConfig
from authorguard.neural.tarot.data import training_prompts
from authorguard.neural.tarot.folder import TarotFolder
from authorguard.neural.tarot.policy import PolicyLoader, tokenizer_signature
from authorguard.neural.tarot.reward import ObfuscationReward


def _machine() -> str:
    import os

    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch CPU"


def _token_counter(tokenizer) -> Callable[[str], int]:
    return lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _open_stage(folder: TarotFolder, stage: str, config, policy: PolicyConfig, loader: PolicyLoader) -> dict:
    folder.claim(policy, tokenizer_signature(loader.tokenizer))
    record = folder.read_record(stage)
    if record and record.get("config") != config.to_dict():
        raise InputError(f"TAROT folder {folder.path}: stage {stage!r} was started with another config; use a new folder "
                         f"or delete {folder.stage(stage)}")
    return record


def _read_rows(path: Path) -> list:
    rows = []
    for _, row, error in iter_jsonl(path):
        if error:
            raise InputError(f"{path}: {error} (damaged: delete the stage folder)")
        rows.append(row)
    return rows


def run_sft(path: str | Path, policy: PolicyConfig = PolicyConfig(), config: SFTConfig = SFTConfig(), *, reward=None,
            base_factory: Callable | None = None, corpora: dict | None = None, progress=None) -> dict:
    """Stage 1: SFT targets by rejection sampling from the untuned policy, then LoRA fine-tuning."""
    from authorguard.neural.tarot.sft import build_sft_data, train_sft

    folder = TarotFolder(path)
    loader = PolicyLoader(base_factory=base_factory)
    record = _open_stage(folder, "sft", config, policy, loader)
    if record.get("done"):
        return record
    data_file = folder.stage("sft") / "data.jsonl"
    if not data_file.is_file():
        started = time.perf_counter()
        prompts = training_prompts(config.prompts, _token_counter(loader.tokenizer), policy.max_chunk_tokens, corpora)
        data = build_sft_data(folder, policy, config, prompts, loader, reward or ObfuscationReward(RewardConfig()), progress)
        write_jsonl(data_file, data.pop("examples"))
        record = {"config": config.to_dict(), "prompt_sources": prompts.counts, **data,
                  "data_seconds": round(time.perf_counter() - started, 1), "machine": _machine(), "done": False}
        folder.write_record("sft", record)
    examples = _read_rows(data_file)
    started = time.perf_counter()
    history = train_sft(folder, policy, config, examples, loader())
    record.update({"history": history, "train_seconds": round(time.perf_counter() - started, 1), "done": True})
    folder.write_record("sft", record)
    return record


def run_preferences(path: str | Path, config: PreferenceConfig = PreferenceConfig(), *, reward=None,
                    base_factory: Callable | None = None, corpora: dict | None = None, progress=None) -> dict:
    """Stage 2: two rewrites per prompt from the SFT policy, scored, filtered into pairs (Algorithm 1)."""
    from authorguard.neural.tarot.dpo import build_preferences

    folder = TarotFolder(path)
    folder.require("sft", "prefs")
    policy = folder.policy_config()
    loader = PolicyLoader(folder.adapters(upto="prefs"), base_factory)
    record = _open_stage(folder, "prefs", config, policy, loader)
    if record.get("done"):
        return record
    started = time.perf_counter()
    prompts = training_prompts(config.prompts, _token_counter(loader.tokenizer), policy.max_chunk_tokens, corpora)
    data = build_preferences(folder, policy, config, prompts, loader, reward or ObfuscationReward(config.reward), progress)
    write_jsonl(folder.stage("prefs") / "pairs.jsonl", data.pop("pairs"))
    record = {"config": config.to_dict(), "prompt_sources": prompts.counts, **data,
              "seconds": round(time.perf_counter() - started, 1), "machine": _machine(), "done": True}
    folder.write_record("prefs", record)
    return record


def run_dpo(path: str | Path, config: DPOConfig = DPOConfig(), *, reward=None, monitor_prompts: int = 16,
            monitor_every: int = 5, base_factory: Callable | None = None, corpora: dict | None = None) -> dict:
    """Stage 3: DPO on the pairs, over the SFT policy; every ``monitor_every`` steps the policy rewrites
    ``monitor_prompts`` held-out prompts (after the preference stage's range) and their reward and KL to the SFT
    policy are recorded (0 = no monitoring)."""
    from authorguard.neural.tarot.dpo import PolicyMonitor, train_dpo

    folder = TarotFolder(path)
    folder.require("prefs", "dpo")
    policy = folder.policy_config()
    loader = PolicyLoader(folder.adapters(upto="dpo"), base_factory)
    record = _open_stage(folder, "dpo", config, policy, loader)
    if record.get("done"):
        return record
    prefs = folder.read_record("prefs")
    pairs = _read_rows(folder.stage("prefs") / "pairs.jsonl")
    monitor = None
    if monitor_prompts:
        used = PromptConfig.from_dict(prefs["config"]["prompts"])
        held_out = PromptConfig(prompts=monitor_prompts, offset=used.offset + used.prompts, texts_per_author=used.texts_per_author,
                                min_words=used.min_words, datasets=used.datasets, seed=used.seed)
        texts = training_prompts(held_out, _token_counter(loader.tokenizer), policy.max_chunk_tokens, corpora).texts
        monitor = PolicyMonitor(loader.tokenizer, texts, policy, reward or ObfuscationReward(RewardConfig()),
                                monitor_every, config.seed, store=folder.stage("dpo") / "monitor.jsonl")
    folder.write_record("dpo", {"config": config.to_dict(), "pairs": len(pairs), "done": False})
    started = time.perf_counter()
    history = train_dpo(folder, policy, config, pairs, loader(), monitor)
    record = {"config": config.to_dict(), "pairs": len(pairs), "history": history,
              "monitor": monitor.records if monitor is not None else [],
              "train_seconds": round(time.perf_counter() - started, 1), "machine": _machine(), "done": True}
    folder.write_record("dpo", record)
    return record
