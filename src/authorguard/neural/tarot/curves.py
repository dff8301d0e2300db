"""Training curves of a TAROT folder. Row 1: SFT loss; DPO loss and implicit-reward margin; the DPO monitor's reward
components and KL to the SFT policy. Row 2 (when the PPO stage ran): the rollouts' reward components; PPO's policy
and value losses and the KL penalty; the PPO monitor's reward components and KL. One PNG."""

from __future__ import annotations

from pathlib import Path

from authorguard.neural.tarot.folder import TarotFolder

REWARD_KEYS = (("reward", "R"), ("utility", "R_util"), ("privacy", "R_priv"))


def _series(history: list, key: str) -> tuple[list, list]:
    points = [(h["step"], h[key]) for h in history if key in h and "step" in h]
    return [p[0] for p in points], [p[1] for p in points]


def _monitor_panels(reward_axis, kl_axis, monitor: list, stage: str) -> None:
    for key, label in REWARD_KEYS:
        reward_axis.plot(*_series(monitor, key), marker="o", label=label)
    reward_axis.set(title=f"{stage}: held-out rewrites, reward", xlabel="optimiser step")
    reward_axis.legend(fontsize=8)
    kl_axis.plot(*_series(monitor, "kl"), marker="o")
    kl_axis.set(title=f"{stage}: KL(π_θ ‖ π_SFT) per rewrite", xlabel="optimiser step", ylabel="nats")


def plot_training_curves(model: str | Path, output: str | Path) -> Path:
    """Write the curves of the done stages of ``model`` to ``output`` (PNG); returns its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = TarotFolder(model)
    folder.policy_config()  # a clear error for a folder that is not one
    sft, dpo, ppo = folder.read_record("sft"), folder.read_record("dpo"), folder.read_record("ppo")
    rows = 2 if ppo.get("history") else 1
    fig, axes = plt.subplots(rows, 4, figsize=(16, 3.4 * rows), squeeze=False)
    top = axes[0]
    top[0].plot(*_series(sft.get("history", []), "loss"), marker=".")
    top[0].set(title="SFT loss (completion tokens)", xlabel="optimiser step", ylabel="cross-entropy (nats/token)")
    history = dpo.get("history", [])
    for key, label in (
        ("loss", "DPO loss"),
        ("rewards/margins", "implicit reward margin"),
        ("rewards/accuracies", "pair accuracy"),
    ):
        top[1].plot(*_series(history, key), marker=".", label=label)
    top[1].set(title="DPO (trl log)", xlabel="optimiser step")
    top[1].legend(fontsize=8)
    _monitor_panels(top[2], top[3], dpo.get("monitor", []), "DPO")
    if rows == 2:
        bottom, history = axes[1], ppo["history"]
        for key, label in REWARD_KEYS:
            bottom[0].plot(*_series(history, f"rollout_{key}"), marker=".", label=label)
        bottom[0].set(title="PPO: training rollouts, reward", xlabel="PPO step")
        bottom[0].legend(fontsize=8)
        for key, label in (("policy_loss", "policy loss"), ("value_loss", "value loss"), ("non_score_reward", "−β·KL")):
            bottom[1].plot(*_series(history, key), marker=".", label=label)
        bottom[1].set(title="PPO losses and KL penalty", xlabel="PPO step")
        bottom[1].legend(fontsize=8)
        _monitor_panels(bottom[2], bottom[3], ppo.get("monitor", []), "PPO")
    fig.tight_layout()
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    plt.close(fig)
    return output
