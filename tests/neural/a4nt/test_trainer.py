"""The training stages on the toy two-style language: losses fall, resuming is exact, adversarial training fools
the frozen attribute classifier more than the autoencoder does."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from authorguard.neural.a4nt import adversarial, autoencoder, classifiers, loop, trainer  # noqa: E402
from authorguard.neural.a4nt import folder as model_folder  # noqa: E402
from authorguard.neural.a4nt.data import pad_batch  # noqa: E402


class Stop(Exception):
    """Raised by :func:`_stop_at` to interrupt a stage as a killed process would."""


def _stop_at(step_to_stop: int):
    """A stage's report callback that interrupts it after ``step_to_stop`` steps."""

    def report(stage, step, total, record):
        if step == step_to_stop:
            raise Stop

    return report


def _falls(history: list[dict], key: str = "loss", k: int = 10) -> bool:
    values = [r[key] for r in history]
    return float(np.mean(values[-k:])) < float(np.mean(values[:k]))


@pytest.fixture(scope="module")
def trained(toy, tmp_path_factory):
    config, data, vocabulary = toy
    folder = tmp_path_factory.mktemp("toy")
    trainer.train_classifier(config, folder, data, vocabulary)
    for label in (0, 1):
        trainer.train_language_model(config, folder, data, vocabulary, label)
    # identity autoencoders (each decoder reconstructs both styles), so that the style change measured after
    # adversarial training comes from the GAN losses, not from a decoder that only ever saw the target style
    both = data.train[0] + data.train[1]
    trainer.pretrain_autoencoder(config, folder, dataclasses.replace(data, train=[both, both]), vocabulary)
    trainer.train_adversarial(config, folder, data, vocabulary)
    return folder


def test_pretraining_losses_fall_and_the_classifier_learns(trained):
    classifier = loop.load_file(trained / "classifier.pt")
    assert _falls(classifier["history"])
    assert classifier["validation"]["accuracy"] > 0.9  # the styles differ in word choice: easy to tell apart
    for name in ("language-models/0.pt", "language-models/1.pt", "autoencoder.pt"):
        assert _falls(loop.load_file(trained / name)["history"]), name
    assert loop.load_file(trained / "language-models/0.pt")["validation_perplexity"] < 30


def _source_accuracy(generator, classifier, data) -> float:
    found = total = 0
    with torch.no_grad():
        for label in (0, 1):
            mine = [s for s, c in zip(data.validation, data.validation_labels) if c == label]
            out = generator.generate(*pad_batch(mine), 1 - label, 14, "greedy")
            words = [row[m].tolist() or [3] for row, m in zip(out["tokens"], out["words"])]
            found += int((classifiers.sentence_scores(classifier, words).argmax(1) == label).sum())
            total += len(mine)
    return found / total


def test_adversarial_training_fools_the_frozen_classifier_more_than_the_autoencoder(toy, trained):
    _, data, _ = toy
    classifier = model_folder.load_network(trained / "classifier.pt", "classifier")
    before = _source_accuracy(model_folder.load_network(trained / "autoencoder.pt", "generator"), classifier, data)
    after = _source_accuracy(
        model_folder.load_network(trained / "cycml-lang/generator.pt", "generator"), classifier, data
    )
    assert before > 0.8  # the identity autoencoder keeps the source style
    assert after < before - 0.3
    stored = loop.load_file(trained / "cycml-lang/generator.pt")
    assert set(stored["weights"]) == {"style", "semantic", "language"} and stored["weights"]["style"] == 1.0
    first = stored["history"][0]
    # the paper's rule: each weighted term starts at the style loss's magnitude
    for term in ("semantic", "language"):
        assert stored["weights"][term] * first[term] == pytest.approx(first["style"], rel=1e-4)
    assert "validation_source_accuracy" in stored["history"][-1]


def test_a_stage_resumed_from_its_checkpoint_matches_an_uninterrupted_run(toy, tmp_path):
    config, data, vocabulary = toy
    config = dataclasses.replace(config, autoencoder_steps=30, checkpoint_every=10)
    whole = trainer.pretrain_autoencoder(config, tmp_path / "whole", data, vocabulary)

    with pytest.raises(Stop):
        trainer.pretrain_autoencoder(config, tmp_path / "resumed", data, vocabulary, report=_stop_at(15))
    assert (tmp_path / "resumed" / "autoencoder.pt.checkpoint").exists()
    resumed = trainer.pretrain_autoencoder(config, tmp_path / "resumed", data, vocabulary)
    a, b = loop.load_file(whole), loop.load_file(resumed)
    assert [r["loss"] for r in a["history"]] == pytest.approx([r["loss"] for r in b["history"]], rel=1e-5)
    for key in a["state"]:
        assert torch.allclose(a["state"][key], b["state"][key], atol=1e-5), key
    assert not (tmp_path / "resumed" / "autoencoder.pt.checkpoint").exists()


def test_a_corrupt_network_file_is_a_one_line_error(tmp_path):
    from authorguard.exceptions import InputError

    (tmp_path / "classifier.pt").write_bytes(b"not a torch file")
    with pytest.raises(InputError, match="cannot be read") as error:
        model_folder.load_network(tmp_path / "classifier.pt", "classifier")
    assert "\n" not in str(error.value)
    with pytest.raises(InputError, match="missing"):
        model_folder.load_network(tmp_path / "autoencoder.pt", "generator")


# -- the neutral objective and early stopping ---------------------------------------------------------------


def _prior_distance(generator, classifier, data, decoder_of, window: int = 1) -> float:
    """Mean KL(uniform ‖ classifier posterior) on the greedy rewrites of the validation sentences, the posteriors
    pooled over windows of ``window`` rewrites of one class (a class's last partial window left out)."""
    from authorguard.neural.a4nt.losses import window_neutral_loss

    values = []
    with torch.no_grad():
        for label in (0, 1):
            mine = [s for s, c in zip(data.validation, data.validation_labels) if c == label]
            mine = mine[: len(mine) // window * window]
            out = generator.generate(*pad_batch(mine), decoder_of(label), 14, "greedy")
            words = [row[m].tolist() or [3] for row, m in zip(out["tokens"], out["words"])]
            values.append(window_neutral_loss(torch.from_numpy(classifiers.sentence_scores(classifier, words)), window))
    return float(torch.cat(values).mean())


@pytest.fixture(scope="module")
def neutral(toy, trained):
    import shutil

    config, data, vocabulary = toy
    config = dataclasses.replace(config, objective="neutral", adversarial_steps=60)
    folder = trained.parent / "toy-neutral"
    shutil.copytree(trained, folder, ignore=shutil.ignore_patterns("cycml-lang"))
    trainer.pretrain_autoencoder(config, folder, data, vocabulary, neutral=True)
    trainer.train_adversarial(config, folder, data, vocabulary)
    return config, folder


def test_the_neutral_objective_moves_the_classifier_posterior_to_the_prior(toy, neutral):
    _, data, _ = toy
    config, folder = neutral
    assert config.variant == "neutral-cycml-lang"
    classifier = model_folder.load_network(folder / "classifier.pt", "classifier")
    start = model_folder.load_network(folder / "neutral-autoencoder.pt", "generator")
    end = model_folder.load_network(folder / "neutral-cycml-lang/generator.pt", "generator")
    assert len(start.decoders) == len(end.decoders) == 1  # one generator for both classes
    before = _prior_distance(start, classifier, data, lambda label: 0)
    after = _prior_distance(end, classifier, data, lambda label: 0)
    assert before > 0.3  # the identity autoencoder keeps each sentence's style: a confident classifier
    assert after < before / 2
    stored = loop.load_file(folder / "neutral-cycml-lang/generator.pt")
    first = stored["history"][0]
    for term in ("semantic", "language"):  # the paper's weighting rule holds for the neutral terms too
        assert stored["weights"][term] * first[term] == pytest.approx(first["style"], rel=1e-4)
    last = stored["history"][-1]
    assert {"adversary", "adversary_accuracy", "validation_adversary_accuracy", "validation_source_accuracy"} <= set(
        last
    )
    assert (folder / "neutral-cycml-lang" / "adversary.pt").is_file()


def test_the_window_pooled_neutral_loss_trains_its_own_variant(toy, neutral, tmp_path):
    import shutil

    _, data, vocabulary = toy
    config, folder = neutral
    config = dataclasses.replace(config, neutral_window=4)
    assert config.variant == "neutral-w4-cycml-lang"
    shutil.copytree(folder, tmp_path / "f")
    trainer.train_adversarial(config, tmp_path / "f", data, vocabulary)
    classifier = model_folder.load_network(tmp_path / "f" / "classifier.pt", "classifier")
    start = model_folder.load_network(tmp_path / "f" / "neutral-autoencoder.pt", "generator")
    end = model_folder.load_network(tmp_path / "f" / "neutral-w4-cycml-lang/generator.pt", "generator")
    before = _prior_distance(start, classifier, data, lambda label: 0, window=4)
    after = _prior_distance(end, classifier, data, lambda label: 0, window=4)
    assert after < before / 2
    last = loop.load_file(tmp_path / "f" / "neutral-w4-cycml-lang/generator.pt")["history"][-1]
    assert 0.0 <= last[f"validation_adversary_window{adversarial.MONITOR_WINDOW}_accuracy"] <= 1.0
    # the sentence-level variant beside it is untouched
    assert (tmp_path / "f" / "neutral-cycml-lang/generator.pt").read_bytes() == (
        folder / "neutral-cycml-lang/generator.pt"
    ).read_bytes()


def test_a_window_that_does_not_divide_the_batch_or_a_flip_window_is_refused(toy, neutral, tmp_path):
    from authorguard.exceptions import InputError

    _, data, vocabulary = toy
    config, folder = neutral
    with pytest.raises(InputError, match="neutral_window 5 does not divide the 16"):
        trainer.train_adversarial(dataclasses.replace(config, neutral_window=5), folder, data, vocabulary)
    with pytest.raises(InputError, match="needs objective"):
        dataclasses.replace(config, objective="flip", neutral_window=4)


def test_the_neutral_stage_resumes_exactly(toy, neutral, tmp_path):
    import shutil

    _, data, vocabulary = toy
    config, folder = neutral
    config = dataclasses.replace(config, adversarial_steps=12, checkpoint_every=5)
    for name in ("whole", "resumed"):
        shutil.copytree(folder, tmp_path / name, ignore=shutil.ignore_patterns("neutral-cycml-lang"))
    trainer.train_adversarial(config, tmp_path / "whole", data, vocabulary)

    with pytest.raises(Stop):
        trainer.train_adversarial(config, tmp_path / "resumed", data, vocabulary, report=_stop_at(7))
    trainer.train_adversarial(config, tmp_path / "resumed", data, vocabulary)
    a = loop.load_file(tmp_path / "whole" / "neutral-cycml-lang/generator.pt")
    b = loop.load_file(tmp_path / "resumed" / "neutral-cycml-lang/generator.pt")
    assert [r["total"] for r in a["history"]] == pytest.approx([r["total"] for r in b["history"]], rel=1e-4)


def test_the_neutral_stage_needs_its_autoencoder(toy, trained, tmp_path):
    import shutil

    from authorguard.exceptions import InputError

    config, data, vocabulary = toy
    shutil.copytree(trained, tmp_path / "f", ignore=shutil.ignore_patterns("cycml-lang"))
    with pytest.raises(InputError, match="neutral-autoencoder.pt is missing"):
        trainer.train_adversarial(dataclasses.replace(config, objective="neutral"), tmp_path / "f", data, vocabulary)


def test_autoencoder_early_stopping_keeps_the_best_weights_and_stops_without_gains(toy, tmp_path):
    config, data, vocabulary = toy
    learning = dataclasses.replace(
        config, autoencoder_steps=40, autoencoder_eval_every=10, autoencoder_eval_sentences=40
    )
    stored = loop.load_file(trainer.pretrain_autoencoder(learning, tmp_path / "learning", data, vocabulary))
    assert [c["step"] for c in stored["curve"]] == [10, 20, 30, 40]
    best = max(stored["curve"], key=lambda c: c["meteor"])
    assert stored["best_step"] == best["step"]
    model = model_folder.load_network(tmp_path / "learning" / "autoencoder.pt", "generator")
    assert autoencoder.reconstruction_meteor(model, data, vocabulary, 40) == pytest.approx(best["meteor"])
    # a learning rate too small to change the greedy output: no gain after the first measurement, so it stops
    # after `patience` more measurements, long before autoencoder_steps
    frozen = dataclasses.replace(learning, autoencoder_steps=500, pretrain_learning_rate=1e-12, autoencoder_patience=2)
    stopped = loop.load_file(trainer.pretrain_autoencoder(frozen, tmp_path / "frozen", data, vocabulary))
    assert stopped["stopped_early"] and [c["step"] for c in stopped["curve"]] == [10, 20, 30]
    assert len(stopped["history"]) == 30 and stopped["best_step"] == 10


# -- devices ---------------------------------------------------------------------------------------------------


def test_the_training_device_is_resolved_or_refused_in_one_line():
    assert loop.training_device("cpu") == torch.device("cpu")
    assert loop.training_device("AUTO").type == ("cuda" if torch.cuda.is_available() else "cpu")
    for bad in ("tpu", "gpu0", "cuda:x", ""):
        with pytest.raises(loop.InputError, match="unknown device") as caught:
            loop.training_device(bad)
        assert "\n" not in str(caught.value)
    if not torch.cuda.is_available():
        with pytest.raises(loop.InputError, match="sees no CUDA GPU"):
            loop.training_device("cuda")


def test_a_batch_is_padded_after_its_words_on_the_default_device():
    from authorguard.neural.a4nt.text import Vocabulary

    pad, end = Vocabulary.pad, Vocabulary.eos
    with loop.training_device("cpu"):
        ids, mask = pad_batch([[14, 15, 16], [], [17]], append_end=True)
    assert ids.tolist() == [[14, 15, 16, end], [end, pad, pad, pad], [17, end, pad, pad]]
    assert mask.tolist() == [[True] * 4, [True, False, False, False], [True, True, False, False]]
    assert ids.dtype == torch.int64 and mask.dtype == torch.bool and ids.device == torch.get_default_device()
    ids, mask = pad_batch([[]])
    assert ids.tolist() == [[pad]] and mask.tolist() == [[False]]


def test_frozen_networks_keep_their_lstms_differentiable_without_dropout():
    from authorguard.neural.a4nt.networks import LanguageModel, build_classifier

    spec = {
        "kind": "lstm",
        "vocab_size": 30,
        "n_classes": 2,
        "embedding_dim": 8,
        "width": 8,
        "layers": 1,
        "dropout": 0.5,
    }
    one_layer, two_layers = build_classifier(spec), build_classifier({**spec, "layers": 2})
    model = LanguageModel(30, 8, 8, dropout=0.5)
    loop.differentiable_eval(one_layer, two_layers, model, None)
    for network in (one_layer, model):
        assert all(m.training == isinstance(m, torch.nn.RNNBase) for m in network.modules())
    # a two-layer LSTM drops out between its layers in training mode: it stays in evaluation mode
    assert not any(m.training for m in two_layers.modules())
    # evaluation-mode output is unchanged by the LSTMs' mode (no dropout anywhere)
    ids, mask = pad_batch([[4, 5, 6, 7]])
    with torch.no_grad():
        before = one_layer(ids, mask)
        one_layer.eval()
        assert torch.allclose(before, one_layer(ids, mask))


def test_stage_files_hold_cpu_tensors_and_record_their_device(trained):
    stored = torch.load(trained / "classifier.pt", weights_only=False)
    assert stored["device"] == "cpu"
    assert all(v.device.type == "cpu" for v in stored["state"].values())
    nested = loop.on_cpu({"a": [torch.ones(2), (torch.zeros(1), 3)], "b": "x"})
    assert isinstance(nested["a"][1], tuple) and nested["a"][1][1] == 3 and nested["b"] == "x"
