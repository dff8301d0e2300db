"""Cells: one (view, method, setting, run) of an experiment, released once and scored by everything.

A cell releases the view's corpus with the run's seed (a stored preparation, or the method run here), then scores
the utility tasks on it (a classifier trained on the release, and on the original), every attacker x threat model
x classifier on each attack's documents, the content metrics and the obfuscation detectors. Each attack row keeps
which test documents the attacker got right (``correct``, one ``0``/``1`` per document in the attack's order, and
``test_digest`` naming those documents), so two methods can be compared on the same documents by a paired test
(:mod:`authorguard.experiments.comparison`, :mod:`authorguard.metrics.statistics`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from authorguard import registry
from authorguard.attacks.base import attacker_classifiers, make_attacker
from authorguard.base import TextObfuscator
from authorguard.data.release import Release
from authorguard.exceptions import AuthorguardError
from authorguard.experiments.config import ExperimentConfig, MethodSpec
from authorguard.experiments.preparation import (
    digest,
    epsilon_shared,
    load_prepared,
    method_class,
    preparation_key,
    setting_key,
)
from authorguard.experiments.views import View, cached_view, view_names
from authorguard.methods.build import construct_method
from authorguard.metrics.classification import classification_scores


def run_seed(seed: int, run: int) -> int:
    """The seed of run ``run``: the same for every method, so methods are compared on paired draws."""
    return int(np.random.SeedSequence([seed, run]).generate_state(1)[0])


@dataclass(frozen=True)
class Cell:
    """One (view, method, setting, run) of the experiment."""

    view: str
    method: MethodSpec
    setting: dict
    run: int
    fingerprint: str

    @property
    def key(self) -> str:
        return digest([self.fingerprint, self.view, self.method.name, self.method.display_name, self.setting, self.run])


def plan_cells(config: ExperimentConfig) -> list[Cell]:
    """All cells, grouped by (view, method, setting) so a worker reuses what it loaded."""
    fingerprint = config.evaluation_fingerprint()
    return [
        Cell(view, spec, setting, run, fingerprint)
        for view in view_names(config)
        for spec in config.methods
        for setting in spec.settings()
        for run in range(config.runs)
    ]


_ORIGINAL: dict[str, Release] = {}


def _original_release(config: ExperimentConfig, view: str, corpus) -> Release:
    key = digest(
        [
            config.dataset,
            config.dataset_options,
            config.split_seed,
            config.max_documents_per_author,
            config.max_train_documents_per_author,
            view,
            config.morphology,
        ]
    )
    if key not in _ORIGINAL:
        _ORIGINAL.clear()
        _ORIGINAL[key] = Release.from_texts(corpus.texts, config.morphology)
    return _ORIGINAL[key]


def _releases(config: ExperimentConfig, cell: Cell, cache_dir: Path, seed: int) -> tuple[Release, Release, dict, str]:
    """(released, original in the same feature space, privacy report, output kind) for the view's corpus."""
    view = cached_view(config, cell.view)
    corpus = view.corpus
    cls = method_class(cell.method)
    if issubclass(cls, TextObfuscator):
        report: dict = {}
        if cls.deterministic:
            meta, _ = load_prepared(cache_dir / preparation_key(cell.view, cell.method, cell.setting, cell.fingerprint))
            texts = meta["texts"]
        else:
            params = dict(cell.setting)
            if "random_state" in cls().get_params():
                params["random_state"] = seed
            method = construct_method(cell.method.name, params).fit(corpus.split("train").texts)
            texts = method.obfuscate_labelled(corpus.texts, view.attributes)
            report = method.release_report()
            if len(texts) != len(corpus):
                raise AuthorguardError(
                    f"method {cell.method.name!r} returned {len(texts)} texts for {len(corpus)} documents"
                )
        original = _original_release(config, cell.view, corpus)
        released = original if cls is registry.methods.get("original") else Release.from_texts(texts, config.morphology)
        return released, original, {"method_report": report}, "text"
    meta, fitted = load_prepared(cache_dir / preparation_key(cell.view, cell.method, cell.setting, cell.fingerprint))
    resolved = meta["settings"][setting_key(cell.setting)]
    model = fitted.with_epsilon(resolved["epsilon"]) if epsilon_shared(cls) else fitted
    vocabulary = tuple(model.get_feature_names_out())
    released = Release(model.transform_records(corpus.texts, corpus.ids, seed=seed), vocabulary)
    # the authors' own texts ride along for text readers (a static attacker of text trains on the real writing)
    original = Release(model.term_counts(corpus.texts), vocabulary, corpus.texts)
    return released, original, resolved["privacy"], "vectors"


def _document_epsilon(privacy: dict) -> float | None:
    """What releasing one document costs, whichever the method: SynTF's exact loss l·n (its tight epsilon), or a
    text method's own ``document_epsilon`` (DP-Prompt: m · ε_token); None for a method without a guarantee."""
    if privacy.get("tight_epsilon") is not None:
        return float(privacy["tight_epsilon"])
    value = (privacy.get("method_report") or {}).get("document_epsilon")
    return None if value is None else float(value)


def attacker_sample(rows: np.ndarray, targets: np.ndarray, limit: int | None, seed: int) -> np.ndarray:
    """At most ``limit`` of the training positions ``rows``, each author's (target's) share kept (seeded; sorted):
    what an attacker too slow for the whole training split trains on. All of ``rows`` when ``limit`` is None or
    not smaller."""
    if limit is None or limit >= len(rows):
        return rows
    rng = np.random.default_rng(seed)
    labels = targets[rows]
    classes = sorted(set(labels.tolist()), key=str)
    sizes = np.array([np.count_nonzero(labels == c) for c in classes])
    exact = limit * sizes / len(rows)
    quotas = np.floor(exact).astype(int)
    # the largest remainders take the documents the floors left over, so the sample has exactly ``limit``
    quotas[np.argsort(-(exact - quotas), kind="stable")[: limit - int(quotas.sum())]] += 1
    chosen = [rng.choice(rows[labels == c], q, replace=False) for c, q in zip(classes, quotas)]
    return np.sort(np.concatenate(chosen))


def _attacker_training(threat: str, original: Release, released: Release, rows: np.ndarray, authors: np.ndarray):
    """What the attacker trains on under ``threat``: (release, targets) of the training documents."""
    if threat == "static":
        return original.rows(rows), authors[rows]
    if threat == "augmented":  # each training document twice: as written and as released
        return Release.stack([original.rows(rows), released.rows(rows)]), np.concatenate([authors[rows], authors[rows]])
    return released.rows(rows), authors[rows]  # adversarial (and the reference's single "none" attack)


def evaluate_cell(config: ExperimentConfig, cell: Cell, cache_dir: Path) -> list[dict]:
    """Score one cell on its view: utility tasks, attacks, content metrics, detector; rows of scores."""
    view = cached_view(config, cell.view)
    seed = run_seed(config.seed, cell.run)
    started = time.perf_counter()
    released, original, privacy, kind = _releases(config, cell, cache_dir, seed)
    is_reference = issubclass(method_class(cell.method), registry.methods.get("original"))
    base = {
        "experiment": config.name,
        "view": view.name,
        "dataset": view.dataset,
        "method": cell.method.display_name,
        "method_name": cell.method.name,
        "params": json.dumps(cell.setting, sort_keys=True),
        "run": cell.run,
        "seed": seed,
        "epsilon": privacy.get("epsilon"),
        "n_words": privacy.get("n_words"),
        "loss_per_word": privacy.get("loss_per_word"),
        "total_loss": privacy.get("tight_epsilon"),
        "improved_epsilon": privacy.get("improved_epsilon"),
        "standard_epsilon": privacy.get("standard_epsilon"),
        "vocabulary_size": len(released.vocabulary),
        "method_report": json.dumps(privacy.get("method_report") or {}, sort_keys=True),
        "document_epsilon": _document_epsilon(privacy),
    }
    base.update({f"param_{k}": (v if isinstance(v, (int, float, bool)) else str(v)) for k, v in cell.setting.items()})
    rows = []
    labels = np.array(view.corpus.labels, dtype=object)
    train, test = view.task_train, view.task_test
    # utility: the analyst retrains on the release ("adversarial"), or was trained on the original text ("static");
    # for the unprotected reference the two are one ("none")
    task_threats = ["none"] if is_reference else ["adversarial", "static"]
    for task_name in view.tasks:
        for classifier in config.classifiers:
            for threat in task_threats:
                task = registry.tasks.get(task_name)(classifier=classifier, random_state=seed)
                training = original if threat == "static" else released
                scores = task.evaluate(training.rows(train), labels[train], released.rows(test), labels[test])
                rows.append(
                    {
                        **base,
                        "scenario": view.name,
                        "task": task_name,
                        "attacker": "",
                        "threat_model": threat,
                        "classifier": classifier,
                        **scores,
                        "n_train": len(train),
                        "n_test": len(test),
                    }
                )
    rows.extend({**base, **row} for row in _attack_rows(config, view, original, released, seed, is_reference))
    measured = view.attacked_documents
    if config.content_metrics:
        sample = measured
        if 0 < config.content_sample < len(measured):  # the same documents for every method and run
            sample = np.sort(
                np.random.default_rng(config.split_seed).choice(measured, config.content_sample, replace=False)
            )
        rows.append(
            {**base, **_content_row(view, released, sample, config.fluency, config.fidelity and kind == "text")}
        )
    if config.detector and not is_reference:
        rows.extend({**base, **row} for row in _detector_rows(config, view, original, released, seed))
    elapsed = time.perf_counter() - started
    for row in rows:
        row["release_kind"] = kind
        row["cell_seconds"] = elapsed
    return rows


def _attack_rows(
    config: ExperimentConfig, view: View, original: Release, released: Release, seed: int, is_reference: bool
) -> list[dict]:
    """Every attacker x classifier x threat model on each attack of ``view``, with the documents it got right."""
    # for the unprotected reference every threat model is the same attack: one row, threat model "none"
    threats = ["none"] if is_reference else list(config.threat_models)
    rows = []
    for attack in view.attacks:
        truth = attack.targets[attack.test]
        test_digest = digest([view.corpus.ids[i] for i in attack.test])
        for attacker_name in config.attackers:
            training_rows = attacker_sample(
                attack.train, attack.targets, config.attacker_train_documents.get(attacker_name), config.split_seed
            )
            for classifier in attacker_classifiers(attacker_name, config.classifiers):
                for threat in threats:
                    attacker = make_attacker(
                        attacker_name, classifier, seed, config.attacker_options.get(attacker_name)
                    )
                    training, training_targets = _attacker_training(
                        threat, original, released, training_rows, attack.targets
                    )
                    predicted = np.asarray(attacker.fit(training, training_targets).predict(released.rows(attack.test)))
                    rows.append(
                        {
                            "scenario": attack.scenario,
                            "task": "attack",
                            "attacker": attacker_name,
                            "threat_model": threat,
                            "classifier": classifier,
                            **classification_scores(truth, predicted),
                            "n_train": len(training_rows),
                            "n_test": len(attack.test),
                            "correct": "".join("1" if p == t else "0" for p, t in zip(predicted, truth)),
                            "test_digest": test_digest,
                        }
                    )
    return rows


def _content_row(
    view: View, released: Release, documents: np.ndarray, fluency: bool = False, fidelity: bool = False
) -> dict:
    """Mean content metrics between the original and the released text of ``documents``; with ``fluency``, the
    reference LM's perplexity of the released text (:mod:`authorguard.metrics.fluency`); with ``fidelity``, the
    fidelity meter's shares of ``faithful``, ``changed`` and ``unsure`` outputs among those it scored (withheld ones
    are not)."""
    from authorguard.metrics.content import content_metrics

    originals = [view.corpus.texts[i] for i in documents]
    outputs = released.rows(documents).document_texts()
    means = content_metrics(originals, outputs)["mean"]
    if fidelity:
        from authorguard.metrics.fidelity import VERDICTS, FidelityMeter, verdict_counts

        counts = verdict_counts(FidelityMeter(n_process=1).score(originals, outputs))  # cells may run in parallel
        scored = sum(counts[v] for v in VERDICTS)
        means["faithful"] = counts["faithful"] / scored if scored else float("nan")
        means["generalised"] = counts["generalised"] / scored if scored else float("nan")  # true, less specific
        means["changed"] = counts["changed"] / scored if scored else float("nan")
        means["unsure"] = counts["unsure"] / scored if scored else float("nan")  # the meter could not settle these
    if fluency:
        from authorguard.metrics.fluency import fluency_scores

        means.update(fluency_scores(outputs))
    return {
        "scenario": view.name,
        "task": "content",
        "attacker": "",
        "threat_model": "",
        "classifier": "",
        **means,
        "n_train": 0,
        "n_test": len(documents),
    }


def _detector_rows(config: ExperimentConfig, view: View, original: Release, released: Release, seed: int) -> list[dict]:
    """Can a classifier tell the release from the original? One row per registered detector in the config."""
    train = (
        view.task_train if len(view.task_train) else np.setdiff1d(np.arange(len(view.corpus)), view.attacked_documents)
    )
    test = view.attacked_documents
    rows = []
    for name in config.detectors:
        detector = registry.detectors.get(name)(random_state=seed, **config.detector_options.get(name, {}))
        scores = detector.evaluate(original.rows(train), released.rows(train), original.rows(test), released.rows(test))
        n_test = scores.pop("n_test", 2 * len(test))
        n_train = 2 * min(len(train), detector.max_train_documents or len(train))
        rows.append(
            {
                "scenario": view.name,
                "task": "detector",
                "attacker": name,
                "threat_model": "",
                "classifier": "",
                **scores,
                "n_train": n_train,
                "n_test": n_test,
            }
        )
    return rows
