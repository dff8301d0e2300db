"""An A⁴NT model folder: created (or reopened) with its sentences, vocabulary and Punkt parameters, and the trained
networks read back from it.

Folder layout: ``config.json``, ``vocabulary.json``, ``punkt.json``, ``sentences.json.gz``, ``classifier.pt``,
``holdouts/<spec>.pt``, ``language-models/<class index>.pt``, ``autoencoder.pt``, ``<variant>/generator.pt``
(variants: ``cycml``, ``cycml-lang``, ``fbsem``, ``fbsem-lang``); ``*.checkpoint.pt`` while a stage runs.
"""

from __future__ import annotations

import json
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.config import A4NTConfig, parse_holdout
from authorguard.neural.a4nt.data import SettingData, build_setting_data
from authorguard.neural.a4nt.loop import Report, load_file, quiet
from authorguard.neural.a4nt.text import SentenceSplitter, Vocabulary


def prepare_folder(config: A4NTConfig, folder: Path, report: Report = quiet) -> tuple[SettingData, Vocabulary]:
    """Create (or reopen) the model folder: config, sentences, vocabulary and Punkt parameters. A folder made
    under another setting, data or network size is refused (its stages would not fit together)."""
    folder.mkdir(parents=True, exist_ok=True)
    config_path = folder / "config.json"
    if config_path.exists():
        stored = json.loads(config_path.read_text(encoding="utf-8"))
        wanted = json.loads(json.dumps(config.shared()))  # as JSON stores it (tuples become lists)
        if stored.get("shared") != wanted:
            changed = sorted(k for k in wanted if stored.get("shared", {}).get(k) != wanted[k])
            raise InputError(f"A4NT model folder {folder} was made with other {', '.join(changed)}: use a new folder")
    data_path = folder / "sentences.json.gz"
    if not data_path.exists():
        report("data", 0, 1, {"message": f"sentences of {config.setting}"})
        data, vocabulary, splitter = build_setting_data(config)
        vocabulary.save(folder / "vocabulary.json")
        (folder / "punkt.json").write_text(json.dumps(splitter.to_dict()), encoding="utf-8")
        data.save(data_path)
        report("data", 1, 1, {"sentences": data.counts["kept"]})
    if not config_path.exists():
        config_path.write_text(
            json.dumps(
                {"shared": config.shared(), "config": config.to_dict(), "classes": SettingData.load(data_path).classes},
                indent=2,
            ),
            encoding="utf-8",
        )
    return SettingData.load(data_path), Vocabulary.load(folder / "vocabulary.json")


def load_splitter(folder: Path) -> SentenceSplitter:
    return SentenceSplitter.from_dict(json.loads((folder / "punkt.json").read_text(encoding="utf-8")))


def classifier_spec(config: A4NTConfig, vocabulary: Vocabulary, n_classes: int, holdout: str | None = None) -> dict:
    kind, width, layers = parse_holdout(holdout) if holdout else ("lstm", config.hidden_size, 1)
    return {
        "kind": kind,
        "width": width,
        "layers": layers,
        "vocab_size": len(vocabulary),
        "n_classes": n_classes,
        "embedding_dim": config.embedding_dim,
        "dropout": config.dropout,
    }


def generator_spec(config: A4NTConfig, vocabulary: Vocabulary, n_classes: int) -> dict:
    return {
        "vocab_size": len(vocabulary),
        "n_classes": n_classes,
        "embedding_dim": config.embedding_dim,
        "hidden_size": config.hidden_size,
        "dropout": config.dropout,
    }


def load_network(path: Path, kind: str):
    """A trained network from the folder: ``kind`` in {"classifier", "language-model", "generator"}."""
    from authorguard.neural.a4nt.networks import LanguageModel, StyleTransfer, build_classifier

    if not path.is_file():
        raise InputError(f"A4NT model folder {path.parent}: {path.name} is missing (train that stage first)")
    stored = load_file(path)
    if not isinstance(stored, dict) or "spec" not in stored or "state" not in stored:
        raise InputError(f"{path} is not an A4NT network file")
    builder = {
        "classifier": build_classifier,
        "language-model": lambda s: LanguageModel(**s),
        "generator": lambda s: StyleTransfer(**s),
    }[kind]
    model = builder(stored["spec"])
    try:
        model.load_state_dict(stored["state"])
    except RuntimeError as error:
        from authorguard.utils.weights import first_line

        raise InputError(f"{path} does not fit its spec: {first_line(error, 160)}") from None
    model.eval()
    return model
