"""Training the realiser: LoRA SFT of SmolLM2-135M-Instruct on (instruction + view -> chunk), loss on the chunk's
tokens only (trl's ``SFTTrainer``, prompt-completion rows), in stages that resume:

    FOLDER/realiser.json    the realiser config, the training config, the tokenizer signature, counts, history
    FOLDER/pairs.jsonl      the training and held-out pairs (stage ``data``; built once)
    FOLDER/checkpoints/     trainer checkpoints (stage ``sft``; a stopped run resumes from the newest)
    FOLDER/adapter/         the trained LoRA adapter (what the bottleneck method loads)
"""

from __future__ import annotations

import json
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.neural.realiser.config import RealiserConfig, TrainingConfig
from authorguard.neural.realiser.data import training_pairs, view_kind

RECORD = "realiser.json"


def chat_rows(config: RealiserConfig, pairs: list[dict]) -> list[dict]:
    """trl's conversational prompt-completion rows: the user turn (instruction + view), the assistant's chunk."""
    return [
        {
            "prompt": config.messages(view_kind(p["level"]), p["view"]),
            "completion": [{"role": "assistant", "content": p["text"]}],
        }
        for p in pairs
    ]


def add_adapter(model, config: RealiserConfig, seed: int):
    """``model`` wrapped with a fresh trainable LoRA adapter on the top ``lora_layers`` layers, seeded."""
    from authorguard.utils.weights import require_torch

    torch = require_torch()
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(seed)
    layers = model.config.num_hidden_layers
    top = None if config.lora_layers is None else list(range(max(0, layers - config.lora_layers), layers))
    lora = LoraConfig(
        r=config.lora_rank,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=list(config.lora_targets),
        layers_to_transform=top,
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, lora)


def read_record(folder: Path) -> dict:
    file = folder / RECORD
    if not file.is_file():
        return {}
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except ValueError:
        raise InputError(f"realiser folder {folder}: {RECORD} is not valid JSON (damaged? delete the folder)") from None


def write_record(folder: Path, record: dict) -> None:
    staging = folder / (RECORD + ".partial")
    staging.write_text(json.dumps(record, indent=2), encoding="utf-8")
    staging.replace(folder / RECORD)


class _Progress:
    """Tells ``say`` the step, the loss and the seconds a step takes, at every logging step (trl's own printer is
    off)."""

    def __new__(cls, say, steps):
        import time

        from transformers import TrainerCallback

        class Progress(TrainerCallback):
            def on_train_begin(self, args, state, control, **kwargs):
                self.start, self.first = time.time(), state.global_step

            def on_log(self, args, state, control, logs=None, **kwargs):
                if logs and "loss" in logs:
                    done = state.global_step - self.first
                    rate = (time.time() - self.start) / max(done, 1)
                    say(f"sft: step {state.global_step}/{steps}, loss {logs['loss']:.3f}, {rate:.1f} s a step")

        return Progress()


def _check_same(record: dict, key: str, value: dict, folder: Path) -> None:
    if key in record and record[key] != value:
        raise InputError(f"realiser folder {folder} was started with another {key} ({record[key]}); use a new folder")


def _write_pairs(folder: Path, record: dict, training: TrainingConfig, tokenizer, corpora, say) -> Path:
    """The training pairs (views of chunks of held-out authors), built once into FOLDER/pairs.jsonl; their counts go
    to the record."""
    pairs_file = folder / "pairs.jsonl"
    if pairs_file.is_file():
        return pairs_file
    say("data: views of chunks of held-out authors")
    count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
    from authorguard.neural.realiser.constrained import roles_accepts

    rows, counts = training_pairs(training, count, corpora, roles_accepts(tokenizer))
    staging = pairs_file.with_suffix(".partial")
    staging.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    staging.replace(pairs_file)
    record["data"] = counts
    write_record(folder, record)
    return pairs_file


def _sft_arguments(config: RealiserConfig, training: TrainingConfig, checkpoints: Path, steps: int):
    """trl's SFTConfig for STEPS steps on this CPU, checkpointing into CHECKPOINTS."""
    from trl import SFTConfig

    return SFTConfig(
        output_dir=str(checkpoints),
        num_train_epochs=training.epochs,
        per_device_train_batch_size=training.batch_size,
        per_device_eval_batch_size=training.batch_size,
        learning_rate=training.learning_rate,
        lr_scheduler_type="linear",
        warmup_steps=min(10, steps // 10),
        logging_steps=max(1, min(10, steps // 4)),
        save_steps=training.checkpoint_every,
        save_total_limit=2,
        report_to=[],
        seed=training.seed,
        data_seed=training.seed,
        use_cpu=True,
        max_length=config.max_view_words * 3 + config.max_new_tokens + 96,
        completion_only_loss=True,
        dataloader_num_workers=0,
        disable_tqdm=True,
        eval_strategy="no",
        train_sampling_strategy="group_by_length",
        # trl's defaults are for GPUs: gradient checkpointing (a second forward pass, and a backward pass through every
        # layer) and bfloat16 autocast, which this CPU emulates — together 16x slower (60 s a step against 3.7 s)
        gradient_checkpointing=False,
        bf16=False,
    )


def train_realiser(
    folder: str | Path,
    config: RealiserConfig = RealiserConfig(),
    training: TrainingConfig = TrainingConfig(),
    base=None,
    corpora: dict | None = None,
    progress=None,
) -> dict:
    """Run (or resume) the stages into ``folder``; returns the record. ``base`` = (model, tokenizer) replaces the
    reference SmolLM2 (tests use a tiny model); ``progress(message)`` is told each stage."""
    from authorguard.neural.tarot.policy import tokenizer_signature
    from authorguard.neural.tarot.trl_support import resume_point, run_trainer

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda message: None)
    record = read_record(folder)
    _check_same(record, "realiser", config.to_dict(), folder)
    _check_same(record, "training", training.to_dict(), folder)
    if base is None:
        from authorguard.generation.reference_lm import load_reference_lm

        base = load_reference_lm()
    model, tokenizer = base
    record.update(
        {"realiser": config.to_dict(), "training": training.to_dict(), "tokenizer": tokenizer_signature(tokenizer)}
    )
    pairs_file = _write_pairs(folder, record, training, tokenizer, corpora, say)
    rows = [json.loads(line) for line in pairs_file.read_text(encoding="utf-8").splitlines()]
    train_rows, held_rows = rows[: training.pairs], rows[training.pairs : training.pairs + training.held_out]
    if (folder / "adapter" / "adapter_config.json").is_file() and record.get("done"):
        return record
    try:
        from datasets import Dataset
        from trl import SFTTrainer
    except ImportError:
        raise InputError("realiser training needs trl and datasets: pip install 'authorguard[tarot]'") from None
    say(f"sft: {len(train_rows)} pairs, {training.epochs} epoch(s)")
    model = add_adapter(model, config, training.seed)
    tokenizer.padding_side = "right"
    checkpoints = folder / "checkpoints"
    steps = -(-len(train_rows) // training.batch_size) * training.epochs
    args = _sft_arguments(config, training, checkpoints, steps)
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(chat_rows(config, train_rows)),
        eval_dataset=Dataset.from_list(chat_rows(config, held_rows)) if held_rows else None,
        processing_class=tokenizer,
        callbacks=[_Progress(say, steps)],
    )
    history = run_trainer(trainer, resume_point(checkpoints))
    say("sft: held-out loss")
    held_loss = trainer.evaluate()["eval_loss"] if held_rows else None
    trainer.model.save_pretrained(str(folder / "adapter"))
    record.update({"history": history, "held_out_loss": held_loss, "done": True})
    write_record(folder, record)
    return record
