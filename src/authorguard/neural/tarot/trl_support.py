"""What the TAROT stages share around trl's trainers: resuming from the last checkpoint, the log history."""

from __future__ import annotations

from pathlib import Path


def resume_point(checkpoints: Path) -> str | None:
    """The newest ``checkpoint-<step>`` folder under ``checkpoints`` that holds a trainer state, or None."""
    if not checkpoints.is_dir():
        return None
    found = [
        (int(p.name.split("-")[-1]), p)
        for p in checkpoints.glob("checkpoint-*")
        if p.name.split("-")[-1].isdigit() and (p / "trainer_state.json").is_file()
    ]
    return str(max(found)[1]) if found else None


def run_trainer(trainer, resume: str | None) -> list:
    """Train (from ``resume`` when given) and return the log history (one dict per logged step)."""
    from transformers.trainer_callback import PrinterCallback

    trainer.remove_callback(PrinterCallback)  # the stages report progress themselves
    trainer.train(resume_from_checkpoint=resume)
    return list(trainer.state.log_history)
