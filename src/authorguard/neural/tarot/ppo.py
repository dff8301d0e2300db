"""TAROT-PPO: the SFT policy optimised by PPO against TAROT's reward, with a per-token KL penalty to the SFT policy.

References: Loiseau et al. (TAROT), Section 3.4 — R(x, y) = r(x, y) − β·KL[π_θ(y|x) ‖ π_SFT(y|x)], lr 1.47e-5,
batch 16, β 0.2, 3 epochs, top-p 1, temperature 1; Schulman et al. (2017), "Proximal Policy Optimization
Algorithms" — the clipped surrogate; Schulman et al. (2016), "High-Dimensional Continuous Control Using Generalized
Advantage Estimation" — GAE; Ziegler et al. (2019), "Fine-Tuning Language Models from Human Preferences" — the
KL-penalised per-token reward of a language policy; Huang et al. (2024), "The N+ Implementation Details of RLHF
with PPO" — whitened advantages, clipped value loss, no dropout in the policy, positions under left padding.

Why written here and not trl: current trl (1.16, used by the DPO stage) ships no PPO; trl ≤ 1.12 ships an
experimental ``PPOTrainer`` that scores the policy's token ids with a reward *model* (a sequence classifier over the
same vocabulary), while TAROT's reward is a function of the decoded texts through two other encoders (MiniLM and the
author encoder); pinning trl 1.12 would also hold the DPO stage back. The algorithm fits in one readable module.

One PPO step on a batch of B prompts:

1. rollout — π_θ samples y ~ π_θ(·|x) (≤ ``max_new_tokens``); the response is its tokens up to and including the
   first end-of-turn token;
2. score — s = r(x, clean(y)), :class:`~authorguard.neural.tarot.reward.ObfuscationReward` on the decoded text;
3. per-token rewards — r_t = −β (log π_θold(y_t|x, y_<t) − log π_SFT(y_t|x, y_<t)), plus s at the last response
   token; summed over the response the penalty is −β × a one-sample estimate of KL[π_θ ‖ π_SFT](x);
4. advantages — GAE on the value head's V(s_t): δ_t = r_t + γV_{t+1} − V_t, A_t = Σ_k (γλ)^k δ_{t+k}, returns
   G_t = A_t + V_t; A whitened over the batch's response tokens;
5. optimisation — ``ppo_epochs`` passes over the rollouts in shuffled minibatches:
   L = mean_t max(−A_t ρ_t, −A_t clip(ρ_t, 1 − ε, 1 + ε)) + c_v · ½ mean_t max((V_t − G_t)², (Ṽ_t − G_t)²),
   ρ_t = π_θ(y_t|·)/π_θold(y_t|·), Ṽ_t = V_old + clip(V_t − V_old, ±ε_v).

The policy is the merged SFT model with a fresh LoRA adapter; the reference π_SFT is the same model with the adapter
disabled (no second copy). The value function is a small MLP on the policy's last hidden states, *detached*: trl's
PPO trains a separate value network (a whole second LM), which would double the compute on 2 CPU cores, and a value
loss flowing into the 1.8 M-parameter adapter would compete with the policy gradient. Dropout stays off (eval
mode) so that ρ = 1 exactly before the first update.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import PolicyConfig, PPOConfig
from authorguard.neural.tarot.folder import TarotFolder
from authorguard.utils.weights import require_torch

if TYPE_CHECKING:
    from authorguard.neural.tarot.reward import RewardBreakdown

require_torch()  # where torch is missing, fail naming the extra to install

import torch  # noqa: E402
from torch import nn  # noqa: E402

# --- the algorithm's pieces: pure functions on (B, T) tensors; mask = 1 on response tokens -------------------------


def masked_mean(values, mask):
    """Mean of ``values`` over the positions where ``mask`` is 1 (a scalar tensor)."""
    return (values * mask).sum() / mask.sum().clamp(min=1)


def whiten(values, mask, shift_mean: bool = True):
    """(values − mean) / std over the masked positions (the mean is added back when ``shift_mean`` is False)."""
    mean = masked_mean(values, mask)
    variance = masked_mean((values - mean) ** 2, mask)
    out = (values - mean) * torch.rsqrt(variance + 1e-8)
    return (out if shift_mean else out + mean) * mask


def kl_penalised_rewards(scores, logprobs, ref_logprobs, mask, kl_coef: float):
    """Per-token rewards, shape (B, T): −kl_coef·(logπ_θ − logπ_ref) at every response token, plus ``scores`` (B,)
    at each row's last response token. Returns (rewards, per-token log-ratio)."""
    log_ratio = (logprobs - ref_logprobs) * mask
    rewards = -kl_coef * log_ratio
    last = last_positions(mask)
    rewards[torch.arange(len(scores)), last] += scores.to(rewards.dtype)
    return rewards, log_ratio


def last_positions(mask):
    """Index of each row's last masked position, shape (B,) (0 for an empty row)."""
    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    return (positions * (mask > 0)).max(dim=1).values


def generalised_advantages(rewards, values, mask, gamma: float, lam: float):
    """GAE over each row's response (positions with mask 0 end the episode): (advantages, returns), shape (B, T)."""
    rewards, values = rewards * mask, values * mask
    advantages = torch.zeros_like(rewards)
    running = torch.zeros(rewards.shape[0], dtype=rewards.dtype, device=rewards.device)
    steps = rewards.shape[1]
    for t in reversed(range(steps)):
        following = mask[:, t + 1] if t + 1 < steps else torch.zeros_like(running)
        next_value = values[:, t + 1] * following if t + 1 < steps else torch.zeros_like(running)
        delta = rewards[:, t] + gamma * next_value - values[:, t]
        running = delta + gamma * lam * following * running
        advantages[:, t] = running
    advantages = advantages * mask
    return advantages, (advantages + values) * mask


def clipped_policy_loss(logprobs, old_logprobs, advantages, mask, clip_range: float):
    """PPO's clipped surrogate (to minimise): mean over response tokens of max(−Aρ, −A clip(ρ, 1±ε)).
    Returns (loss, share of tokens where the clip is active, approximate KL(old‖new) = mean ½(log ρ)²)."""
    log_ratio = logprobs - old_logprobs
    ratio = torch.exp(log_ratio)
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - clip_range, 1.0 + clip_range)
    loss = masked_mean(torch.maximum(unclipped, clipped), mask)
    clip_fraction = masked_mean((clipped > unclipped).float(), mask)
    approx_kl = masked_mean(0.5 * log_ratio**2, mask)
    return loss, clip_fraction.detach(), approx_kl.detach()


def clipped_value_loss(values, old_values, returns, mask, clip_range: float):
    """½ mean max((V − G)², (V_old + clip(V − V_old, ±ε) − G)²); returns (loss, share of tokens clipped)."""
    clipped_values = old_values + torch.clamp(values - old_values, -clip_range, clip_range)
    plain, clipped = (values - returns) ** 2, (clipped_values - returns) ** 2
    return 0.5 * masked_mean(torch.maximum(plain, clipped), mask), masked_mean((clipped > plain).float(), mask).detach()


# --- the model side ------------------------------------------------------------------------------------------------


class ValueHead(nn.Module):
    """V(s_t) from the policy's last hidden state at t (detached): (B, T, H) -> (B, T)."""

    def __init__(self, hidden_size: int, width: int = 256) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(hidden_size, width), nn.Tanh(), nn.Linear(width, 1))
        nn.init.zeros_(self.net[2].weight)  # V = 0 at the start: the first advantages are the returns themselves
        nn.init.zeros_(self.net[2].bias)

    def forward(self, hidden):
        return self.net(hidden.detach().float())[..., 0]


def response_stats(model, value_head, sequences, attention_mask, prompt_width: int, temperature: float = 1.0):
    """One forward pass over prompt + response: the response tokens' log-probabilities under ``model`` (logits
    divided by ``temperature``, the sampling distribution), the value head's estimates and the per-token entropy,
    each shape (B, T). Positions follow the attention mask (left padding), as in generation."""
    position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
    out = model(
        input_ids=sequences,
        attention_mask=attention_mask,
        position_ids=position_ids,
        output_hidden_states=value_head is not None,
    )
    logits = out.logits[:, prompt_width - 1 : -1].float() / temperature
    log_softmax = torch.log_softmax(logits, dim=-1)
    logprobs = log_softmax.gather(-1, sequences[:, prompt_width:, None])[..., 0]
    entropy = -(log_softmax.exp() * log_softmax).sum(-1)
    values = value_head(out.hidden_states[-1][:, prompt_width - 1 : -1]) if value_head is not None else None
    return logprobs, values, entropy


@dataclass
class Rollouts:
    """One batch of rollouts. ``sequences`` (B, P + T) = left-padded prompt + response (padding after the
    end-of-turn token); ``attention_mask`` likewise; ``mask`` (B, T) = 1 on response tokens; ``logprobs``,
    ``ref_logprobs``, ``values`` (B, T) at sampling time; ``scores`` (B,) the reward; ``breakdown`` its terms."""

    sequences: torch.Tensor
    attention_mask: torch.Tensor
    prompt_width: int
    mask: torch.Tensor
    logprobs: torch.Tensor
    ref_logprobs: torch.Tensor
    values: torch.Tensor
    scores: torch.Tensor
    breakdown: RewardBreakdown
    texts: list[str]

    def __len__(self) -> int:
        return self.sequences.shape[0]


def collect_rollouts(
    model,
    value_head,
    tokenizer,
    originals: Sequence[str],
    prompts: Sequence[str],
    reward,
    policy: PolicyConfig,
    config: PPOConfig,
    seed: int,
    micro_batch_size: int,
) -> Rollouts:
    """Sample one response per prompt from ``model`` (a peft model; its adapter disabled = the reference) and score
    it; ``value_head`` None leaves the values at 0 (evaluation only)."""
    from authorguard.generation import NucleusSampler
    from authorguard.generation.batched import BatchedDecoder
    from authorguard.neural.tarot.prompts import clean_rewrite

    # Sampled by the fast engine over a merged copy of the policy in float32: the same distribution as the policy
    # whose log-probabilities the PPO ratio uses (bfloat16 sampling would make the rollouts slightly off-policy).
    engine = BatchedDecoder(model, tokenizer, dtype="float32", device="cpu")
    out = engine.generate(
        prompts,
        max_new_tokens=policy.max_new_tokens,
        seed=seed,
        batch_size=len(prompts),
        sampler=NucleusSampler(config.temperature, config.top_p),
    )
    del engine
    batch = tokenizer(list(prompts), return_tensors="pt", padding=True, add_special_tokens=False)
    token_ids = out.token_ids
    assert token_ids is not None  # GenerationEngine.generate always gives the generated ids
    width_new = max(len(row) for row in token_ids)
    new = torch.full((len(prompts), width_new), tokenizer.pad_token_id, dtype=torch.long)
    mask = torch.zeros(new.shape, dtype=torch.float32)
    texts = []
    for i, row in enumerate(token_ids):  # each row ends at the end-of-turn token: the policy's choice too
        new[i, : len(row)] = torch.tensor(row)
        mask[i, : len(row)] = 1.0
        texts.append(clean_rewrite(out.texts[i]))
    sequences = torch.cat([batch["input_ids"], new], dim=1)
    attention_mask = torch.cat([batch["attention_mask"], mask.long()], dim=1)
    width = batch["input_ids"].shape[1]
    parts: dict[str, list[torch.Tensor]] = {"logprobs": [], "values": [], "ref": []}
    with torch.no_grad():
        for begin in range(0, len(prompts), micro_batch_size):
            rows = slice(begin, begin + micro_batch_size)
            logprobs, values, _ = response_stats(
                model, value_head, sequences[rows], attention_mask[rows], width, config.temperature
            )
            with model.disable_adapter():
                ref, _, _ = response_stats(
                    model, None, sequences[rows], attention_mask[rows], width, config.temperature
                )
            parts["logprobs"].append(logprobs)
            parts["values"].append(values if values is not None else torch.zeros_like(logprobs))
            parts["ref"].append(ref)
    breakdown = reward(list(originals), texts)
    return Rollouts(
        sequences,
        attention_mask,
        width,
        mask,
        torch.cat(parts["logprobs"]) * mask,
        torch.cat(parts["ref"]) * mask,
        torch.cat(parts["values"]) * mask,
        torch.as_tensor(breakdown.total, dtype=torch.float32),
        breakdown,
        texts,
    )


def ppo_update(model, value_head, optimizer, rollouts: Rollouts, config: PPOConfig, generator) -> dict:
    """Advantages of ``rollouts`` and ``ppo_epochs`` passes of clipped-PPO minibatch updates; returns the means of
    the step's statistics. ``generator``: numpy Generator for the minibatch order."""
    rewards, log_ratio = kl_penalised_rewards(
        rollouts.scores, rollouts.logprobs, rollouts.ref_logprobs, rollouts.mask, config.kl_coef
    )
    advantages, returns = generalised_advantages(rewards, rollouts.values, rollouts.mask, config.gamma, config.lam)
    advantages = whiten(advantages, rollouts.mask)
    trainable = [p for p in model.parameters() if p.requires_grad] + list(value_head.parameters())
    log: dict = {
        k: [] for k in ("policy_loss", "value_loss", "clip_fraction", "value_clip_fraction", "approx_kl", "entropy")
    }
    accumulation = config.mini_batch_size // config.micro_batch_size
    for _ in range(config.ppo_epochs):
        order = generator.permutation(len(rollouts))
        for begin in range(0, len(order), config.mini_batch_size):
            optimizer.zero_grad(set_to_none=True)
            members = order[begin : begin + config.mini_batch_size]
            for start in range(0, len(members), config.micro_batch_size):
                rows = torch.as_tensor(members[start : start + config.micro_batch_size])
                mask = rollouts.mask[rows]
                logprobs, values, entropy = response_stats(
                    model,
                    value_head,
                    rollouts.sequences[rows],
                    rollouts.attention_mask[rows],
                    rollouts.prompt_width,
                    config.temperature,
                )
                policy_loss, clip_fraction, approx_kl = clipped_policy_loss(
                    logprobs, rollouts.logprobs[rows], advantages[rows], mask, config.clip_range
                )
                value_loss, value_clip = clipped_value_loss(
                    values, rollouts.values[rows], returns[rows], mask, config.clip_range_value
                )
                ((policy_loss + config.value_coef * value_loss) / accumulation).backward()
                for key, value in (
                    ("policy_loss", policy_loss),
                    ("value_loss", value_loss),
                    ("clip_fraction", clip_fraction),
                    ("value_clip_fraction", value_clip),
                    ("approx_kl", approx_kl),
                    ("entropy", masked_mean(entropy.detach(), mask)),
                ):
                    log[key].append(float(value.detach()))
            torch.nn.utils.clip_grad_norm_(trainable, config.max_grad_norm)
            optimizer.step()
    kl = log_ratio.sum(1)
    stats = {k: float(np.mean(v)) for k, v in log.items()}
    stats.update(
        {
            "score": float(rollouts.scores.mean()),
            **_prefixed(rollouts.breakdown.summary()),
            "kl": float(kl.mean()),
            "non_score_reward": float((-config.kl_coef * kl).mean()),
            "new_tokens": float(rollouts.mask.sum(1).mean()),
            "returns": float(masked_mean(returns, rollouts.mask)),
            "value_mean": float(masked_mean(rollouts.values, rollouts.mask)),
        }
    )
    return stats


def _prefixed(summary: dict) -> dict:
    return {f"rollout_{k}": v for k, v in summary.items()}


# --- the loop: checkpointed, resumable ------------------------------------------------------------------------------


def _save_checkpoint(directory: Path, model, value_head, optimizer, step: int, history: list) -> None:
    staging = directory.with_name(directory.name + ".partial")
    if staging.exists():
        import shutil

        shutil.rmtree(staging)
    model.save_pretrained(str(staging / "adapter"))
    torch.save(
        {"value_head": value_head.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, staging / "state.pt"
    )
    (staging / "history.json").write_text(json.dumps(history), encoding="utf-8")
    if directory.exists():
        import shutil

        shutil.rmtree(directory)
    staging.replace(directory)


def _load_checkpoint(directory: Path, model, value_head, optimizer) -> tuple[int, list]:
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    try:
        set_peft_model_state_dict(model, load_file(str(directory / "adapter" / "adapter_model.safetensors")))
        state = torch.load(directory / "state.pt", weights_only=True)
        value_head.load_state_dict(state["value_head"])
        optimizer.load_state_dict(state["optimizer"])
        return int(state["step"]), json.loads((directory / "history.json").read_text(encoding="utf-8"))
    except (OSError, KeyError, RuntimeError, ValueError) as error:
        raise InputError(
            f"TAROT PPO checkpoint {directory} is damaged ({type(error).__name__}): delete it to restart"
        ) from None


def train_ppo(
    folder: TarotFolder,
    policy: PolicyConfig,
    config: PPOConfig,
    texts: Sequence[str],
    base,
    reward,
    monitor=None,
    progress=None,
) -> list:
    """PPO over ``base`` (the merged SFT policy) on the prompts ``texts``; a checkpoint (adapter, value head,
    optimiser, step, history) every ``checkpoint_every`` steps in ``ppo/checkpoint`` is resumed from; the adapter
    goes to ``ppo/adapter`` and the value head to ``ppo/value_head.pt``. Each step's rollouts are seeded by
    (``seed``, step) and the prompt order by (``seed``, epoch), so a resumed run continues as the uninterrupted one.
    Returns one dict of statistics per step."""
    from authorguard.neural.tarot.policy import add_adapter
    from authorguard.neural.tarot.prompts import render_prompt

    if not texts:
        raise InputError("TAROT PPO: no training prompt")
    model, tokenizer = base
    model = add_adapter(model, policy, config.seed)
    model.eval()  # no dropout: the ratio π_θ/π_θold is exactly 1 before the first update
    torch.manual_seed(config.seed)
    value_head = ValueHead(model.config.hidden_size)
    optimizer = torch.optim.AdamW(
        [
            {"params": [p for p in model.parameters() if p.requires_grad], "lr": config.learning_rate},
            {"params": list(value_head.parameters()), "lr": config.value_learning_rate},
        ],
        weight_decay=0.0,
    )
    rendered = [render_prompt(tokenizer, policy.instruction, t) for t in texts]
    stage = folder.stage("ppo")
    checkpoint = stage / "checkpoint"
    step, history = _load_checkpoint(checkpoint, model, value_head, optimizer) if checkpoint.is_dir() else (0, [])
    steps_per_epoch = -(-len(texts) // config.batch_size)
    total = config.epochs * steps_per_epoch
    if monitor is not None and not any(r["step"] == step for r in monitor.records):
        monitor.check(model, step)
    while step < total:
        started = time.perf_counter()
        epoch, index = divmod(step, steps_per_epoch)
        order = np.random.default_rng([config.seed, epoch]).permutation(len(texts))
        members = order[index * config.batch_size : (index + 1) * config.batch_size]
        rollouts = collect_rollouts(
            model,
            value_head,
            tokenizer,
            [texts[i] for i in members],
            [rendered[i] for i in members],
            reward,
            policy,
            config,
            seed=config.seed * 100003 + step,
            micro_batch_size=config.micro_batch_size,
        )
        stats = ppo_update(
            model, value_head, optimizer, rollouts, config, np.random.default_rng([config.seed, step, 1])
        )
        step += 1
        history.append({"step": step, "epoch": epoch, **stats, "seconds": round(time.perf_counter() - started, 1)})
        if monitor is not None and (step % monitor.every == 0 or step == total):
            monitor.check(model, step)
        if step % config.checkpoint_every == 0 or step == total:
            _save_checkpoint(checkpoint, model, value_head, optimizer, step, history)
        if progress is not None:
            progress(step, total)
    model.save_pretrained(str(stage / "adapter"))
    torch.save(value_head.state_dict(), stage / "value_head.pt")
    return history
