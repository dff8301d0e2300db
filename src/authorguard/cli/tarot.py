"""``authorguard tarot``: train TAROT's policy stage by stage in one model folder: sft, then prefs -> dpo (TAROT-DPO)
and/or ppo (TAROT-PPO)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from authorguard.cli.common import handle_errors, progress, set_data_dir, stdout

app = typer.Typer(
    help="TAROT: a small LM rewriter fine-tuned by preference optimisation to hide authorship.", no_args_is_help=True
)

Output = Annotated[Path, typer.Option("--output", "-o", help="The model folder (shared by the stages).")]
ConfigFile = Annotated[
    Path | None, typer.Option("--config", help="TOML / JSON / YAML table of the stage's config keys.")
]
Resume = Annotated[
    bool, typer.Option("--resume", help="Continue an interrupted stage (generation blocks, checkpoints).")
]
DataDir = Annotated[Path | None, typer.Option("--data-dir", help="Data directory (default: AUTHORGUARD_DATA).")]


def _check_fresh(folder: Path, stage: str, resume: bool) -> None:
    from authorguard.exceptions import InputError
    from authorguard.neural.tarot.folder import TarotFolder

    tarot = TarotFolder(folder)
    # stored generation blocks are checked against their prompts and seeded: reusing them (a branch) is always safe
    started = tarot.stage(stage).is_dir() and any(p.name != "generations" for p in tarot.stage(stage).iterdir())
    if started and not tarot.done(stage) and not resume:
        raise InputError(
            f"{tarot.stage(stage)} holds an interrupted {stage} stage: pass --resume to continue it "
            "(or delete the folder)"
        )


def _optimiser_options(
    stage: str,
    kind,
    config: Path | None,
    output: Path,
    resume: bool,
    monitor_prompts: int,
    monitor_every: int,
    data_dir: Path | None,
):
    """The DPO / PPO stage's checked config (``kind`` read from ``config``), after the checks both stages share."""
    from authorguard.batch.config import load_method_params
    from authorguard.utils.validation import check_number, dataclass_from_params

    set_data_dir(data_dir)
    resolved = dataclass_from_params(kind, load_method_params(config), str(config or f"TAROT {stage.upper()} options"))
    check_number(monitor_prompts, "monitor_prompts", f"tarot {stage}", kind=int, low=0, closed="left")
    check_number(monitor_every, "monitor_every", f"tarot {stage}", kind=int, low=1, closed="left")
    _check_fresh(output, stage, resume)
    return resolved


def _summary(record: dict, keys: tuple) -> str:
    return json.dumps({k: record[k] for k in keys if k in record})


def _bar(bars, name: str):
    task = bars.add_task(name, total=None)
    return lambda done, total: bars.update(task, completed=done, total=total)


@app.command("sft")
@handle_errors
def sft(output: Output, config: ConfigFile = None, resume: Resume = False, data_dir: DataDir = None) -> None:
    """Stage 1: sample rewrites from the untuned SmolLM2, keep the usable ones, LoRA fine-tune on them. The config
    holds SFTConfig keys and an optional ``policy`` table (PolicyConfig: instruction, chunk and output lengths,
    LoRA)."""
    from authorguard.batch.config import load_method_params
    from authorguard.neural.tarot.config import PolicyConfig, SFTConfig
    from authorguard.neural.tarot.trainer import run_sft
    from authorguard.utils.validation import dataclass_from_params

    set_data_dir(data_dir)
    params = load_method_params(config)
    policy = dataclass_from_params(PolicyConfig, params.pop("policy", {}), f"{config or 'TAROT options'} [policy]")
    resolved = dataclass_from_params(SFTConfig, params, str(config or "TAROT SFT options"))
    _check_fresh(output, "sft", resume)
    with progress() as bars:
        record = run_sft(output, policy, resolved, progress=_bar(bars, "sampling SFT candidates"))
    stdout.print(
        f"TAROT SFT policy in {output / 'sft' / 'adapter'}: "
        + _summary(record, ("prompts", "examples_kept", "candidates", "generation", "train_seconds")),
        highlight=False,
    )


@app.command("prefs")
@handle_errors
def prefs(output: Output, config: ConfigFile = None, resume: Resume = False, data_dir: DataDir = None) -> None:
    """Stage 2: two rewrites per prompt from the SFT policy, scored by the reward, filtered into preference pairs
    (the paper's Algorithm 1; PreferenceConfig keys, with ``prompts`` and ``reward`` tables)."""
    from authorguard.batch.config import load_method_params
    from authorguard.neural.tarot.config import PreferenceConfig
    from authorguard.neural.tarot.trainer import run_preferences
    from authorguard.utils.validation import dataclass_from_params

    set_data_dir(data_dir)
    resolved = dataclass_from_params(
        PreferenceConfig, load_method_params(config), str(config or "TAROT preference options")
    )
    _check_fresh(output, "prefs", resume)
    with progress() as bars:
        record = run_preferences(output, resolved, progress=_bar(bars, "sampling preference pairs"))
    stdout.print(
        f"TAROT preference pairs in {output / 'prefs' / 'pairs.jsonl'}: "
        + _summary(record, ("filter", "sft_reward", "generation")),
        highlight=False,
    )


@app.command("dpo")
@handle_errors
def dpo(
    output: Output,
    config: ConfigFile = None,
    resume: Resume = False,
    monitor_prompts: Annotated[
        int, typer.Option(help="Held-out prompts rewritten every --monitor-every steps to log reward and KL (0: none).")
    ] = 16,
    monitor_every: Annotated[int, typer.Option(help="Steps between monitor checks.")] = 5,
    data_dir: DataDir = None,
) -> None:
    """Stage 3: DPO (trl) over the SFT policy on the preference pairs (DPOConfig keys)."""
    from authorguard.neural.tarot.config import DPOConfig
    from authorguard.neural.tarot.trainer import run_dpo

    resolved = _optimiser_options("dpo", DPOConfig, config, output, resume, monitor_prompts, monitor_every, data_dir)
    with progress() as bars:
        bars.add_task("DPO", total=None)
        record = run_dpo(output, resolved, monitor_prompts=monitor_prompts, monitor_every=monitor_every)
    last = record["monitor"][-1] if record.get("monitor") else {}
    stdout.print(
        f"TAROT DPO policy in {output / 'dpo' / 'adapter'}: pairs {record['pairs']}, "
        f"{record.get('train_seconds')} s; last check {json.dumps(last)}",
        highlight=False,
    )


@app.command("ppo")
@handle_errors
def ppo(
    output: Output,
    config: ConfigFile = None,
    resume: Resume = False,
    monitor_prompts: Annotated[
        int, typer.Option(help="Held-out prompts rewritten every --monitor-every steps to log reward and KL (0: none).")
    ] = 16,
    monitor_every: Annotated[int, typer.Option(help="Steps between monitor checks.")] = 5,
    data_dir: DataDir = None,
) -> None:
    """TAROT-PPO over the SFT policy: rollouts scored by the reward, KL penalty to the SFT policy, clipped PPO
    (PPOConfig keys, with ``prompts`` and ``reward`` tables; ``reward.privacy = false`` etc. for the ablation)."""
    from authorguard.neural.tarot.config import PPOConfig
    from authorguard.neural.tarot.trainer import run_ppo

    resolved = _optimiser_options("ppo", PPOConfig, config, output, resume, monitor_prompts, monitor_every, data_dir)
    with progress() as bars:
        record = run_ppo(
            output,
            resolved,
            monitor_prompts=monitor_prompts,
            monitor_every=monitor_every,
            progress=_bar(bars, "PPO steps"),
        )
    last = record["monitor"][-1] if record.get("monitor") else {}
    stdout.print(
        f"TAROT PPO policy in {output / 'ppo' / 'adapter'}: {len(record['history'])} steps, "
        f"{record.get('train_seconds')} s; last check {json.dumps(last)}",
        highlight=False,
    )


@app.command("branch")
@handle_errors
def branch(
    source: Annotated[Path, typer.Argument(help="A TAROT model folder with a done SFT stage.")], output: Output
) -> None:
    """Start a new folder from SOURCE's SFT policy (and its stored preference rewrites), to train another reward
    (the ablation) or another optimiser from the very same starting point."""
    from authorguard.neural.tarot.folder import TarotFolder

    TarotFolder(output).branch(source)
    stdout.print(f"{output}: SFT policy of {source}; next: authorguard tarot prefs|ppo -o {output}", highlight=False)


@app.command("curves")
@handle_errors
def curves(
    model: Annotated[Path, typer.Argument(help="A TAROT model folder.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="PNG to write.")],
) -> None:
    """Plot the training curves of a folder: SFT loss, DPO loss and margins, monitored reward components and KL."""
    from authorguard.neural.tarot.curves import plot_training_curves

    stdout.print(f"wrote {plot_training_curves(model, output)}", highlight=False)
