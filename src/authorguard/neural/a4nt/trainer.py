"""The training stages of an A⁴NT model folder, each resumable from its last checkpoint.

``data`` (sentences, vocabulary, Punkt) -> ``classifiers`` (the attribute classifier A and the holdouts) ->
``language-models`` (one per class) -> ``autoencoder`` (each target decoder reconstructs its own class's
sentences: the paper's pre-training, and its autoencoder baseline) -> ``adversarial`` (GAN training of the
generators against a discriminator initialised from A, with the style, semantic and language losses).

Every step draws its batch from ``numpy.random.default_rng([seed, stage, step])`` and seeds torch the same way, so
a stage resumed from a checkpoint continues exactly as an uninterrupted run would.

Folder layout: ``config.json``, ``vocabulary.json``, ``punkt.json``, ``sentences.json.gz``, ``classifier.pt``,
``holdouts/<spec>.pt``, ``language-models/<class index>.pt``, ``autoencoder.pt``, ``<variant>/generator.pt``
(variants: ``cycml``, ``cycml-lang``, ``fbsem``, ``fbsem-lang``); ``*.checkpoint.pt`` while a stage runs.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.config import A4NTConfig, parse_holdout
from authorguard.neural.a4nt.data import SettingData, build_setting_data, pad_batch
from authorguard.neural.a4nt.text import SentenceSplitter, Vocabulary

STAGES = ("data", "classifiers", "language-models", "autoencoder", "adversarial")
Report = Callable[[str, int, int, dict], None]


def _quiet(stage: str, step: int, total: int, record: dict) -> None:
    return None


def _save(obj, path: Path) -> None:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    torch.save(obj, partial)
    os.replace(partial, path)


def _load(path: Path) -> dict:
    import torch

    from authorguard.neural.resources import first_line

    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:  # torch raises many kinds for a truncated or foreign file
        raise InputError(f"A4NT model file {path} cannot be read: {first_line(error, 160)}") from None


def _stage_seed(config: A4NTConfig, stage: str, step: int) -> list[int]:
    return [config.seed, zlib.crc32(stage.encode()), step]


def _run_steps(stage: str, checkpoint: Path, modules: dict, optimizers: dict, steps: int, step_fn, config: A4NTConfig,
               report: Report, extra: dict | None = None) -> tuple[list[dict], dict]:
    """Run ``step_fn(step, rng, extra) -> record`` for steps not done yet; checkpoint every
    ``config.checkpoint_every`` steps. Returns (history of records, extra state)."""
    import torch

    history, start, extra = [], 0, dict(extra or {})
    if checkpoint.exists():
        state = _load(checkpoint)
        for name, module in modules.items():
            module.load_state_dict(state["modules"][name])
        for name, optimizer in optimizers.items():
            optimizer.load_state_dict(state["optimizers"][name])
        history, start, extra = state["history"], state["step"], state["extra"]
    for module in modules.values():
        module.train()
    for step in range(start, steps):
        seed = _stage_seed(config, stage, step)
        torch.manual_seed(int(np.random.SeedSequence(seed).generate_state(1)[0]))
        record = step_fn(step, np.random.default_rng(seed), extra)
        history.append(record)
        report(stage, step + 1, steps, record)
        if (step + 1) % config.checkpoint_every == 0 and step + 1 < steps:
            _save({"modules": {k: m.state_dict() for k, m in modules.items()},
                   "optimizers": {k: o.state_dict() for k, o in optimizers.items()},
                   "history": history, "step": step + 1, "extra": extra}, checkpoint)
    for module in modules.values():
        module.eval()
    return history, extra


def balanced_batch(data: SettingData, size: int, rng: np.random.Generator) -> tuple[list[list[int]], list[int]]:
    """``size`` training sentences, classes in turn (balanced), each class's drawn uniformly."""
    sentences, labels = [], []
    for i in range(size):
        label = i % len(data.classes)
        pool = data.train[label]
        sentences.append(pool[int(rng.integers(len(pool)))])
        labels.append(label)
    return sentences, labels


def _class_batch(data: SettingData, label: int, size: int, rng: np.random.Generator) -> list[list[int]]:
    pool = data.train[label]
    return [pool[int(i)] for i in rng.integers(len(pool), size=size)]


def clip_step(optimizer, parameters, loss) -> None:
    import torch

    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(parameters, 5.0)
    optimizer.step()


# -- folder ------------------------------------------------------------------------------------------------


def prepare_folder(config: A4NTConfig, folder: Path, report: Report = _quiet) -> tuple[SettingData, Vocabulary]:
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
        config_path.write_text(json.dumps({"shared": config.shared(), "config": config.to_dict(),
                                           "classes": SettingData.load(data_path).classes}, indent=2), encoding="utf-8")
    return SettingData.load(data_path), Vocabulary.load(folder / "vocabulary.json")


def load_splitter(folder: Path) -> SentenceSplitter:
    return SentenceSplitter.from_dict(json.loads((folder / "punkt.json").read_text(encoding="utf-8")))


# -- classifiers and language models ----------------------------------------------------------------------------


def classifier_spec(config: A4NTConfig, vocabulary: Vocabulary, n_classes: int, holdout: str | None = None) -> dict:
    kind, width, layers = parse_holdout(holdout) if holdout else ("lstm", config.hidden_size, 1)
    return {"kind": kind, "width": width, "layers": layers, "vocab_size": len(vocabulary), "n_classes": n_classes,
            "embedding_dim": config.embedding_dim, "dropout": config.dropout}


def sentence_scores(model, sentences: list[list[int]], batch_size: int = 256):
    """Class log-probabilities of each sentence, (N, C) numpy; empty sentences read as one ``<unk>``."""
    import torch

    outputs = []
    model.eval()
    with torch.no_grad():
        for start in range(0, len(sentences), batch_size):
            chunk = [s or [Vocabulary.unk] for s in sentences[start : start + batch_size]]
            ids, mask = pad_batch(chunk)
            outputs.append(torch.log_softmax(model(ids, mask), dim=-1).numpy())
    return np.concatenate(outputs) if outputs else np.zeros((0, 0))


def train_classifier(config: A4NTConfig, folder: Path, data: SettingData, vocabulary: Vocabulary, holdout: str | None = None,
                     report: Report = _quiet) -> Path:
    """Train the attribute classifier (``holdout`` None) or one holdout classifier on real sentences; stores
    its validation sentence accuracy and macro F1."""
    import torch

    from authorguard.metrics.classification import classification_scores
    from authorguard.neural.a4nt.networks import build_classifier

    name = "classifier" if holdout is None else f"holdout-{holdout}"
    path = folder / ("classifier.pt" if holdout is None else f"holdouts/{holdout}.pt")
    if path.exists():
        return path
    spec = classifier_spec(config, vocabulary, len(data.classes), holdout)
    torch.manual_seed(zlib.crc32(name.encode()) + config.seed)
    model = build_classifier(spec)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=config.classifier_learning_rate)
    steps = config.classifier_steps if holdout is None else config.holdout_steps

    def step(_, rng, extra):
        sentences, labels = balanced_batch(data, config.pretrain_batch_size, rng)
        ids, mask = pad_batch(sentences)
        loss = torch.nn.functional.cross_entropy(model(ids, mask), torch.tensor(labels))
        clip_step(optimizer, model.parameters(), loss)
        return {"loss": loss.item()}

    started = time.perf_counter()
    history, _ = _run_steps(name, path.with_name(path.name + ".checkpoint"), {"model": model}, {"optimizer": optimizer},
                            steps, step, config, report)
    predicted = sentence_scores(model, data.validation).argmax(1) if data.validation else []
    metrics = classification_scores(data.validation_labels, list(predicted)) if data.validation else {}
    _save({"spec": spec, "state": model.state_dict(), "history": history, "validation": metrics,
           "seconds": time.perf_counter() - started}, path)
    path.with_name(path.name + ".checkpoint").unlink(missing_ok=True)
    return path


def train_language_model(config: A4NTConfig, folder: Path, data: SettingData, vocabulary: Vocabulary, label: int,
                         report: Report = _quiet) -> Path:
    """Train class ``label``'s word-level language model; stores its validation perplexity on that class."""
    import torch

    from authorguard.neural.a4nt.networks import LanguageModel

    name = f"language-model-{label}"
    path = folder / f"language-models/{label}.pt"
    if path.exists():
        return path
    spec = {"vocab_size": len(vocabulary), "embedding_dim": config.embedding_dim, "hidden_size": config.hidden_size,
            "dropout": config.dropout}
    torch.manual_seed(zlib.crc32(name.encode()) + config.seed)
    model = LanguageModel(**spec)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=config.pretrain_learning_rate)

    def step(_, rng, extra):
        ids, mask = pad_batch(_class_batch(data, label, config.pretrain_batch_size, rng), append_end=True)
        loss = model.token_nll(ids, mask).sum() / mask.sum()
        clip_step(optimizer, model.parameters(), loss)
        return {"loss": loss.item()}

    started = time.perf_counter()
    history, _ = _run_steps(name, path.with_name(path.name + ".checkpoint"), {"model": model}, {"optimizer": optimizer},
                            config.language_model_steps, step, config, report)
    mine = [s for s, c in zip(data.validation, data.validation_labels) if c == label]
    perplexity = None
    if mine:
        with torch.no_grad():
            ids, mask = pad_batch(mine[:1000], append_end=True)
            perplexity = float(torch.exp(model.token_nll(ids, mask).sum() / mask.sum()))
    _save({"spec": spec, "state": model.state_dict(), "history": history, "validation_perplexity": perplexity,
           "seconds": time.perf_counter() - started}, path)
    path.with_name(path.name + ".checkpoint").unlink(missing_ok=True)
    return path


# -- generators --------------------------------------------------------------------------------------------------


def generator_spec(config: A4NTConfig, vocabulary: Vocabulary, n_classes: int) -> dict:
    return {"vocab_size": len(vocabulary), "n_classes": n_classes, "embedding_dim": config.embedding_dim,
            "hidden_size": config.hidden_size, "dropout": config.dropout}


def pretrain_autoencoder(config: A4NTConfig, folder: Path, data: SettingData, vocabulary: Vocabulary,
                         report: Report = _quiet) -> Path:
    """Each target decoder learns to reconstruct its own class's sentences through the shared encoder."""
    import torch

    from authorguard.neural.a4nt.networks import StyleTransfer

    path = folder / "autoencoder.pt"
    if path.exists():
        return path
    spec = generator_spec(config, vocabulary, len(data.classes))
    torch.manual_seed(zlib.crc32(b"autoencoder") + config.seed)
    model = StyleTransfer(**spec)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=config.pretrain_learning_rate)
    per_class = max(1, config.pretrain_batch_size // len(data.classes))

    def step(_, rng, extra):
        losses = []
        for label in range(len(data.classes)):
            sentences = _class_batch(data, label, per_class, rng)
            source, source_mask = pad_batch(sentences)
            target, target_mask = pad_batch(sentences, append_end=True)
            losses.append(model.target_nll(source, source_mask, target, target_mask, label).sum() / target_mask.sum())
        loss = torch.stack(losses).mean()
        clip_step(optimizer, model.parameters(), loss)
        return {"loss": loss.item()}

    started = time.perf_counter()
    history, _ = _run_steps("autoencoder", path.with_name(path.name + ".checkpoint"), {"model": model},
                            {"optimizer": optimizer}, config.autoencoder_steps, step, config, report)
    _save({"spec": spec, "state": model.state_dict(), "history": history, "seconds": time.perf_counter() - started}, path)
    path.with_name(path.name + ".checkpoint").unlink(missing_ok=True)
    return path


def load_network(path: Path, kind: str):
    """A trained network from the folder: ``kind`` in {"classifier", "language-model", "generator"}."""
    from authorguard.neural.a4nt.networks import LanguageModel, StyleTransfer, build_classifier

    if not path.is_file():
        raise InputError(f"A4NT model folder {path.parent}: {path.name} is missing (train that stage first)")
    stored = _load(path)
    if not isinstance(stored, dict) or "spec" not in stored or "state" not in stored:
        raise InputError(f"{path} is not an A4NT network file")
    builder = {"classifier": build_classifier, "language-model": lambda s: LanguageModel(**s),
               "generator": lambda s: StyleTransfer(**s)}[kind]
    model = builder(stored["spec"])
    try:
        model.load_state_dict(stored["state"])
    except RuntimeError as error:
        from authorguard.neural.resources import first_line

        raise InputError(f"{path} does not fit its spec: {first_line(error, 160)}") from None
    model.eval()
    return model


def _other_class(label: int, n_classes: int, rng: np.random.Generator) -> int:
    if n_classes == 2:
        return 1 - label
    return int((label + 1 + rng.integers(n_classes - 1)) % n_classes)


def _monitor(generator, classifier, data: SettingData, config: A4NTConfig) -> dict:
    """On up to 256 validation sentences per class: how often the frozen attribute classifier still finds the
    source class in the greedy rewrites, and the share of rewritten tokens equal to the input's."""
    import torch

    found, kept, total = 0, 0, 0
    generator.eval()
    with torch.no_grad():
        for label in range(len(data.classes)):
            mine = [s for s, c in zip(data.validation, data.validation_labels) if c == label][:256]
            if not mine:
                continue
            ids, mask = pad_batch(mine)
            out = generator.generate(ids, mask, _other_class(label, len(data.classes), np.random.default_rng(0)),
                                     config.max_tokens + 1, "greedy")
            words = [row[m].tolist() for row, m in zip(out["tokens"], out["words"])]
            found += int((sentence_scores(classifier, words).argmax(1) == label).sum())
            kept += sum(len(set(a) & set(b)) / max(1, len(set(a))) for a, b in zip(mine, words))
            total += len(mine)
    generator.train()
    return {"validation_source_accuracy": found / max(1, total), "validation_token_overlap": kept / max(1, total)}


def train_adversarial(config: A4NTConfig, folder: Path, data: SettingData, vocabulary: Vocabulary,
                      report: Report = _quiet) -> Path:
    """GAN training of the generators from the autoencoder (paper, Eq. 7–13); the discriminator starts as a copy
    of the attribute classifier, which itself stays frozen for evaluation."""
    import torch

    from authorguard.neural.a4nt.networks import StyleTransfer

    out_dir = folder / config.variant
    path = out_dir / "generator.pt"
    if path.exists():
        return path
    generator = StyleTransfer(**generator_spec(config, vocabulary, len(data.classes)))
    generator.load_state_dict(_load(folder / "autoencoder.pt")["state"])
    discriminator = load_network(folder / "classifier.pt", "classifier")
    frozen = load_network(folder / "classifier.pt", "classifier")
    language_models = [load_network(folder / f"language-models/{c}.pt", "language-model") if config.language_loss else None
                       for c in range(len(data.classes))]
    for network in [frozen, *[m for m in language_models if m is not None]]:
        for parameter in network.parameters():
            parameter.requires_grad_(False)
    embedder = None
    if config.semantic == "fbsem":
        from authorguard.neural.a4nt.semantic import SoftMiniLM

        embedder = SoftMiniLM(vocabulary)
    g_optimizer = torch.optim.RMSprop(generator.parameters(), lr=config.generator_learning_rate)
    d_optimizer = torch.optim.RMSprop(discriminator.parameters(), lr=config.discriminator_learning_rate)
    n_classes = len(data.classes)
    per_class = max(1, config.batch_size // n_classes)
    fixed = {"style": config.style_weight, "semantic": config.semantic_weight, "language": config.language_weight}

    def step(index, rng, extra):
        gumbel = torch.Generator().manual_seed(int(rng.integers(2**62)))
        terms = {"style": [], "semantic": [], "language": []}
        generated = []
        for source_label in range(n_classes):
            target_label = _other_class(source_label, n_classes, rng)
            sentences = _class_batch(data, source_label, per_class, rng)
            source, source_mask = pad_batch(sentences)
            out = generator.generate(source, source_mask, target_label, config.max_tokens + 1, "gumbel",
                                     config.gumbel_temperature, gumbel)
            soft, words = out["soft"], out["words"]
            terms["style"].append(-torch.log_softmax(discriminator(soft, words), -1)[:, target_label])
            if config.semantic == "cycml":
                target, target_mask = pad_batch(sentences, append_end=True)
                terms["semantic"].append(generator.target_nll(soft, words, target, target_mask, source_label))
            else:
                terms["semantic"].append((embedder(source, source_mask) - embedder(soft, words)).abs().sum(-1))
            if config.language_loss:
                terms["language"].append(language_models[target_label].soft_nll(soft, out["mask"]))
            generated.append((soft.detach(), words, target_label))
        losses = {k: torch.cat(v).mean() for k, v in terms.items() if v}
        if "weights" not in extra:  # the paper's rule: weighted terms of equal magnitude at the start
            style0 = float(losses["style"].detach())
            extra["weights"] = {k: (fixed[k] if fixed[k] is not None else
                                    (1.0 if k == "style" else style0 / max(float(v.detach()), 1e-6)))
                                for k, v in losses.items()}
        weights = extra["weights"]
        total = sum(weights[k] * v for k, v in losses.items())
        clip_step(g_optimizer, generator.parameters(), total)
        # the discriminator: real sentences of each target class vs the generator's imitations of it
        d_terms, fooled = [], []
        for soft, words, target_label in generated:
            real, real_mask = pad_batch(_class_batch(data, target_label, per_class, rng))
            real_nll = torch.nn.functional.cross_entropy(discriminator(real, real_mask),
                                                         torch.full((real.shape[0],), target_label))
            p_fake = torch.softmax(discriminator(soft, words), -1)[:, target_label]
            d_terms.append(real_nll - torch.log1p(-p_fake.clamp(max=1 - 1e-6)).mean())
            fooled.append(float((p_fake > 0.5).float().mean()))
        d_loss = torch.stack(d_terms).mean()
        clip_step(d_optimizer, discriminator.parameters(), d_loss)
        record = {"total": total.item(), "discriminator": d_loss.item(), "discriminator_fooled": float(np.mean(fooled)),
                  **{k: v.item() for k, v in losses.items()}}
        if (index + 1) % config.checkpoint_every == 0 or index + 1 == config.adversarial_steps:
            record.update(_monitor(generator, frozen, data, config))
        return record

    started = time.perf_counter()
    history, extra = _run_steps(f"adversarial-{config.variant}", out_dir / "generator.pt.checkpoint",
                                {"generator": generator, "discriminator": discriminator},
                                {"generator": g_optimizer, "discriminator": d_optimizer},
                                config.adversarial_steps, step, config, report)
    _save({"spec": generator_spec(config, vocabulary, n_classes), "state": generator.state_dict(), "history": history,
           "weights": extra.get("weights"), "config": config.to_dict(), "seconds": time.perf_counter() - started}, path)
    (out_dir / "generator.pt.checkpoint").unlink(missing_ok=True)
    return path


def train_a4nt(config: A4NTConfig, folder: str | os.PathLike, stages: tuple[str, ...] = STAGES,
               report: Report = _quiet) -> dict:
    """Run ``stages`` (in the fixed order, skipping what is already trained); returns what each produced."""
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise InputError(f"unknown A4NT stage {unknown[0]!r} (stages: {', '.join(STAGES)})")
    folder = Path(folder)
    data, vocabulary = prepare_folder(config, folder, report)
    produced: dict[str, list[str]] = {"data": [str(folder / "sentences.json.gz")]}
    if "classifiers" in stages:
        produced["classifiers"] = [str(train_classifier(config, folder, data, vocabulary, None, report))]
        produced["classifiers"] += [str(train_classifier(config, folder, data, vocabulary, h, report)) for h in config.holdouts]
    if "language-models" in stages:
        produced["language-models"] = [str(train_language_model(config, folder, data, vocabulary, c, report))
                                       for c in range(len(data.classes))]
    if "autoencoder" in stages:
        produced["autoencoder"] = [str(pretrain_autoencoder(config, folder, data, vocabulary, report))]
    if "adversarial" in stages:
        produced["adversarial"] = [str(train_adversarial(config, folder, data, vocabulary, report))]
    return produced
