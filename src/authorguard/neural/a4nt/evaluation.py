"""The paper's measurements (Tables II–IV) on a trained model folder.

On a split of the setting (validation or test documents, never trained on): the attribute classifier and each
holdout classifier score the original sentences and the rewrites of every variant, at sentence level (each
sentence labelled with its document's class) and document level (sum of sentence log-probabilities); METEOR is
taken between each input sentence and its rewrite. Scores are macro F1 and accuracy, and each class's F1; the
chance level is the expected macro F1 of a classifier guessing uniformly at random given the split's class
shares (the paper quotes the F1 of one class instead, so its chance levels differ: 0.54 / 0.50 / 0.61).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from authorguard.exceptions import InputError


def chance_macro_f1(labels: list[int], n_classes: int) -> float:
    """Expected macro F1 of uniform random guessing: class c (share p) has precision p, recall 1/C."""
    shares = np.bincount(labels, minlength=n_classes) / max(1, len(labels))
    guess = 1.0 / n_classes
    return float(np.mean([2 * p * guess / (p + guess) if p > 0 else 0.0 for p in shares]))


def _scores(truth: list[int], predicted, n_classes: int) -> dict:
    from sklearn.metrics import accuracy_score, f1_score

    per_class = f1_score(truth, predicted, average=None, labels=list(range(n_classes)), zero_division=0)
    return {
        "f1_macro": float(np.mean(per_class)),
        "accuracy": float(accuracy_score(truth, predicted)),
        "f1_per_class": [float(v) for v in per_class],
    }


def classify(classifier, documents: list[list[list[int]]], labels: list[int], n_classes: int) -> dict:
    """Sentence- and document-level scores of one classifier on documents of sentences (token ids)."""
    from authorguard.neural.a4nt.classifiers import sentence_scores
    from authorguard.neural.a4nt.text import Vocabulary

    flat = [s or [Vocabulary.unk] for d in documents for s in (d or [[Vocabulary.unk]])]
    owners = [i for i, d in enumerate(documents) for _ in (d or [[Vocabulary.unk]])]
    scores = sentence_scores(classifier, flat)
    sentence_truth = [labels[i] for i in owners]
    totals = np.zeros((len(documents), n_classes))
    np.add.at(totals, owners, scores)
    return {
        "sentence": _scores(sentence_truth, scores.argmax(1), n_classes),
        "document": _scores(labels, totals.argmax(1), n_classes),
    }


def evaluate_folder(
    folder: str | Path,
    split: str = "test",
    variants: tuple[str, ...] | None = None,
    samples: int = 1,
    select: str = "random",
    seed: int = 0,
    meteor_sentences: int = 1000,
    examples: int = 6,
    report=None,
) -> dict:
    """Table II–IV figures of a model folder on ``split``; ``variants`` default: the autoencoder and every trained
    adversarial variant. ``report(message)`` is told what runs."""
    from authorguard.neural.a4nt.data import setting_corpus
    from authorguard.neural.a4nt.folder import load_network
    from authorguard.neural.a4nt.model import A4NTModel

    say = report or (lambda message: None)
    folder = Path(folder)
    variants = _variants(folder, variants)
    config = _stored_config(folder)
    models = {v: A4NTModel(folder, v) for v in variants}
    first = models[variants[0]]
    corpus = setting_corpus(config).split(split)
    if not len(corpus):
        raise InputError(f"setting {config.setting}: the {split!r} split is empty")
    say(f"pre-processing {len(corpus)} {split} documents")
    documents = first.encode_documents(list(corpus.texts))
    labels = [first.class_index(label) for label in corpus.labels]
    n_classes = len(first.classes)
    classifiers = {"A": first.classifier}
    for path in sorted((folder / "holdouts").glob("*.pt")):
        classifiers[path.stem] = load_network(path, "classifier")
    result = {
        "folder": str(folder),
        "setting": config.setting,
        "split": split,
        "classes": first.classes,
        "documents": len(documents),
        "sentences": sum(len(d) for d in documents),
        "class_documents": np.bincount(labels, minlength=n_classes).tolist(),
        "chance": {
            "document": chance_macro_f1(labels, n_classes),
            "sentence": chance_macro_f1([labels[i] for i, d in enumerate(documents) for _ in d], n_classes),
        },
        "samples": samples,
        "select": select,
        "seed": seed,
        "rows": {},
    }
    say("scoring the original text")
    result["rows"]["original"] = {**_summarise(documents, classifiers, labels, n_classes), "meteor": 1.0}
    measured = _meteor_sentences(documents, meteor_sentences, np.random.default_rng(seed))
    for variant, model in models.items():
        say(f"rewriting with {variant}")
        result["rows"][variant] = _variant_row(
            model, folder / variant, documents, labels, classifiers, measured, (samples, select, seed), examples
        )
    return result


def _variants(folder: Path, variants: tuple[str, ...] | None) -> tuple[str, ...]:
    """The variants asked for, or the autoencoder and every trained one (the neutral autoencoder first)."""
    from authorguard.neural.a4nt.config import AUTOENCODER, NEUTRAL_AUTOENCODER, generator_file

    trained = sorted(p.parent.name for p in folder.glob("*/generator.pt"))
    if (folder / generator_file(NEUTRAL_AUTOENCODER)).is_file():
        trained.insert(0, NEUTRAL_AUTOENCODER)
    variants = tuple(variants) if variants else (AUTOENCODER, *trained)
    if not variants:
        raise InputError(f"{folder}: no trained generator to evaluate")
    return variants


def _stored_config(folder: Path):
    """The folder's training configuration (config.json), JSON's lists back to the config's tuples."""
    import json

    from authorguard.neural.a4nt.config import A4NTConfig

    stored = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    values: dict[str, Any] = {
        key: tuple(value) if isinstance(value, list) else value for key, value in stored["config"].items()
    }
    return A4NTConfig(**values)


def _summarise(documents: list[list[list[int]]], classifiers: dict, labels: list[int], n_classes: int) -> dict:
    """Every classifier's scores on DOCUMENTS, and the held-out classifiers' mean and best macro-F1 per level."""
    per = {name: classify(model, documents, labels, n_classes) for name, model in classifiers.items()}
    holdouts = [v for k, v in per.items() if k != "A"]
    row: dict[str, dict | float] = {"A": per["A"], "classifiers": per}
    if holdouts:
        for level in ("sentence", "document"):
            values = [h[level]["f1_macro"] for h in holdouts]
            row[f"holdout_{level}_f1_mean"] = float(np.mean(values))
            row[f"holdout_{level}_f1_max"] = float(np.max(values))
    return row


def _meteor_sentences(documents: list, count: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """(document, sentence) pairs METEOR is measured on: COUNT drawn at random, in order."""
    pairs = [(i, j) for i, d in enumerate(documents) for j in range(len(d))]
    if not pairs:
        return []
    drawn = np.array(pairs)[rng.choice(len(pairs), min(count, len(pairs)), replace=False)].tolist()
    return sorted(set(map(tuple, drawn)))


def _variant_row(model, variant_dir: Path, documents, labels, classifiers, measured, sampling, examples) -> dict:
    """One variant's rewrite of DOCUMENTS scored: the classifiers (and its in-loop adversary, when trained), METEOR
    on the MEASURED sentences, speed and EXAMPLES examples per class. ``sampling``: (samples, select, seed)."""
    from authorguard.metrics.content import meteor
    from authorguard.neural.a4nt.folder import load_network
    from authorguard.neural.a4nt.model import document_seed
    from authorguard.neural.a4nt.text import detokenize

    samples, select, seed = sampling
    n_classes = len(model.classes)
    started = time.perf_counter()
    rewritten_tokens = [
        model.rewrite(d, label, samples, select, document_seed(seed, i)) if d else []
        for i, (d, label) in enumerate(zip(documents, labels))
    ]
    seconds = time.perf_counter() - started
    rewritten = [[model.vocabulary.encode(s) for s in d] for d in rewritten_tokens]
    original = {(i, j): detokenize(model.vocabulary.decode(documents[i][j])) for i, j in measured}
    meteors = [meteor(original[i, j], detokenize(rewritten_tokens[i][j])) for i, j in measured]
    shown = []
    for label in range(n_classes):
        shown += [
            {
                "class": model.classes[label],
                "to": "neutral" if model.neutral else model.classes[model.target_of(label)],
                "input": original[i, j],
                "output": detokenize(rewritten_tokens[i][j]),
            }
            for i, j in [(i, j) for i, j in measured if labels[i] == label][:examples]
        ]
    row = _summarise(rewritten, classifiers, labels, n_classes)
    if (variant_dir / "adversary.pt").is_file():  # the neutral objective's in-loop attacker, on held-out text
        row["adversary"] = classify(
            load_network(variant_dir / "adversary.pt", "classifier"), rewritten, labels, n_classes
        )
    n_sentences = sum(len(d) for d in documents)
    return {
        **row,
        "meteor": float(np.mean(meteors)) if meteors else None,
        "meteor_sentences": len(meteors),
        "seconds": seconds,
        "sentences_per_second": n_sentences / seconds if seconds else None,
        "examples": shown,
    }
