"""Train the stages of one A⁴NT model folder in parallel processes on one device, within a deadline.

``authorguard a4nt train`` runs a folder's stages one after another; on a GPU most of them are independent (the two
language models; the flip and the neutral autoencoders; the adversarial variants once their autoencoder is there), and
each small LSTM step leaves the GPU mostly idle, so several processes share it. Each task is one stage function of
:mod:`authorguard.neural.a4nt.trainer` in its own process under ``training_device``; a task starts when the files it
needs exist. At the deadline running tasks are stopped (their last checkpoint stays, and ``--harvest`` takes the
generator from it, marked with its step). Used for docs/results/a4nt.md, "The full recipe on a GPU":

    python scripts/a4nt/a4nt_parallel_recipe.py runs/a4nt-blog-age-full --device cuda --deadline 420 \\
        --flip configs/a4nt/full.toml --neutral configs/a4nt/full-neutral.toml configs/a4nt/full-neutral-w8.toml \\
        --harvest $OUT
    python scripts/a4nt/a4nt_parallel_recipe.py runs/a4nt-blog-age-full-s1 --device cuda --deadline 500 \\
        --flip configs/a4nt/full-seed1/{cycml-lang,cycml,fbsem,fbsem-lang}.toml --harvest $OUT

The folder's data stage must exist (``authorguard a4nt train ... --stage data``); a stage already trained is skipped.
``--harvest DIR`` writes ``summary.json`` (every stage's validation figures, curves, loss weights, training records,
seconds and device), the attribute classifier A when it was trained here, and the trained generators with float16
weights (``generators.tar``, split into parts of at most
15 MiB: ``cat generators.tar.part-* | tar x``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import tarfile
import time
import traceback
from pathlib import Path

PART_BYTES = 15 * 2**20


def _config(path: str | None, overrides: dict | None = None):
    from authorguard.batch.config import load_method_params
    from authorguard.neural.a4nt.config import A4NTConfig
    from authorguard.utils.validation import dataclass_from_params

    params = load_method_params(Path(path)) if path else {}
    params.update(overrides or {})
    return dataclass_from_params(A4NTConfig, params, str(path or "A4NT options"))


def _log_report(log_path: Path):
    log = log_path.open("a", encoding="utf-8")
    started = time.perf_counter()

    def report(stage: str, step: int, total: int, record: dict) -> None:
        if step % 100 == 0 or step == total or any(k.startswith("validation") for k in record):
            shown = {k: round(v, 4) if isinstance(v, float) else v for k, v in record.items()}
            log.write(f"{time.perf_counter() - started:7.1f}s {stage} {step}/{total} {json.dumps(shown)}\n")
            log.flush()

    return report


def _task(kind: str, config_path: str | None, folder: str, device: str, argument, log_dir: str) -> None:
    """One stage in this process: ``kind`` in classifier, language-model, autoencoder, neutral-autoencoder,
    adversarial."""
    from authorguard.neural.a4nt import trainer

    name = f"{kind}-{argument}" if argument is not None else f"{kind}-{Path(config_path).stem if config_path else ''}"
    report = _log_report(Path(log_dir) / f"{name}.log")
    try:
        config = _config(config_path)
        with trainer.training_device(device):
            data, vocabulary = trainer.prepare_folder(config, Path(folder))
            if kind == "classifier":
                trainer.train_classifier(config, Path(folder), data, vocabulary, argument, report)
            elif kind == "language-model":
                trainer.train_language_model(config, Path(folder), data, vocabulary, argument, report)
            elif kind in ("autoencoder", "neutral-autoencoder"):
                trainer.pretrain_autoencoder(
                    config, Path(folder), data, vocabulary, report, neutral=kind != "autoencoder"
                )
            else:
                trainer.train_adversarial(config, Path(folder), data, vocabulary, report)
    except BaseException:
        (Path(log_dir) / f"{name}.error").write_text(traceback.format_exc(), encoding="utf-8")
        raise


def plan(folder: Path, flip: list[str], neutral: list[str], holdouts: bool) -> list[dict]:
    """The tasks: what each runs, the files it needs and the file it makes. The flip configs share one flip
    autoencoder (the first config's settings train it), the neutral configs one neutral autoencoder."""
    from authorguard.neural.a4nt.config import AUTOENCODER, NEUTRAL_AUTOENCODER, generator_file

    first = (flip or neutral)[0]
    config = _config(first)
    classes = json.loads((folder / "config.json").read_text(encoding="utf-8"))["classes"]
    models = [f"language-models/{c}.pt" for c in range(len(classes))]
    tasks = [{"kind": "classifier", "config": first, "argument": None, "needs": [], "makes": "classifier.pt"}]
    tasks += [
        {"kind": "language-model", "config": first, "argument": c, "needs": [], "makes": models[c]}
        for c in range(len(classes))
    ]
    if holdouts:
        tasks += [
            {"kind": "classifier", "config": first, "argument": h, "needs": [], "makes": f"holdouts/{h}.pt"}
            for h in config.holdouts
        ]
    if flip:
        tasks.append(
            {
                "kind": "autoencoder",
                "config": flip[0],
                "argument": None,
                "needs": [],
                "makes": generator_file(AUTOENCODER),
            }
        )
        for path in flip:
            variant = _config(path).variant
            tasks.append(
                {
                    "kind": "adversarial",
                    "config": path,
                    "argument": None,
                    "needs": ["classifier.pt", *models, generator_file(AUTOENCODER)],
                    "makes": generator_file(variant),
                }
            )
    if neutral:
        tasks.append(
            {
                "kind": "neutral-autoencoder",
                "config": neutral[0],
                "argument": None,
                "needs": [],
                "makes": generator_file(NEUTRAL_AUTOENCODER),
            }
        )
        for path in neutral:
            variant = _config(path).variant
            tasks.append(
                {
                    "kind": "adversarial",
                    "config": path,
                    "argument": None,
                    "needs": ["classifier.pt", *models, generator_file(NEUTRAL_AUTOENCODER)],
                    "makes": generator_file(variant),
                }
            )
    return tasks


def run(folder: Path, tasks: list[dict], device: str, deadline: float, log_dir: Path) -> dict:
    """Start each task when what it needs exists; stop what still runs at ``deadline`` seconds. Returns each task's
    outcome: done, skipped (its file existed), failed, stopped or not started."""
    context = mp.get_context("spawn")
    started_at = time.perf_counter()
    running: dict[int, tuple[dict, mp.Process, float]] = {}
    outcome: dict[str, dict] = {}
    waiting = list(range(len(tasks)))
    for index in list(waiting):
        if (folder / tasks[index]["makes"]).is_file():
            outcome[tasks[index]["makes"]] = {"status": "skipped (trained before)"}
            waiting.remove(index)
    while (waiting or running) and time.perf_counter() - started_at < deadline:
        for index in list(waiting):
            task = tasks[index]
            if all((folder / need).is_file() for need in task["needs"]):
                process = context.Process(
                    target=_task,
                    args=(task["kind"], task["config"], str(folder), device, task["argument"], str(log_dir)),
                )
                process.start()
                running[index] = (task, process, time.perf_counter())
                waiting.remove(index)
            elif any(outcome.get(need, {}).get("status") == "failed" for need in task["needs"]):
                outcome[task["makes"]] = {"status": "not started (a stage it needs failed)"}
                waiting.remove(index)
        for index, (task, process, began) in list(running.items()):
            if not process.is_alive():
                seconds = round(time.perf_counter() - began, 1)
                ok = process.exitcode == 0 and (folder / task["makes"]).is_file()
                outcome[task["makes"]] = {"status": "done" if ok else "failed", "seconds": seconds}
                print(f"{time.perf_counter() - started_at:7.1f}s {task['makes']}: {outcome[task['makes']]}", flush=True)
                del running[index]
        time.sleep(1.0)
    for task, process, began in running.values():
        process.terminate()
        process.join(10)
        outcome[task["makes"]] = {"status": "stopped at the deadline", "seconds": round(time.perf_counter() - began, 1)}
    for index in waiting:
        outcome[tasks[index]["makes"]] = {"status": "not started (deadline)"}
    return outcome


def harvest(folder: Path, tasks: list[dict], outcome: dict, out: Path, log_dir: Path) -> None:
    """``summary.json``, classifier A (as trained) and the generators (float16) in ``generators.tar`` parts; a
    generator stopped at the deadline is taken from its last checkpoint and stored with ``checkpoint_step``."""
    import io

    import torch

    def load(path: Path):
        return torch.load(path, map_location="cpu", weights_only=False)

    def half(state: dict) -> dict:
        return {k: v.half() if v.is_floating_point() else v for k, v in state.items()}

    summary, members = {"outcome": outcome, "stages": {}, "errors": {}}, {}
    for task in tasks:
        path = folder / task["makes"]
        checkpoint = path.with_name(path.name + ".checkpoint")
        if path.is_file():
            stored = load(path)
            summary["stages"][task["makes"]] = {k: v for k, v in stored.items() if k not in ("state", "spec")}
            if task["kind"] in ("adversarial", "autoencoder", "neutral-autoencoder"):
                members[task["makes"]] = {"spec": stored["spec"], "state": half(stored["state"])}
            elif task["makes"] == "classifier.pt":
                members[task["makes"]] = stored  # as trained (float32): the evaluation reads it
        elif checkpoint.is_file() and task["kind"] == "adversarial":
            stored = load(checkpoint)
            spec = _generator_spec(folder, task)
            summary["stages"][task["makes"]] = {
                "checkpoint_step": stored["step"],
                "history": stored["history"],
                "weights": stored["extra"].get("weights"),
            }
            members[task["makes"]] = {
                "spec": spec,
                "state": half(stored["modules"]["generator"]),
                "checkpoint_step": stored["step"],
            }
    for error in log_dir.glob("*.error"):
        summary["errors"][error.stem] = error.read_text(encoding="utf-8")[-3000:]
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, default=str), encoding="utf-8")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, obj in members.items():
            data = io.BytesIO()
            torch.save(obj, data)
            info = tarfile.TarInfo(name)
            info.size = data.tell()
            data.seek(0)
            tar.addfile(info, data)
    blob = buffer.getvalue()
    for number, start in enumerate(range(0, len(blob), PART_BYTES)):
        (out / f"generators.tar.part-{number}").write_bytes(blob[start : start + PART_BYTES])
    print(f"harvested {len(members)} stage files ({len(blob) / 2**20:.1f} MiB) and summary.json into {out}", flush=True)


def _generator_spec(folder: Path, task: dict) -> dict:
    from authorguard.neural.a4nt.folder import generator_spec
    from authorguard.neural.a4nt.text import Vocabulary

    config = _config(task["config"])
    classes = json.loads((folder / "config.json").read_text(encoding="utf-8"))["classes"]
    vocabulary = Vocabulary.load(folder / "vocabulary.json")
    return generator_spec(config, vocabulary, 1 if config.objective == "neutral" else len(classes))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="A4NT model folder whose data stage exists")
    parser.add_argument("--device", default="cuda", help="cpu, cuda, cuda:N or auto")
    parser.add_argument("--deadline", type=float, default=420.0, help="seconds after which running stages are stopped")
    parser.add_argument(
        "--flip",
        nargs="*",
        default=[],
        help="configs of flip variants (the paper's objective; one flip autoencoder); omitted: none",
    )
    parser.add_argument(
        "--neutral", nargs="*", default=[], help="configs of neutral variants (one neutral autoencoder)"
    )
    parser.add_argument("--holdouts", action="store_true", help="also train the ten holdout classifiers")
    parser.add_argument("--harvest", type=Path, help="folder for summary.json and the float16 generators")
    parser.add_argument("--logs", type=Path, help="folder for each task's log (default: FOLDER/logs)")
    args = parser.parse_args(argv)
    if not args.flip and not args.neutral:
        parser.error("name --flip and/or --neutral configs")
    if not (args.folder / "sentences.json.gz").is_file():
        parser.error(f"{args.folder} has no data stage (authorguard a4nt train ... --stage data)")
    log_dir = args.logs or args.folder / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    tasks = plan(args.folder, args.flip, args.neutral, args.holdouts)
    outcome = run(args.folder, tasks, args.device, args.deadline, log_dir)
    print(json.dumps(outcome, indent=1), flush=True)
    if args.harvest:
        harvest(args.folder, tasks, outcome, args.harvest, log_dir)
    return 0 if all(o["status"] != "failed" for o in outcome.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
