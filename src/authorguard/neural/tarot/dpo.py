"""TAROT-DPO: preference pairs from the SFT policy (the paper's Algorithm 1) and DPO with trl's ``DPOTrainer``.

The reference policy is the SFT policy: its adapter is merged into the weights and DPO trains a new LoRA adapter on
top, so trl takes the reference as the same model with the adapter disabled. A :class:`PolicyMonitor` samples
rewrites of held-out prompts every few steps and logs the reward components and the KL divergence to the SFT
policy (Monte-Carlo: the mean over samples y ~ π_θ of log π_θ(y|x) − log π_SFT(y|x), in nats per rewrite).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import DPOConfig, PolicyConfig, PreferenceConfig
from authorguard.neural.tarot.folder import TarotFolder
from authorguard.neural.tarot.pairs import preference_pairs
from authorguard.neural.tarot.policy import PolicyLoader
from authorguard.neural.tarot.prompts import render_prompt
from authorguard.utils.weights import require_torch


def sample_preference_rewrites(
    folder: TarotFolder, policy: PolicyConfig, config: PreferenceConfig, texts, load_policy: PolicyLoader, progress=None
):
    """Two SFT-policy rewrites of each text, stored block by block in ``prefs/generations`` (read back when
    there)."""
    from authorguard.neural.tarot.sampling import sample_rewrites

    rendered = [render_prompt(load_policy.tokenizer, policy.instruction, text) for text in texts]
    return sample_rewrites(
        folder.stage("prefs") / "generations",
        rendered,
        2,
        load_policy,
        seed=config.seed,
        max_new_tokens=policy.max_new_tokens,
        temperature=config.temperature,
        top_p=config.top_p,
        block_size=max(1, config.generation_batch_size // 2),
        progress=progress,
    )


def build_preferences(
    folder: TarotFolder,
    policy: PolicyConfig,
    config: PreferenceConfig,
    prompts,
    load_policy: PolicyLoader,
    reward,
    progress=None,
) -> dict:
    """Two rewrites per prompt from the SFT policy, scored, filtered into pairs; returns the pairs and the counts."""
    samples = sample_preference_rewrites(folder, policy, config, prompts.texts, load_policy, progress)
    left = [pair[0] for pair in samples.texts]
    right = [pair[1] for pair in samples.texts]
    left_reward, right_reward = reward(prompts.texts, left), reward(prompts.texts, right)
    pairs = preference_pairs(
        prompts.texts,
        left,
        right,
        left_reward,
        right_reward,
        config.epsilon_privacy,
        config.epsilon_utility,
        config.validity_pairs,
    )
    rows = [
        {"text": text, "chosen": chosen, "rejected": rejected}
        for text, chosen, rejected in zip(pairs.prompts, pairs.chosen, pairs.rejected)
    ]
    stats = pairs.stats()
    if config.max_pairs and len(rows) > config.max_pairs:
        keep = np.sort(np.random.default_rng(config.seed).choice(len(rows), config.max_pairs, replace=False))
        rows = [rows[i] for i in keep]
        stats["kept_after_cap"] = len(rows)
    both = {k: (left_reward.summary()[k] + right_reward.summary()[k]) / 2 for k in ("reward", "utility", "privacy")}
    return {
        "pairs": rows,
        "filter": stats,
        "sft_reward": both,
        "generation": {
            "new_tokens": samples.new_tokens,
            "seconds": round(samples.seconds, 1),
            "tokens_per_second": round(samples.tokens_per_second, 1),
        },
    }


def sequence_log_probs(
    model, tokenizer, prompts: Sequence[str], completions: Sequence[str], batch_size: int = 8
) -> np.ndarray:
    """log π(completion | prompt) summed over the completion's tokens (natural log), shape (n,). Prompts are
    chat-formatted; each completion is followed by the end-of-turn token, as the policy would write it."""
    torch = require_torch()
    out = np.zeros(len(prompts))
    with torch.inference_mode():
        for begin in range(0, len(prompts), batch_size):
            rows, starts = [], []
            for prompt, completion in zip(prompts[begin : begin + batch_size], completions[begin : begin + batch_size]):
                head = tokenizer(prompt, add_special_tokens=False)["input_ids"]
                tail = tokenizer(completion, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
                rows.append(head + tail)
                starts.append(len(head))
            width = max(map(len, rows))
            ids = torch.full((len(rows), width), tokenizer.pad_token_id, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for i, row in enumerate(rows):  # right padding: positions stay those of an unpadded forward pass
                ids[i, : len(row)] = torch.tensor(row)
                mask[i, : len(row)] = 1
            logits = model(input_ids=ids, attention_mask=mask).logits.float()
            logp = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, ids[:, 1:, None])[..., 0]
            for i, (row, start) in enumerate(zip(rows, starts)):
                out[begin + i] = float(logp[i, start - 1 : len(row) - 1].sum())
    return out


class PolicyMonitor:
    """Every ``every`` optimiser steps (and at the start and the end), samples one rewrite of each monitor prompt
    from the policy being trained and records its reward components and its KL to the reference policy (the same
    peft model with the adapter disabled). ``records``: one dict per check, also appended to ``store`` (a JSON-lines
    file; the records of an interrupted run are read back from it)."""

    def __init__(
        self, tokenizer, texts: Sequence[str], policy: PolicyConfig, reward, every: int, seed: int, store=None
    ) -> None:
        self.tokenizer = tokenizer
        self.texts = list(texts)
        self.rendered = [render_prompt(tokenizer, policy.instruction, t) for t in self.texts]
        self.policy = policy
        self.reward = reward
        self.every = every
        self.seed = seed
        self.store = store
        self.records: list = []
        if store is not None and store.is_file():
            self.records = [json.loads(line) for line in store.read_text(encoding="utf-8").splitlines() if line.strip()]

    def check(self, model, step: int) -> dict:
        from authorguard.neural.tarot.policy import generate
        from authorguard.neural.tarot.prompts import clean_rewrite

        was_training = model.training
        model.eval()
        out = generate(
            model,
            self.tokenizer,
            self.rendered,
            max_new_tokens=self.policy.max_new_tokens,
            seed=self.seed,
            batch_size=len(self.rendered),
        )
        policy_lp = sequence_log_probs(model, self.tokenizer, self.rendered, out.texts)
        with model.disable_adapter():
            reference_lp = sequence_log_probs(model, self.tokenizer, self.rendered, out.texts)
        scores = self.reward(self.texts, [clean_rewrite(t) for t in out.texts])
        record = {
            "step": step,
            **scores.summary(),
            "kl": float(np.mean(policy_lp - reference_lp)),
            "new_tokens": float(np.mean(out.new_tokens)),
        }
        self.records.append(record)
        if self.store is not None:
            self.store.parent.mkdir(parents=True, exist_ok=True)
            with open(self.store, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")
        if was_training:
            model.train()
        return record

    def callback(self):
        """A transformers ``TrainerCallback`` that runs :meth:`check` on schedule."""
        from transformers import TrainerCallback

        monitor = self

        class _Callback(TrainerCallback):
            def on_train_begin(self, args, state, control, model=None, **kwargs):
                if not any(r["step"] == state.global_step for r in monitor.records):
                    monitor.check(model, state.global_step)

            def on_step_end(self, args, state, control, model=None, **kwargs):
                if state.global_step % monitor.every == 0 or state.global_step == state.max_steps:
                    monitor.check(model, state.global_step)

        return _Callback()


def _loss_terms(config: DPOConfig) -> dict:
    """trl's loss arguments: the sigmoid DPO loss alone (the paper), or with the chosen side's per-token NLL
    weighted by ``sft_weight`` (trl's ``"sft"`` loss term; RPO)."""
    if not config.sft_weight:
        return {"loss_type": ["sigmoid"]}
    return {"loss_type": ["sigmoid", "sft"], "loss_weights": [1.0, float(config.sft_weight)]}


def train_dpo(folder: TarotFolder, policy: PolicyConfig, config: DPOConfig, pairs: list, base, monitor=None) -> list:
    """DPO on ``pairs`` (rows of text / chosen / rejected) over ``base`` (the SFT policy, merged), checkpointed in
    ``dpo/checkpoints`` and resumed; the adapter goes to ``dpo/adapter``. Returns trl's log history."""
    from authorguard.neural.tarot.policy import add_adapter
    from authorguard.neural.tarot.trl_support import resume_point, run_trainer

    try:
        from datasets import Dataset
        from trl import DPOConfig as TrlDPOConfig
        from trl import DPOTrainer
    except ImportError:
        raise InputError("TAROT training needs trl: pip install 'authorguard[tarot]'") from None
    if not pairs:
        raise InputError(
            "TAROT DPO: no preference pair (the filter kept none): build more prompts or loosen the epsilons"
        )
    model, tokenizer = base
    model = add_adapter(model, policy, config.seed)
    rows = [
        {
            "prompt": [{"role": "user", "content": f"{policy.instruction}\n\n{p['text']}"}],
            "chosen": [{"role": "assistant", "content": p["chosen"]}],
            "rejected": [{"role": "assistant", "content": p["rejected"]}],
        }
        for p in pairs
    ]
    checkpoints = folder.stage("dpo") / "checkpoints"
    args = TrlDPOConfig(
        output_dir=str(checkpoints),
        num_train_epochs=config.epochs,
        per_device_train_batch_size=config.micro_batch_size,
        gradient_accumulation_steps=config.batch_size // config.micro_batch_size,
        max_steps=config.max_steps or -1,
        precompute_ref_log_probs=config.precompute_reference,
        learning_rate=config.learning_rate,
        beta=config.beta,
        lr_scheduler_type="linear",
        warmup_steps=0,
        **_loss_terms(config),
        logging_steps=1,
        save_steps=config.checkpoint_every,
        save_total_limit=2,
        report_to=[],
        seed=config.seed,
        data_seed=config.seed,
        use_cpu=True,
        max_length=policy.max_sequence_tokens,
        dataloader_num_workers=0,
        disable_tqdm=True,
        gradient_checkpointing=False,
    )
    callbacks = [monitor.callback()] if monitor is not None else []
    trainer = DPOTrainer(
        model=model, args=args, train_dataset=Dataset.from_list(rows), processing_class=tokenizer, callbacks=callbacks
    )
    history = run_trainer(trainer, resume_point(checkpoints))
    trainer.model.save_pretrained(str(folder.stage("dpo") / "adapter"))
    return history
