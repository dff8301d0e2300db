"""TAROT's stages over a model folder: ``run_sft``, then ``run_preferences`` + ``run_dpo`` (TAROT-DPO) and/or
``run_ppo`` (TAROT-PPO), each over the same SFT policy.

Each stage records its config, data counts, timings and training history in ``<stage>/<stage>.json``; a stage
that is done returns its record; an interrupted one resumes (generation blocks and trainer checkpoints are on
disk); a stage run again under another config is refused (use a new folder). ``base_factory`` () -> (model,
tokenizer) replaces the reference LM (tests use a tiny random Llama with the real tokenizer).
"""

from __future__ import annotations

import dataclasses
import platform
import time
from collections.abc import Callable
from pathlib import Path

from authorguard.data.io import iter_jsonl, write_jsonl
from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import (
    DPOConfig,
    PolicyConfig,
    PPOConfig,
    PreferenceConfig,
    PromptConfig,
    RewardConfig,
    SFTConfig,
)
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
    if record and _recorded_config(type(config), record.get("config")) != config.to_dict():
        raise InputError(
            f"TAROT folder {folder.path}: stage {stage!r} was started with another config; use a new folder "
            f"or delete {folder.stage(stage)}"
        )
    return record


def _recorded_config(kind, recorded) -> dict | None:
    """A stage record's config as ``kind`` reads it today: fields added since the record was written take their
    defaults (the record was made with them), so a finished stage is not "another config" after an upgrade."""
    try:
        return kind.from_dict(recorded).to_dict()
    except (InputError, TypeError, AttributeError):
        return recorded


def _open_over_sft(path, stage: str, needs: str, config, base_factory) -> tuple:
    """(folder, policy config, loader of the SFT policy, the stage's record) for a stage that runs over the SFT
    policy once stage ``needs`` is done."""
    folder = TarotFolder(path)
    folder.require(needs, stage)
    policy = folder.policy_config()
    loader = PolicyLoader(folder.adapters("sft"), base_factory)
    return folder, policy, loader, _open_stage(folder, stage, config, policy, loader)


def _read_rows(path: Path) -> list:
    rows = []
    for _, row, error in iter_jsonl(path):
        if error:
            raise InputError(f"{path}: {error} (damaged: delete the stage folder)")
        rows.append(row)
    return rows


def run_sft(
    path: str | Path,
    policy: PolicyConfig = PolicyConfig(),
    config: SFTConfig = SFTConfig(),
    *,
    reward=None,
    base_factory: Callable | None = None,
    corpora: dict | None = None,
    progress=None,
) -> dict:
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
        data = build_sft_data(
            folder, policy, config, prompts, loader, reward or ObfuscationReward(RewardConfig()), progress
        )
        write_jsonl(data_file, data.pop("examples"))
        record = {
            "config": config.to_dict(),
            "prompt_sources": prompts.counts,
            **data,
            "data_seconds": round(time.perf_counter() - started, 1),
            "machine": _machine(),
            "done": False,
        }
        folder.write_record("sft", record)
    examples = _read_rows(data_file)
    started = time.perf_counter()
    history = train_sft(folder, policy, config, examples, loader())
    record.update({"history": history, "train_seconds": round(time.perf_counter() - started, 1), "done": True})
    folder.write_record("sft", record)
    return record


def run_preferences(
    path: str | Path,
    config: PreferenceConfig = PreferenceConfig(),
    *,
    reward=None,
    base_factory: Callable | None = None,
    corpora: dict | None = None,
    progress=None,
) -> dict:
    """Stage 2: two rewrites per prompt from the SFT policy, scored, filtered into pairs (Algorithm 1)."""
    from authorguard.neural.tarot.dpo import build_preferences

    folder, policy, loader, record = _open_over_sft(path, "prefs", "sft", config, base_factory)
    if record.get("done"):
        return record
    started = time.perf_counter()
    prompts = training_prompts(config.prompts, _token_counter(loader.tokenizer), policy.max_chunk_tokens, corpora)
    data = build_preferences(
        folder, policy, config, prompts, loader, reward or ObfuscationReward(config.reward), progress
    )
    write_jsonl(folder.stage("prefs") / "pairs.jsonl", data.pop("pairs"))
    record = {
        "config": config.to_dict(),
        "prompt_sources": prompts.counts,
        **data,
        "seconds": round(time.perf_counter() - started, 1),
        "machine": _machine(),
        "done": True,
    }
    folder.write_record("prefs", record)
    return record


def _monitor(
    folder: TarotFolder,
    stage: str,
    used: PromptConfig,
    policy: PolicyConfig,
    loader: PolicyLoader,
    reward,
    prompts: int,
    every: int,
    seed: int,
    corpora,
):
    """A :class:`PolicyMonitor` on ``prompts`` held-out prompts: those right after the stage's training range
    ``used`` (the DPO and PPO stages of a folder trained on the same range are monitored on the same texts).
    It always scores with the full reward, whatever the stage trains on, so that ablations are comparable."""
    from authorguard.neural.tarot.dpo import PolicyMonitor

    if not prompts:
        return None
    held_out = dataclasses.replace(used, prompts=prompts, offset=used.offset + used.prompts)
    texts = training_prompts(held_out, _token_counter(loader.tokenizer), policy.max_chunk_tokens, corpora).texts
    return PolicyMonitor(
        loader.tokenizer,
        texts,
        policy,
        reward or ObfuscationReward(RewardConfig()),
        every,
        seed,
        store=folder.stage(stage) / "monitor.jsonl",
    )


def run_dpo(
    path: str | Path,
    config: DPOConfig = DPOConfig(),
    *,
    reward=None,
    monitor_prompts: int = 16,
    monitor_every: int = 5,
    base_factory: Callable | None = None,
    corpora: dict | None = None,
) -> dict:
    """Stage 3: DPO on the pairs, over the SFT policy; every ``monitor_every`` steps the policy rewrites
    ``monitor_prompts`` held-out prompts (after the preference stage's range) and their reward and KL to the SFT
    policy are recorded (0 = no monitoring)."""
    from authorguard.neural.tarot.dpo import train_dpo

    folder, policy, loader, record = _open_over_sft(path, "dpo", "prefs", config, base_factory)
    if record.get("done"):
        return record
    prefs = folder.read_record("prefs")
    pairs = _read_rows(folder.stage("prefs") / "pairs.jsonl")
    monitor = _monitor(
        folder,
        "dpo",
        PromptConfig.from_dict(prefs["config"]["prompts"]),
        policy,
        loader,
        reward,
        monitor_prompts,
        monitor_every,
        config.seed,
        corpora,
    )
    folder.write_record("dpo", {"config": config.to_dict(), "pairs": len(pairs), "done": False})
    started = time.perf_counter()
    history = train_dpo(folder, policy, config, pairs, loader(), monitor)
    record = {
        "config": config.to_dict(),
        "pairs": len(pairs),
        "history": history,
        "monitor": monitor.records if monitor is not None else [],
        "train_seconds": round(time.perf_counter() - started, 1),
        "machine": _machine(),
        "done": True,
    }
    folder.write_record("dpo", record)
    return record


def run_ppo(
    path: str | Path,
    config: PPOConfig = PPOConfig(),
    *,
    reward=None,
    monitor_reward=None,
    monitor_prompts: int = 16,
    monitor_every: int = 5,
    base_factory: Callable | None = None,
    corpora: dict | None = None,
    progress=None,
) -> dict:
    """TAROT-PPO over the SFT policy: the policy rewrites ``config.prompts`` and is optimised against
    ``reward`` (default: :class:`ObfuscationReward` of ``config.reward``, so the ablation switches reach it);
    ``monitor_prompts`` held-out prompts are rewritten every ``monitor_every`` steps and scored by the full reward
    (``monitor_reward``)."""
    from authorguard.neural.tarot.ppo import train_ppo

    folder, policy, loader, record = _open_over_sft(path, "ppo", "sft", config, base_factory)
    if record.get("done"):
        return record
    prompts = training_prompts(config.prompts, _token_counter(loader.tokenizer), policy.max_chunk_tokens, corpora)
    monitor = _monitor(
        folder,
        "ppo",
        config.prompts,
        policy,
        loader,
        monitor_reward,
        monitor_prompts,
        monitor_every,
        config.seed,
        corpora,
    )
    folder.write_record("ppo", {"config": config.to_dict(), "prompts": len(prompts.texts), "done": False})
    started = time.perf_counter()
    history = train_ppo(
        folder, policy, config, prompts.texts, loader(), reward or ObfuscationReward(config.reward), monitor, progress
    )
    record = {
        "config": config.to_dict(),
        "prompts": len(prompts.texts),
        "prompt_sources": prompts.counts,
        "history": history,
        "monitor": monitor.records if monitor is not None else [],
        "train_seconds": round(time.perf_counter() - started, 1),
        "machine": _machine(),
        "done": True,
    }
    folder.write_record("ppo", record)
    return record
