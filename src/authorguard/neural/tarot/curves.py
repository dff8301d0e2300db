"""Training curves of a TAROT folder: SFT loss; DPO loss and implicit-reward margin; the monitor's reward
components and KL to the SFT policy. One PNG of four panels."""

from __future__ import annotations

from pathlib import Path

from authorguard.neural.tarot.folder import TarotFolder


def _series(history: list, key: str) -> tuple[list, list]:
    points = [(h["step"], h[key]) for h in history if key in h and "step" in h]
    return [p[0] for p in points], [p[1] for p in points]


def plot_training_curves(model: str | Path, output: str | Path) -> Path:
    """Write the curves of the done stages of ``model`` to ``output`` (PNG); returns its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = TarotFolder(model)
    folder.policy_config()  # a clear error for a folder that is not one
    sft, dpo = folder.read_record("sft"), folder.read_record("dpo")
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.4))
    steps, loss = _series(sft.get("history", []), "loss")
    axes[0].plot(steps, loss, marker=".")
    axes[0].set(title="SFT loss (completion tokens)", xlabel="optimiser step", ylabel="cross-entropy (nats/token)")
    history = dpo.get("history", [])
    for key, label in (("loss", "DPO loss"), ("rewards/margins", "implicit reward margin"), ("rewards/accuracies", "pair accuracy")):
        steps, values = _series(history, key)
        axes[1].plot(steps, values, marker=".", label=label)
    axes[1].set(title="DPO (trl log)", xlabel="optimiser step")
    axes[1].legend(fontsize=8)
    monitor = dpo.get("monitor", [])
    for key, label in (("reward", "R"), ("utility", "R_util"), ("privacy", "R_priv")):
        axes[2].plot([m["step"] for m in monitor], [m[key] for m in monitor], marker="o", label=label)
    axes[2].set(title="held-out rewrites: reward", xlabel="optimiser step")
    axes[2].legend(fontsize=8)
    axes[3].plot([m["step"] for m in monitor], [m["kl"] for m in monitor], marker="o")
    axes[3].set(title="KL(π_θ ‖ π_SFT) per rewrite", xlabel="optimiser step", ylabel="nats")
    fig.tight_layout()
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    plt.close(fig)
    return output
