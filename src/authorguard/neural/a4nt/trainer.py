"""The training stages of an A⁴NT model folder, each resumable from its last checkpoint.

``data`` (sentences, vocabulary, Punkt) -> ``classifiers`` (the attribute classifier A and the holdouts) ->
``language-models`` (one per class) -> ``autoencoder`` (each target decoder reconstructs its own class's
sentences: the paper's pre-training, and its autoencoder baseline) -> ``adversarial`` (GAN training of the
generators against a discriminator initialised from A, with the style, semantic and language losses).

Every step draws its batch from ``numpy.random.default_rng([seed, stage, step])`` and seeds torch the same way, so
a stage resumed from a checkpoint continues exactly as an uninterrupted run would (on the same device: a GPU draws
other Gumbel noise and sums in another order than the CPU, so a folder trained there is not bit-identical to one
trained here). ``train_a4nt(..., device="cuda")`` runs the stages on a GPU: networks and batches are made on
torch's default device, set for the run; files are stored as CPU tensors' state and load on either.

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
from authorguard.neural.a4nt.config import AUTOENCODER, NEUTRAL_AUTOENCODER, A4NTConfig, generator_file, parse_holdout
from authorguard.neural.a4nt.data import SettingData, build_setting_data, pad_batch
from authorguard.neural.a4nt.text import SentenceSplitter, Vocabulary

STAGES = ("data", "classifiers", "language-models", "autoencoder", "adversarial")
#: sentences per window when the monitor pools the adversary's posteriors (a short document's worth)
MONITOR_WINDOW = 16
Report = Callable[[str, int, int, dict], None]


def _quiet(stage: str, step: int, total: int, record: dict) -> None:
    return None


def _on_cpu(obj):
    """``obj`` with every tensor in it (nested dicts, lists, tuples) moved to the CPU."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.cpu()
    if isinstance(obj, dict):
        return {k: _on_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_on_cpu(v) for v in obj)
    return obj


def _device_name() -> str:
    """Where the stage ran (torch's default device), recorded in its file."""
    import torch

    return str(torch.get_default_device())


def _save(obj, path: Path) -> None:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    torch.save(_on_cpu(obj), partial)
    os.replace(partial, path)


def _load(path: Path) -> dict:
    import torch

    from authorguard.neural.resources import first_line

    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:  # torch raises many kinds for a truncated or foreign file
        raise InputError(f"A4NT model file {path} cannot be read: {first_line(error, 160)}") from None


def _noise_generator(rng: np.random.Generator):
    """A torch generator on the default device (a GPU's sampling needs a generator of its own device), seeded from
    the step's ``rng``."""
    import torch

    return torch.Generator(device=torch.get_default_device()).manual_seed(int(rng.integers(2**62)))


def differentiable_eval(*networks) -> None:
    """Frozen networks that gradients pass through (the attribute classifier, the language models): evaluation mode
    (no dropout), except their single-layer LSTMs, set to training mode — cuDNN computes an LSTM's backward pass in
    training mode only, and a one-layer LSTM (no inter-layer dropout) computes the same either way. Called at each
    step, since scoring (:func:`sentence_scores`) puts a network back in evaluation mode."""
    import torch

    for network in networks:
        if network is None:
            continue
        network.eval()
        for module in network.modules():
            if isinstance(module, torch.nn.RNNBase) and (module.num_layers == 1 or module.dropout == 0):
                module.train()


def _stage_seed(config: A4NTConfig, stage: str, step: int) -> list[int]:
    return [config.seed, zlib.crc32(stage.encode()), step]


def _run_steps(stage: str, checkpoint: Path, modules: dict, optimizers: dict, steps: int, step_fn, config: A4NTConfig,
               report: Report, extra: dict | None = None) -> tuple[list[dict], dict]:
    """Run ``step_fn(step, rng, extra) -> record`` for steps not done yet; checkpoint every
    ``config.checkpoint_every`` steps; a step that sets ``extra["stop"]`` ends the stage. Returns (history of
    records, extra state)."""
    import torch

    history, start, extra = [], 0, dict(extra or {})
    if checkpoint.exists():  # (a stage stopped early leaves no checkpoint: its file is written at once)
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
        if extra.get("stop"):  # the step ended the stage (early stopping)
            break
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
            outputs.append(torch.log_softmax(model(ids, mask), dim=-1).cpu().numpy())
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
           "seconds": time.perf_counter() - started,
           "device": _device_name()}, path)
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
           "seconds": time.perf_counter() - started,
           "device": _device_name()}, path)
    path.with_name(path.name + ".checkpoint").unlink(missing_ok=True)
    return path


# -- generators --------------------------------------------------------------------------------------------------


def generator_spec(config: A4NTConfig, vocabulary: Vocabulary, n_classes: int) -> dict:
    return {"vocab_size": len(vocabulary), "n_classes": n_classes, "embedding_dim": config.embedding_dim,
            "hidden_size": config.hidden_size, "dropout": config.dropout}


def reconstruction_meteor(model, data: SettingData, vocabulary: Vocabulary, sentences: int, decoder=None) -> float:
    """Mean METEOR of the greedy reconstructions of the first ``sentences`` validation sentences, each through
    the decoder of its own class (``decoder`` set: that one decoder for all)."""
    import torch

    from authorguard.metrics.content import meteor
    from authorguard.neural.a4nt.text import detokenize

    scores = []
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for label in range(len(data.classes)):
            mine = [s for s, c in zip(data.validation, data.validation_labels) if c == label][: max(1, sentences // len(data.classes))]
            for start in range(0, len(mine), 256):
                chunk = mine[start : start + 256]
                out = model.generate(*pad_batch(chunk), label if decoder is None else decoder, max(map(len, chunk)) + 5, "greedy")
                for original, row, words in zip(chunk, out["tokens"], out["words"]):
                    scores.append(meteor(detokenize(vocabulary.decode(original)), detokenize(vocabulary.decode(row[words].tolist()))))
    model.train(was_training)
    return float(np.mean(scores)) if scores else float("nan")


def pretrain_autoencoder(config: A4NTConfig, folder: Path, data: SettingData, vocabulary: Vocabulary,
                         report: Report = _quiet, neutral: bool = False) -> Path:
    """Each target decoder learns to reconstruct its own class's sentences through the shared encoder; with
    ``neutral``, one decoder learns to reconstruct every class's sentences (``neutral-autoencoder.pt``, the
    neutral objective's starting point). With ``config.autoencoder_eval_every`` the best weights by validation
    METEOR are kept and training stops after ``autoencoder_patience`` measurements without a gain; the curve is
    stored (``curve``: step, METEOR)."""
    import copy

    import torch

    from authorguard.neural.a4nt.networks import StyleTransfer

    name = NEUTRAL_AUTOENCODER if neutral else AUTOENCODER
    path = folder / generator_file(name)
    if path.exists():
        return path
    spec = generator_spec(config, vocabulary, 1 if neutral else len(data.classes))
    torch.manual_seed(zlib.crc32(name.encode()) + config.seed)
    model = StyleTransfer(**spec)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=config.pretrain_learning_rate)
    per_class = max(1, config.pretrain_batch_size // len(data.classes))
    every = config.autoencoder_eval_every if data.validation else 0

    def step(index, rng, extra):
        losses = []
        for label in range(len(data.classes)):
            sentences = _class_batch(data, label, per_class, rng)
            source, source_mask = pad_batch(sentences)
            target, target_mask = pad_batch(sentences, append_end=True)
            losses.append(model.target_nll(source, source_mask, target, target_mask, 0 if neutral else label).sum()
                          / target_mask.sum())
        loss = torch.stack(losses).mean()
        clip_step(optimizer, model.parameters(), loss)
        record = {"loss": loss.item()}
        if every and ((index + 1) % every == 0 or index + 1 == config.autoencoder_steps):
            score = reconstruction_meteor(model, data, vocabulary, config.autoencoder_eval_sentences, 0 if neutral else None)
            record["validation_meteor"] = score
            extra.setdefault("curve", []).append({"step": index + 1, "meteor": score})
            if score > extra.get("best_meteor", -1.0):
                extra.update(best_meteor=score, best_step=index + 1, best_state=copy.deepcopy(model.state_dict()),
                             since_best=0)
            else:
                extra["since_best"] += 1
                extra["stop"] = extra["since_best"] >= config.autoencoder_patience
        return record

    started = time.perf_counter()
    history, extra = _run_steps(name, path.with_name(path.name + ".checkpoint"), {"model": model},
                                {"optimizer": optimizer}, config.autoencoder_steps, step, config, report)
    if "best_state" in extra:
        model.load_state_dict(extra["best_state"])
    _save({"spec": spec, "state": model.state_dict(), "history": history, "seconds": time.perf_counter() - started,
           "device": _device_name(), "curve": extra.get("curve", []), "best_step": extra.get("best_step"),
           "stopped_early": bool(extra.get("stop"))},
          path)
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


def _monitor(generator, classifier, data: SettingData, config: A4NTConfig, adversary=None) -> dict:
    """On up to 256 validation sentences per class: how often the frozen attribute classifier (and, for the
    neutral objective, the adversary trained on the generator's output) still finds the source class in the
    greedy rewrites, and the share of rewritten tokens equal to the input's. The adversary is also read as a
    document attacker reads it: its posteriors pooled over windows of ``MONITOR_WINDOW`` rewrites of one class."""
    import torch

    from authorguard.neural.a4nt.losses import pooled_log_probs

    found, caught, kept, total = 0, 0, 0, 0
    pooled_caught, windows = 0, 0
    generator.eval()
    with torch.no_grad():
        for label in range(len(data.classes)):
            mine = [s for s, c in zip(data.validation, data.validation_labels) if c == label][:256]
            if not mine:
                continue
            ids, mask = pad_batch(mine)
            target = 0 if config.objective == "neutral" else _other_class(label, len(data.classes), np.random.default_rng(0))
            out = generator.generate(ids, mask, target, config.max_tokens + 1, "greedy")
            words = [row[m].tolist() for row, m in zip(out["tokens"], out["words"])]
            found += int((sentence_scores(classifier, words).argmax(1) == label).sum())
            if adversary is not None:
                scores = sentence_scores(adversary, words)
                caught += int((scores.argmax(1) == label).sum())
                whole = len(scores) // MONITOR_WINDOW * MONITOR_WINDOW
                pooled = pooled_log_probs(torch.from_numpy(scores[:whole]), MONITOR_WINDOW)
                pooled_caught += int((pooled.argmax(1) == label).sum())
                windows += len(pooled)
            kept += sum(len(set(a) & set(b)) / max(1, len(set(a))) for a, b in zip(mine, words))
            total += len(mine)
    generator.train()
    if adversary is not None:
        adversary.train()  # sentence_scores left it in evaluation mode
    record = {"validation_source_accuracy": found / max(1, total), "validation_token_overlap": kept / max(1, total)}
    if adversary is not None:
        record["validation_adversary_accuracy"] = caught / max(1, total)
        record[f"validation_adversary_window{MONITOR_WINDOW}_accuracy"] = pooled_caught / max(1, windows)
    return record


def _generator_update(terms: dict, extra: dict, config: A4NTConfig, generator, optimizer):
    """One generator step on the batch's loss terms (lists of per-sentence tensors): the mean of each term,
    weighted — weights not given in the config are set at the first step so each weighted term starts at the
    style loss's magnitude (the paper's rule) and kept in ``extra`` — and summed. Returns (term means, total)."""
    import torch

    losses = {k: torch.cat(v).mean() for k, v in terms.items() if v}
    if "weights" not in extra:
        fixed = {"style": config.style_weight, "semantic": config.semantic_weight, "language": config.language_weight}
        style0 = float(losses["style"].detach())
        extra["weights"] = {k: (fixed[k] if fixed[k] is not None else
                                (1.0 if k == "style" else style0 / max(float(v.detach()), 1e-6)))
                            for k, v in losses.items()}
    total = sum(extra["weights"][k] * v for k, v in losses.items())
    clip_step(optimizer, generator.parameters(), total)
    return losses, total


def train_adversarial(config: A4NTConfig, folder: Path, data: SettingData, vocabulary: Vocabulary,
                      report: Report = _quiet) -> Path:
    """GAN training of the generators from the autoencoder (paper, Eq. 7–13); the discriminator starts as a copy
    of the attribute classifier, which itself stays frozen for evaluation. With ``config.objective == "neutral"``
    the one generator of the neutral autoencoder is trained against the frozen classifier and an adversary (see
    :func:`_neutral_step`)."""
    import torch

    from authorguard.neural.a4nt.networks import StyleTransfer

    path = folder / generator_file(config.variant)
    out_dir = path.parent
    if path.exists():
        return path
    neutral = config.objective == "neutral"
    n_classes = len(data.classes)
    spec = generator_spec(config, vocabulary, 1 if neutral else n_classes)
    generator = StyleTransfer(**spec)
    start = folder / generator_file(NEUTRAL_AUTOENCODER if neutral else AUTOENCODER)
    if not start.is_file():
        raise InputError(f"A4NT model folder {folder}: {start.name} is missing (run the autoencoder stage"
                         + (" with objective = \"neutral\")" if neutral else ")"))
    generator.load_state_dict(_load(start)["state"])
    discriminator = load_network(folder / "classifier.pt", "classifier")
    frozen = load_network(folder / "classifier.pt", "classifier")
    language_models = [load_network(folder / f"language-models/{c}.pt", "language-model") if config.language_loss else None
                       for c in range(n_classes)]
    for network in [frozen, *[m for m in language_models if m is not None]]:
        for parameter in network.parameters():
            parameter.requires_grad_(False)
    embedder = None
    if config.semantic == "fbsem":
        from authorguard.neural.a4nt.semantic import SoftMiniLM

        embedder = SoftMiniLM(vocabulary)
    g_optimizer = torch.optim.RMSprop(generator.parameters(), lr=config.generator_learning_rate)
    d_optimizer = torch.optim.RMSprop(discriminator.parameters(), lr=config.discriminator_learning_rate)
    networks = {"generator": generator, "discriminator": discriminator, "frozen": frozen,
                "language_models": language_models, "embedder": embedder}
    make_step = _neutral_step if neutral else _flip_step
    step = make_step(config, data, networks, g_optimizer, d_optimizer)
    started = time.perf_counter()
    history, extra = _run_steps(f"adversarial-{config.variant}", out_dir / "generator.pt.checkpoint",
                                {"generator": generator, "discriminator": discriminator},
                                {"generator": g_optimizer, "discriminator": d_optimizer},
                                config.adversarial_steps, step, config, report)
    _save({"spec": spec, "state": generator.state_dict(), "history": history, "weights": extra.get("weights"),
           "config": config.to_dict(), "seconds": time.perf_counter() - started,
           "device": _device_name()}, path)
    if neutral:  # the adversary as trained against the final generator: an attacker the evaluation can reuse
        _save({"spec": classifier_spec(config, vocabulary, n_classes), "state": discriminator.state_dict()},
              out_dir / "adversary.pt")
    (out_dir / "generator.pt.checkpoint").unlink(missing_ok=True)
    return path


def _semantic_term(config: A4NTConfig, networks: dict, sentences, source, source_mask, soft, words, decoder: int):
    """The semantic loss of one batch: ``cycml`` reconstructs the input from the rewrite through ``decoder``;
    ``fbsem`` is the L1 distance of MiniLM embeddings."""
    if config.semantic == "cycml":
        target, target_mask = pad_batch(sentences, append_end=True)
        return networks["generator"].target_nll(soft, words, target, target_mask, decoder)
    embedder = networks["embedder"]
    return (embedder(source, source_mask) - embedder(soft, words)).abs().sum(-1)


def _flip_step(config: A4NTConfig, data: SettingData, networks: dict, g_optimizer, d_optimizer):
    """One step of the paper's GAN: each source class's sentences into another class's style (style loss: the
    discriminator's NLL of the target class), then the discriminator on real target-class sentences vs the
    imitations."""
    import torch

    generator, discriminator = networks["generator"], networks["discriminator"]
    language_models = networks["language_models"]
    n_classes = len(data.classes)
    per_class = max(1, config.batch_size // n_classes)

    def step(index, rng, extra):
        differentiable_eval(*language_models)
        gumbel = _noise_generator(rng)
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
            terms["semantic"].append(_semantic_term(config, networks, sentences, source, source_mask, soft, words,
                                                    source_label))
            if config.language_loss:
                terms["language"].append(language_models[target_label].soft_nll(soft, out["mask"]))
            generated.append((soft.detach(), words, target_label))
        losses, total = _generator_update(terms, extra, config, generator, g_optimizer)
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
            record.update(_monitor(generator, networks["frozen"], data, config))
        return record

    return step


def _neutral_step(config: A4NTConfig, data: SettingData, networks: dict, g_optimizer, d_optimizer):
    """One step of the neutral objective (docs/neural.md): the one generator rewrites a balanced batch of every
    class; its style loss is KL(prior ‖ posterior) under the frozen attribute classifier and under the adversary,
    averaged — per sentence, or with ``config.neutral_window`` k > 1 per window of k rewrites of one source class,
    the posteriors pooled (:func:`~authorguard.neural.a4nt.losses.window_neutral_loss`); the cycle loss
    reconstructs each input from its rewrite through the same generator; the language loss averages the classes'
    language models. Then the adversary (the "discriminator", initialised from the attribute classifier) takes one
    step of cross-entropy on the rewrites labelled with their *source* class — the attacker retrained on the
    obfuscator's output, in the loop."""
    import torch

    from authorguard.neural.a4nt.losses import window_neutral_loss

    generator, adversary, frozen = networks["generator"], networks["discriminator"], networks["frozen"]
    language_models = [m for m in networks["language_models"] if m is not None]
    n_classes = len(data.classes)
    per_class = max(1, config.batch_size // n_classes)
    window = config.neutral_window
    if per_class % window:
        raise InputError(f"A4NT config: neutral_window {window} does not divide the {per_class} sentences per class "
                         f"of a batch (batch_size {config.batch_size}, {n_classes} classes)")

    def style(classifier, soft, words):
        return window_neutral_loss(torch.log_softmax(classifier(soft, words), -1), window)

    def step(index, rng, extra):
        differentiable_eval(frozen, *language_models)
        gumbel = _noise_generator(rng)
        terms = {"style": [], "semantic": [], "language": []}
        generated = []
        for source_label in range(n_classes):
            sentences = _class_batch(data, source_label, per_class, rng)
            source, source_mask = pad_batch(sentences)
            out = generator.generate(source, source_mask, 0, config.max_tokens + 1, "gumbel", config.gumbel_temperature,
                                     gumbel)
            soft, words = out["soft"], out["words"]
            terms["style"].append(0.5 * (style(adversary, soft, words) + style(frozen, soft, words)))
            terms["semantic"].append(_semantic_term(config, networks, sentences, source, source_mask, soft, words, 0))
            if language_models:
                terms["language"].append(torch.stack([m.soft_nll(soft, out["mask"]) for m in language_models]).mean(0))
            generated.append((soft.detach(), words, source_label))
        losses, total = _generator_update(terms, extra, config, generator, g_optimizer)
        width = max(g[0].shape[1] for g in generated)  # each class's batch stopped at its own length
        soft = torch.cat([torch.nn.functional.pad(g[0], (0, 0, 0, width - g[0].shape[1])) for g in generated])
        words = torch.cat([torch.nn.functional.pad(g[1], (0, width - g[1].shape[1])) for g in generated])
        labels = torch.cat([torch.full((g[0].shape[0],), g[2]) for g in generated])
        logits = adversary(soft, words)
        a_loss = torch.nn.functional.cross_entropy(logits, labels)
        clip_step(d_optimizer, adversary.parameters(), a_loss)
        record = {"total": total.item(), "adversary": a_loss.item(),
                  "adversary_accuracy": float((logits.argmax(-1) == labels).float().mean()),
                  **{k: v.item() for k, v in losses.items()}}
        if (index + 1) % config.checkpoint_every == 0 or index + 1 == config.adversarial_steps:
            record.update(_monitor(generator, frozen, data, config, adversary))
        return record

    return step


def training_device(device: str = "cpu"):
    """``device`` as a ``torch.device``, which is also the context (``with training_device("cuda"): ...``) that
    makes it torch's default device, so networks and batches are made there: ``cpu``, ``cuda``, ``cuda:N`` or
    ``auto`` (a GPU when torch sees one). An unknown or absent device is refused with a one-line error."""
    import torch

    name = str(device).strip().lower()
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        resolved = torch.device(name)
    except RuntimeError:
        resolved = None
    if resolved is None or resolved.type not in ("cpu", "cuda"):
        raise InputError(f"unknown device {device!r} (cpu, cuda, cuda:N or auto)")
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {device!r}: torch sees no CUDA GPU here (use cpu or auto)")
    return resolved


def train_a4nt(config: A4NTConfig, folder: str | os.PathLike, stages: tuple[str, ...] = STAGES,
               report: Report = _quiet, device: str = "cpu") -> dict:
    """Run ``stages`` (in the fixed order, skipping what is already trained) on ``device`` (see
    :func:`training_device`); returns what each produced."""
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise InputError(f"unknown A4NT stage {unknown[0]!r} (stages: {', '.join(STAGES)})")
    with training_device(device):
        return _train_stages(config, Path(folder), stages, report)


def _train_stages(config: A4NTConfig, folder: Path, stages: tuple[str, ...], report: Report) -> dict:
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
        if config.objective == "neutral":
            produced["autoencoder"].append(str(pretrain_autoencoder(config, folder, data, vocabulary, report, neutral=True)))
    if "adversarial" in stages:
        produced["adversarial"] = [str(train_adversarial(config, folder, data, vocabulary, report))]
    return produced
