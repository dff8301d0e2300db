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
    import json

    from authorguard.metrics.content import meteor
    from authorguard.neural.a4nt.config import AUTOENCODER, NEUTRAL_AUTOENCODER, A4NTConfig, generator_file
    from authorguard.neural.a4nt.data import setting_corpus
    from authorguard.neural.a4nt.folder import load_network
    from authorguard.neural.a4nt.model import A4NTModel, document_seed
    from authorguard.neural.a4nt.text import detokenize

    say = report or (lambda message: None)
    folder = Path(folder)
    trained = sorted(p.parent.name for p in folder.glob("*/generator.pt"))
    if (folder / generator_file(NEUTRAL_AUTOENCODER)).is_file():
        trained.insert(0, NEUTRAL_AUTOENCODER)
    variants = tuple(variants) if variants else (AUTOENCODER, *trained)
    if not variants:
        raise InputError(f"{folder}: no trained generator to evaluate")
    stored = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config_values = dict(stored["config"])
    for key, value in config_values.items():
        if isinstance(value, list):
            config_values[key] = tuple(value)  # JSON's lists back to the config's tuples
    config = A4NTConfig(**config_values)
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
    n_sentences = sum(len(d) for d in documents)
    result = {
        "folder": str(folder),
        "setting": config.setting,
        "split": split,
        "classes": first.classes,
        "documents": len(documents),
        "sentences": n_sentences,
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

    def summarise(docs: list[list[list[int]]]) -> dict:
        per = {name: classify(model, docs, labels, n_classes) for name, model in classifiers.items()}
        holdouts = [v for k, v in per.items() if k != "A"]
        row: dict[str, dict | float] = {"A": per["A"], "classifiers": per}
        if holdouts:
            for level in ("sentence", "document"):
                values = [h[level]["f1_macro"] for h in holdouts]
                row[f"holdout_{level}_f1_mean"] = float(np.mean(values))
                row[f"holdout_{level}_f1_max"] = float(np.max(values))
        return row

    say("scoring the original text")
    result["rows"]["original"] = {**summarise(documents), "meteor": 1.0}
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i, d in enumerate(documents) for j in range(len(d))]
    measured = (
        set(
            map(
                tuple,
                np.array(pairs)[rng.choice(len(pairs), min(meteor_sentences, len(pairs)), replace=False)].tolist(),
            )
        )
        if pairs
        else set()
    )
    for variant, model in models.items():
        say(f"rewriting with {variant}")
        started = time.perf_counter()
        rewritten_tokens = [
            model.rewrite(d, label, samples, select, document_seed(seed, i)) if d else []
            for i, (d, label) in enumerate(zip(documents, labels))
        ]
        seconds = time.perf_counter() - started
        rewritten = [[model.vocabulary.encode(s) for s in d] for d in rewritten_tokens]
        meteors = [
            meteor(detokenize(model.vocabulary.decode(documents[i][j])), detokenize(rewritten_tokens[i][j]))
            for i, j in sorted(measured)
        ]
        shown = []
        for label in range(n_classes):
            mine = [(i, j) for i, j in sorted(measured) if labels[i] == label][:examples]
            shown += [
                {
                    "class": first.classes[label],
                    "to": "neutral" if model.neutral else first.classes[model.target_of(label)],
                    "input": detokenize(model.vocabulary.decode(documents[i][j])),
                    "output": detokenize(rewritten_tokens[i][j]),
                }
                for i, j in mine
            ]
        row = summarise(rewritten)
        if (folder / variant / "adversary.pt").is_file():  # the neutral objective's in-loop attacker, on held-out text
            row["adversary"] = classify(
                load_network(folder / variant / "adversary.pt", "classifier"), rewritten, labels, n_classes
            )
        result["rows"][variant] = {
            **row,
            "meteor": float(np.mean(meteors)) if meteors else None,
            "meteor_sentences": len(meteors),
            "seconds": seconds,
            "sentences_per_second": n_sentences / seconds if seconds else None,
            "examples": shown,
        }
    return result
