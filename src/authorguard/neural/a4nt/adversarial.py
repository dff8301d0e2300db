"""The ``adversarial`` stage: GAN training of the generators from the autoencoder against a discriminator initialised
from the attribute classifier, with the style, semantic and language losses (paper, Eq. 7-13), or the neutral
objective against the frozen classifier and an adversary retrained in the loop."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.classifiers import sentence_scores
from authorguard.neural.a4nt.config import AUTOENCODER, NEUTRAL_AUTOENCODER, A4NTConfig, generator_file
from authorguard.neural.a4nt.data import SettingData, pad_batch
from authorguard.neural.a4nt.folder import classifier_spec, generator_spec, load_network
from authorguard.neural.a4nt.loop import (
    Report,
    class_batch,
    clip_step,
    device_name,
    differentiable_eval,
    load_file,
    noise_generator,
    quiet,
    run_steps,
    save_file,
)
from authorguard.neural.a4nt.text import Vocabulary

#: sentences per window when the monitor pools the adversary's posteriors (a short document's worth)
MONITOR_WINDOW = 16


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

    found, caught, kept, total = 0, 0, 0.0, 0
    pooled_caught, windows = 0, 0
    generator.eval()
    with torch.no_grad():
        for label in range(len(data.classes)):
            mine = [s for s, c in zip(data.validation, data.validation_labels) if c == label][:256]
            if not mine:
                continue
            ids, mask = pad_batch(mine)
            target = (
                0 if config.objective == "neutral" else _other_class(label, len(data.classes), np.random.default_rng(0))
            )
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
        extra["weights"] = {
            k: (fixed[k] if fixed[k] is not None else (1.0 if k == "style" else style0 / max(float(v.detach()), 1e-6)))
            for k, v in losses.items()
        }
    total = sum(extra["weights"][k] * v for k, v in losses.items())
    clip_step(optimizer, generator.parameters(), total)
    return losses, total


def _opponents(config: A4NTConfig, folder: Path, vocabulary: Vocabulary, n_classes: int) -> dict:
    """What the generator trains against: the discriminator (a trainable copy of the attribute classifier), the
    frozen classifier, each class's frozen language model (when the language loss is on) and MiniLM (``fbsem``)."""
    discriminator = load_network(folder / "classifier.pt", "classifier")
    frozen = load_network(folder / "classifier.pt", "classifier")
    language_models = [
        load_network(folder / f"language-models/{c}.pt", "language-model") if config.language_loss else None
        for c in range(n_classes)
    ]
    for network in [frozen, *[m for m in language_models if m is not None]]:
        for parameter in network.parameters():
            parameter.requires_grad_(False)
    embedder = None
    if config.semantic == "fbsem":
        from authorguard.neural.a4nt.semantic import SoftMiniLM

        embedder = SoftMiniLM(vocabulary)
    return {
        "discriminator": discriminator,
        "frozen": frozen,
        "language_models": language_models,
        "embedder": embedder,
    }


def train_adversarial(
    config: A4NTConfig, folder: Path, data: SettingData, vocabulary: Vocabulary, report: Report = quiet
) -> Path:
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
        raise InputError(
            f"A4NT model folder {folder}: {start.name} is missing (run the autoencoder stage"
            + (' with objective = "neutral")' if neutral else ")")
        )
    generator.load_state_dict(load_file(start)["state"])
    networks = {"generator": generator, **_opponents(config, folder, vocabulary, n_classes)}
    discriminator = networks["discriminator"]
    g_optimizer = torch.optim.RMSprop(generator.parameters(), lr=config.generator_learning_rate)
    d_optimizer = torch.optim.RMSprop(discriminator.parameters(), lr=config.discriminator_learning_rate)
    make_step = _neutral_step if neutral else _flip_step
    step = make_step(config, data, networks, g_optimizer, d_optimizer)
    started = time.perf_counter()
    history, extra = run_steps(
        f"adversarial-{config.variant}",
        out_dir / "generator.pt.checkpoint",
        {"generator": generator, "discriminator": discriminator},
        {"generator": g_optimizer, "discriminator": d_optimizer},
        config.adversarial_steps,
        step,
        config,
        report,
    )
    save_file(
        {
            "spec": spec,
            "state": generator.state_dict(),
            "history": history,
            "weights": extra.get("weights"),
            "config": config.to_dict(),
            "seconds": time.perf_counter() - started,
            "device": device_name(),
        },
        path,
    )
    if neutral:  # the adversary as trained against the final generator: an attacker the evaluation can reuse
        save_file(
            {"spec": classifier_spec(config, vocabulary, n_classes), "state": discriminator.state_dict()},
            out_dir / "adversary.pt",
        )
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
        gumbel = noise_generator(rng)
        terms: dict[str, list[torch.Tensor]] = {"style": [], "semantic": [], "language": []}
        generated = []
        for source_label in range(n_classes):
            target_label = _other_class(source_label, n_classes, rng)
            sentences = class_batch(data, source_label, per_class, rng)
            source, source_mask = pad_batch(sentences)
            out = generator.generate(
                source, source_mask, target_label, config.max_tokens + 1, "gumbel", config.gumbel_temperature, gumbel
            )
            soft, words = out["soft"], out["words"]
            terms["style"].append(-torch.log_softmax(discriminator(soft, words), -1)[:, target_label])
            terms["semantic"].append(
                _semantic_term(config, networks, sentences, source, source_mask, soft, words, source_label)
            )
            if config.language_loss:
                terms["language"].append(language_models[target_label].soft_nll(soft, out["mask"]))
            generated.append((soft.detach(), words, target_label))
        losses, total = _generator_update(terms, extra, config, generator, g_optimizer)
        # the discriminator: real sentences of each target class vs the generator's imitations of it
        d_terms, fooled = [], []
        for soft, words, target_label in generated:
            real, real_mask = pad_batch(class_batch(data, target_label, per_class, rng))
            real_nll = torch.nn.functional.cross_entropy(
                discriminator(real, real_mask), torch.full((real.shape[0],), target_label)
            )
            p_fake = torch.softmax(discriminator(soft, words), -1)[:, target_label]
            d_terms.append(real_nll - torch.log1p(-p_fake.clamp(max=1 - 1e-6)).mean())
            fooled.append(float((p_fake > 0.5).float().mean()))
        d_loss = torch.stack(d_terms).mean()
        clip_step(d_optimizer, discriminator.parameters(), d_loss)
        record = {
            "total": total.item(),
            "discriminator": d_loss.item(),
            "discriminator_fooled": float(np.mean(fooled)),
            **{k: v.item() for k, v in losses.items()},
        }
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
        raise InputError(
            f"A4NT config: neutral_window {window} does not divide the {per_class} sentences per class "
            f"of a batch (batch_size {config.batch_size}, {n_classes} classes)"
        )

    def style(classifier, soft, words):
        return window_neutral_loss(torch.log_softmax(classifier(soft, words), -1), window)

    def step(index, rng, extra):
        differentiable_eval(frozen, *language_models)
        gumbel = noise_generator(rng)
        terms: dict[str, list[torch.Tensor]] = {"style": [], "semantic": [], "language": []}
        generated = []
        for source_label in range(n_classes):
            sentences = class_batch(data, source_label, per_class, rng)
            source, source_mask = pad_batch(sentences)
            out = generator.generate(
                source, source_mask, 0, config.max_tokens + 1, "gumbel", config.gumbel_temperature, gumbel
            )
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
        record = {
            "total": total.item(),
            "adversary": a_loss.item(),
            "adversary_accuracy": float((logits.argmax(-1) == labels).float().mean()),
            **{k: v.item() for k, v in losses.items()},
        }
        if (index + 1) % config.checkpoint_every == 0 or index + 1 == config.adversarial_steps:
            record.update(_monitor(generator, frozen, data, config, adversary))
        return record

    return step
