"""TAROT-PPO: the algorithm's pieces on hand-made tensors, a toy reward that PPO must raise, the stage end to end."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.neural.tarot.config import PolicyConfig, PPOConfig

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from authorguard.neural.tarot.ppo import (  # noqa: E402
    clipped_policy_loss,
    clipped_value_loss,
    generalised_advantages,
    kl_penalised_rewards,
    whiten,
)


def _t(rows):
    return torch.tensor(rows, dtype=torch.float32)


def _close(tensor, expected):
    np.testing.assert_allclose(tensor.detach().numpy(), np.array(expected, dtype=float), atol=1e-6)


def test_advantages_on_a_hand_computed_trajectory():
    rewards = _t([[0.0, 0.0, 1.0], [0.5, 2.0, 0.0]])
    values = _t([[0.1, 0.2, 0.3], [0.5, 0.4, 9.0]])  # 9.0 sits after row 2's end and must not leak in
    mask = _t([[1, 1, 1], [1, 1, 0]])
    advantages, returns = generalised_advantages(rewards, values, mask, gamma=0.9, lam=0.8)
    # by hand: δ_t = r_t + γ V_{t+1} − V_t, A_t = δ_t + γλ A_{t+1}, the episode ends at the mask's last 1
    row1 = [0.08 + 0.72 * (0.07 + 0.72 * 0.7), 0.07 + 0.72 * 0.7, 0.7]
    row2 = [0.36 + 0.72 * 1.6, 1.6, 0.0]
    _close(advantages, [row1, row2])
    _close(returns, [[a + v for a, v in zip(row1, [0.1, 0.2, 0.3])], [row2[0] + 0.5, 2.0, 0.0]])
    # γ = λ = 1: the advantage is the Monte-Carlo return minus the value
    advantages, returns = generalised_advantages(rewards, values, mask, gamma=1.0, lam=1.0)
    _close(advantages, [[0.9, 0.8, 0.7], [2.0, 1.6, 0.0]])
    _close(returns, [[1.0, 1.0, 1.0], [2.5, 2.0, 0.0]])


def test_the_kl_term_penalises_tokens_the_policy_likes_more_than_the_reference():
    mask = _t([[1, 1, 1, 0], [1, 1, 0, 0]])
    logprobs = _t([[-1.0, -2.0, -0.5, -7.0], [-1.0, -1.0, -3.0, -3.0]])
    reference = _t([[-2.0, -2.0, -0.1, -1.0], [-1.0, -1.0, -0.2, -0.2]])
    rewards, log_ratio = kl_penalised_rewards(_t([3.0, -1.0]), logprobs, reference, mask, kl_coef=0.2)
    # token 0 of row 1: the policy is more likely than the reference -> negative reward; token 2: less -> positive
    assert rewards[0, 0] == pytest.approx(-0.2) and rewards[0, 1] == pytest.approx(0.0)
    assert rewards[0, 2] == pytest.approx(3.0 + 0.2 * 0.4)  # the score lands on the last response token
    assert rewards[1].tolist() == pytest.approx([0.0, -1.0, 0.0, 0.0])  # identical policies: only the score
    assert rewards[0, 3] == 0 and log_ratio[0, 3] == 0  # past the end: nothing
    # summed over a response, the penalty is −β times the sampled log-ratio (the KL estimate)
    assert (rewards.sum(1) - _t([3.0, -1.0])).tolist() == pytest.approx((-0.2 * log_ratio.sum(1)).tolist())


def test_the_clipped_surrogate_stops_the_gradient_outside_the_trust_region():
    mask = _t([[1.0]])

    def loss_and_gradient(ratio, advantage):
        logprobs = torch.tensor([[np.log(ratio)]], dtype=torch.float32, requires_grad=True)
        loss, clipped, _ = clipped_policy_loss(logprobs, torch.zeros(1, 1), _t([[advantage]]), mask, clip_range=0.2)
        loss.backward()
        return float(loss.detach()), float(logprobs.grad[0, 0]), float(clipped)

    # positive advantage: the gain stops at ratio 1.2
    assert loss_and_gradient(1.5, 2.0) == pytest.approx((-2.4, 0.0, 1.0))
    assert loss_and_gradient(1.1, 2.0) == pytest.approx((-2.2, -2.2, 0.0))  # d(−Aρ)/dlogπ = −Aρ
    # negative advantage: lowering the ratio below 0.8 brings nothing, raising it is never clipped (pessimism)
    assert loss_and_gradient(0.5, -1.0) == pytest.approx((0.8, 0.0, 1.0))
    assert loss_and_gradient(1.5, -1.0) == pytest.approx((1.5, 1.5, 0.0))
    # ratio 1: the plain policy gradient, −A
    assert loss_and_gradient(1.0, 0.5) == pytest.approx((-0.5, -0.5, 0.0))


def test_the_value_loss_is_clipped_around_the_rollout_values():
    mask = _t([[1.0, 1.0]])
    values = torch.tensor([[1.0, 0.1]], requires_grad=True)
    loss, clipped = clipped_value_loss(values, _t([[0.0, 0.0]]), _t([[2.0, 0.0]]), mask, clip_range=0.2)
    # token 0: V moved by 1.0 from 0, clipped to 0.2 -> the larger error (0.2 − 2)² counts, no gradient through V
    assert float(loss.detach()) == pytest.approx(0.5 * ((0.2 - 2.0) ** 2 + 0.1**2) / 2)
    loss.backward()
    _close(values.grad, [[0.0, 0.5 * 2 * 0.1 / 2]])
    assert float(clipped) == pytest.approx(0.5)


def test_whitening_uses_the_response_tokens_only():
    values = _t([[1.0, 2.0, 100.0], [3.0, 4.0, -50.0]])
    mask = _t([[1, 1, 0], [1, 1, 0]])
    out = whiten(values, mask)
    kept = out[mask > 0]
    assert float(kept.mean()) == pytest.approx(0.0, abs=1e-6)
    assert float(kept.std(unbiased=False)) == pytest.approx(1.0, abs=1e-4)
    assert out[:, 2].tolist() == [0.0, 0.0]


# --- on a tiny Llama with SmolLM2's tokenizer ----------------------------------------------------------------------

WORDS = (" yes", " no", " maybe", " cat", " dog", " red", " blue", " green")


class YesReward:
    """A toy reward with the reward module's interface: privacy = the share of the rewrite's words that are "yes"."""

    def __call__(self, originals, rewrites):
        from authorguard.neural.tarot.reward import RewardBreakdown

        share = [sum(w == "yes" for w in r.lower().split()) / max(len(r.split()), 1) for r in rewrites]
        return RewardBreakdown(np.full(len(rewrites), np.nan), np.array(share, dtype=float))


@pytest.fixture(scope="module")
def word_policy(tokenizer):
    """(factory, tokenizer): a tiny Llama whose output layer gives weight only to eight one-token words and the
    end-of-turn token (a bias of +15 on them, small random rows), so that a reward over words is learnable in a
    few PPO steps; the factory returns the same weights every call."""
    import copy

    from transformers import LlamaConfig, LlamaForCausalLM

    ids = [tokenizer(w, add_special_tokens=False)["input_ids"] for w in WORDS]
    assert all(len(i) == 1 for i in ids)
    live = [i[0] for i in ids] + [tokenizer.eos_token_id]
    torch.manual_seed(1)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(config)
    head = torch.nn.Linear(32, len(tokenizer), bias=True)
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
        head.weight[live] = torch.randn(len(live), 32) * 0.1
        head.bias[live] = 15.0
    model.lm_head = head
    model.eval()

    def factory():
        return copy.deepcopy(model), copy.deepcopy(tokenizer)

    return factory


TOY_POLICY = PolicyConfig(
    max_chunk_tokens=40,
    max_new_tokens=6,
    lora_rank=4,
    lora_alpha=8,
    lora_targets=("q_proj", "v_proj", "lm_head"),
    lora_dropout=0.0,
)
TOY_PPO = PPOConfig(
    learning_rate=2e-2,
    value_learning_rate=1e-2,
    batch_size=8,
    mini_batch_size=4,
    micro_batch_size=2,
    ppo_epochs=2,
    epochs=8,
    kl_coef=0.05,
    checkpoint_every=2,
    seed=0,
)


def _texts(count=8):
    return [f"Say something about item number {i}." for i in range(count)]


def _mean_reward(model, tokenizer, texts, seed):
    """Mean toy reward of 8 fresh rewrites of each text (sampled as in training)."""
    from authorguard.neural.tarot.ppo import collect_rollouts
    from authorguard.neural.tarot.prompts import render_prompt

    prompts = [render_prompt(tokenizer, TOY_POLICY.instruction, t) for t in texts for _ in range(8)]
    originals = [t for t in texts for _ in range(8)]
    rollouts = collect_rollouts(model, None, tokenizer, originals, prompts, YesReward(), TOY_POLICY, TOY_PPO, seed, 16)
    return float(rollouts.scores.mean())


def test_a_few_ppo_steps_raise_the_mean_toy_reward(word_policy, tmp_path):
    from authorguard.neural.tarot.folder import TarotFolder
    from authorguard.neural.tarot.policy import add_adapter
    from authorguard.neural.tarot.ppo import train_ppo

    texts = _texts()
    model, tokenizer = word_policy()
    tokenizer.padding_side = "left"
    before = _mean_reward(add_adapter(model, TOY_POLICY, 0), tokenizer, texts, seed=99)
    history = train_ppo(TarotFolder(tmp_path), TOY_POLICY, TOY_PPO, texts, word_policy(), YesReward())
    assert [h["step"] for h in history] == list(range(1, 9))
    from peft import PeftModel

    base, _ = word_policy()
    trained = PeftModel.from_pretrained(base, str(tmp_path / "ppo" / "adapter"))
    after = _mean_reward(trained, tokenizer, texts, seed=99)
    assert 0.05 < before < 0.3  # one word in eight, before training
    assert after > 2 * before and after > before + 0.15, (before, after)  # measured: 0.08 -> 0.30
    # the KL to the reference grows as the policy moves away from it
    assert history[-1]["kl"] > history[0]["kl"]
