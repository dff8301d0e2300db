"""Plot an A⁴NT model folder's training curves: the autoencoders' validation METEOR (early stopping) and, for each
adversarially trained variant, the validation accuracy of the frozen classifier (and of the neutral objective's
adversary) on greedy rewrites, with the token overlap with the input. Prints the curves as Markdown too.

Usage:  python scripts/a4nt/a4nt_curves.py runs/a4nt-blog-age-es -o docs/results/a4nt/blog-age-es-curves.png
        python scripts/a4nt/a4nt_curves.py runs/a4nt-blog-age-full --summary runs/a4nt-blog-age-full/gpu-summary.json \
            -o docs/results/a4nt/blog-age-full-curves.png
(``--summary``: the ``summary.json`` of scripts/a4nt/a4nt_parallel_recipe.py, whose harvested generators carry no
records)
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument(
        "--summary", type=Path, help="read the records from this summary.json instead of the folder's files"
    )
    args = parser.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import torch

    folder = args.folder
    if args.summary:
        import json

        stored_stages = json.loads(args.summary.read_text(encoding="utf-8"))["stages"]

        def stage(name: str):
            return stored_stages.get(name)

        generator_names = sorted(k for k in stored_stages if k.endswith("/generator.pt"))
    else:

        def stage(name: str):
            path = folder / name
            return torch.load(path, map_location="cpu", weights_only=False) if path.is_file() else None

        generator_names = sorted(p.relative_to(folder).as_posix() for p in folder.glob("*/generator.pt"))
    autoencoders = {}
    for name in ("autoencoder", "neutral-autoencoder"):
        stored = stage(f"{name}.pt")
        if stored is not None:
            autoencoders[name] = stored
            curve = stored.get("curve", [])
            print(
                f"{name}: best step {stored.get('best_step')}, stopped early {stored.get('stopped_early')}, "
                f"{stored.get('seconds', 0):.0f} s"
            )
            print("| step | " + " | ".join(str(p["step"]) for p in curve) + " |")
            print("|---" * (len(curve) + 1) + "|")
            print("| METEOR | " + " | ".join(f"{p['meteor']:.3f}" for p in curve) + " |")
    variants = {}
    for name in generator_names:
        stored = stage(name)
        points = [(i + 1, r) for i, r in enumerate(stored["history"]) if "validation_source_accuracy" in r]
        variant = name.split("/")[0]
        variants[variant] = points
        print(f"{variant}: {stored.get('seconds', 0):.0f} s")
        for step, record in points:
            print(
                f"  step {step}: classifier {record['validation_source_accuracy']:.3f}"
                + (
                    f", adversary {record['validation_adversary_accuracy']:.3f}"
                    if "validation_adversary_accuracy" in record
                    else ""
                )
                + f", token overlap {record['validation_token_overlap']:.3f}"
            )

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for name, stored in autoencoders.items():
        curve = stored.get("curve", [])
        left.plot([p["step"] for p in curve], [p["meteor"] for p in curve], marker="o", label=name)
        if stored.get("best_step"):
            left.axvline(stored["best_step"], linestyle=":", color=left.lines[-1].get_color())
    left.set(
        xlabel="pre-training step (128 sentences)",
        ylabel="validation METEOR (greedy reconstruction)",
        title="autoencoder pre-training",
    )
    left.legend()
    for name, points in variants.items():
        steps = [s for s, _ in points]
        (line,) = right.plot(
            steps, [r["validation_source_accuracy"] for _, r in points], marker="o", label=f"{name}: classifier"
        )
        if points and "validation_adversary_accuracy" in points[0][1]:
            right.plot(
                steps,
                [r["validation_adversary_accuracy"] for _, r in points],
                marker="s",
                linestyle="--",
                color=line.get_color(),
                label=f"{name}: adversary",
            )
    right.axhline(0.5, color="grey", linewidth=0.8)
    right.set(
        xlabel="adversarial step",
        ylabel="source-class accuracy on validation rewrites",
        ylim=(0, 1),
        title="adversarial training",
    )
    right.legend(fontsize=7)
    figure.tight_layout()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
