"""TAROT's SFT policy: teaching SmolLM2-135M-Instruct to rewrite, by rejection-sampling fine-tuning.

The paper starts from Keep-It-Simple (GPT2-medium fine-tuned for simplification), which cannot be had offline.
Asked with TAROT's prompt, the untuned 135M model often comments on the text instead of rewriting it
(../shared/FACTS.md), but some of its samples are real rewrites. So: sample ``candidates`` rewrites per training
prompt, keep those that read as rewrites (:func:`rewrite_problem`: the validity gate of
:mod:`authorguard.text.validity` with the stage's copy, length and invention limits; MiniLM cosine ≥
``min_utility``), take the one with the highest TAROT reward, and fine-tune a LoRA adapter on (prompt -> kept
rewrite), the loss on the rewrite's tokens only (trl's ``SFTTrainer``,
prompt-completion data). This is the model's own behaviour, filtered (ReST / STaR-style), not another model's.
"""

from __future__ import annotations

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import PolicyConfig, SFTConfig
from authorguard.neural.tarot.folder import TarotFolder
from authorguard.neural.tarot.policy import PolicyLoader
from authorguard.text.validity import REASONS, GateConfig, RewriteGate


def sft_gate(config: SFTConfig, instruction: str | None = None) -> RewriteGate:
    """The validity gate with the SFT stage's own copy, length and invention limits."""
    limits = GateConfig(
        max_copy=config.max_copy,
        min_length_ratio=config.min_length_ratio,
        max_length_ratio=config.max_length_ratio,
        max_invented=config.max_invented,
    )
    return RewriteGate(limits, instruction)


def rewrite_problem(original: str, rewrite: str, config: SFTConfig, instruction: str | None = None) -> str | None:
    """Why ``rewrite`` is not a usable SFT target (a reason of :data:`~authorguard.text.validity.REASONS`), or None."""
    return sft_gate(config, instruction).problem(original, rewrite)


def select_targets(
    originals: list,
    candidates: list,
    utility: np.ndarray,
    total: np.ndarray,
    config: SFTConfig,
    instruction: str | None = None,
) -> tuple[list, dict]:
    """Per prompt, the usable candidate with the highest total reward (None when none is usable), and the counts of
    why candidates were refused. ``utility`` and ``total`` are flat arrays over (prompt, candidate)."""
    reasons = dict.fromkeys(REASONS + ("utility", "kept"), 0)
    gate = sft_gate(config, instruction)
    targets, flat = [], 0
    for original, mine in zip(originals, candidates):
        best, best_score = None, -np.inf
        for text in mine:
            problem = gate.problem(original, text)
            if problem is None and utility[flat] < config.min_utility:
                problem = "utility"
            if problem is None:
                reasons["kept"] += 1
                if total[flat] > best_score:
                    best, best_score = text, total[flat]
            else:
                reasons[problem] += 1
            flat += 1
        targets.append(best)
    return targets, reasons


def build_sft_data(
    folder: TarotFolder,
    policy: PolicyConfig,
    config: SFTConfig,
    prompts,
    load_policy: PolicyLoader,
    reward,
    progress=None,
) -> dict:
    """Sample candidates for ``prompts`` (a :class:`~authorguard.neural.tarot.data.TrainingPrompts`), score and
    select them (the untuned policy samples: ``load_policy`` loads it only if a block is missing); returns the SFT
    examples and the counts (also written to the stage record)."""
    from authorguard.neural.tarot.prompts import render_prompt
    from authorguard.neural.tarot.sampling import sample_rewrites

    tokenizer = load_policy.tokenizer
    rendered = [render_prompt(tokenizer, policy.instruction, text) for text in prompts.texts]
    samples = sample_rewrites(
        folder.stage("sft") / "candidates",
        rendered,
        config.candidates,
        load_policy,
        seed=config.seed,
        max_new_tokens=policy.max_new_tokens,
        temperature=config.temperature,
        top_p=config.top_p,
        block_size=max(1, config.generation_batch_size // config.candidates),
        progress=progress,
    )
    originals = [t for t, mine in zip(prompts.texts, samples.texts) for _ in mine]
    flat = [c for mine in samples.texts for c in mine]
    scores = reward(originals, flat)
    targets, reasons = select_targets(
        prompts.texts, samples.texts, scores.utility, scores.total, config, policy.instruction
    )
    examples = [
        {"text": text, "author": author, "target": target}
        for text, author, target in zip(prompts.texts, prompts.authors, targets)
        if target is not None
    ]
    if not examples:
        raise InputError("TAROT SFT: no candidate passed the filter; raise candidates or loosen min_utility / max_copy")
    return {
        "examples": examples,
        "candidates": reasons,
        "prompts": len(prompts.texts),
        "examples_kept": len(examples),
        "candidate_reward": scores.summary(),
        "generation": {
            "new_tokens": samples.new_tokens,
            "seconds": round(samples.seconds, 1),
            "tokens_per_second": round(samples.tokens_per_second, 1),
        },
    }


def chat_examples(policy: PolicyConfig, examples: list) -> list:
    """trl's conversational prompt-completion rows: the user turn (instruction + text), the assistant's target."""
    return [
        {
            "prompt": [{"role": "user", "content": f"{policy.instruction}\n\n{e['text']}"}],
            "completion": [{"role": "assistant", "content": e["target"]}],
        }
        for e in examples
    ]


def train_sft(folder: TarotFolder, policy: PolicyConfig, config: SFTConfig, examples: list, base, callbacks=()) -> list:
    """LoRA fine-tuning on ``examples`` with trl's ``SFTTrainer`` (loss on the completion tokens), checkpointed in
    ``sft/checkpoints`` and resumed from the last checkpoint; the adapter is saved to ``sft/adapter``. Returns
    the trainer's log history."""
    from authorguard.neural.tarot.policy import add_adapter
    from authorguard.neural.tarot.trl_support import resume_point, run_trainer

    try:
        from datasets import Dataset
        from trl import SFTConfig as TrlSFTConfig
        from trl import SFTTrainer
    except ImportError:
        raise InputError("TAROT training needs trl: pip install 'authorguard[tarot]'") from None
    model, tokenizer = base
    model = add_adapter(model, policy, config.seed)
    checkpoints = folder.stage("sft") / "checkpoints"
    args = TrlSFTConfig(
        output_dir=str(checkpoints),
        num_train_epochs=config.epochs,
        per_device_train_batch_size=config.batch_size,
        gradient_accumulation_steps=config.gradient_accumulation,
        learning_rate=config.learning_rate,
        lr_scheduler_type="linear",
        warmup_steps=0,
        logging_steps=1,
        save_steps=config.checkpoint_every,
        save_total_limit=2,
        report_to=[],
        seed=config.seed,
        data_seed=config.seed,
        use_cpu=True,
        max_length=policy.max_sequence_tokens,
        completion_only_loss=True,
        dataloader_num_workers=0,
        disable_tqdm=True,
        gradient_checkpointing=False,
    )
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(chat_examples(policy, examples)),
        processing_class=tokenizer,
        callbacks=list(callbacks),
    )
    history = run_trainer(trainer, resume_point(checkpoints))
    trainer.model.save_pretrained(str(folder.stage("sft") / "adapter"))
    return history
