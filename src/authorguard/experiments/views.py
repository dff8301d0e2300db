"""What a cell of the experiment evaluates: a corpus to release, the utility tasks on it, the attacks on it.

Two kinds of view, one per entry of the config's ``scenarios``:

- ``"all"``: the config's ``dataset`` with its own train / test split (20 Newsgroups' by-date split), the
  config's ``tasks`` on every labelled document, and one attack per Top-k x Any/Multi scenario on that
  scenario's authors (the SynTF paper's setting: the whole corpus is released once per run);
- a named benchmark scenario (``BAC-10``, ``AMT-20``, ``blog-age``, ...; :data:`~authorguard.data.splits.SCENARIOS`):
  its own selection of its own dataset with a train / validation / test split, its own utility task, and one
  attack whose target is the author or the attribute class.

Attackers and tasks train on ``train`` and are scored on ``test``; ``validation`` is left for methods that tune.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from authorguard.data import load_dataset
from authorguard.data.corpus import Corpus
from authorguard.exceptions import InputError

DATASET_VIEW = "all"


@dataclass(frozen=True)
class Attack:
    """One attack on a view: train on ``train``, score on ``test`` (positions in the view's corpus); the
    attacker predicts ``targets`` (authors or attribute classes, one per document of the view)."""

    scenario: str
    train: np.ndarray
    test: np.ndarray
    targets: np.ndarray


@dataclass(frozen=True)
class View:
    """A corpus, the utility tasks scored on its labels (``task_train`` -> ``task_test``), and its attacks."""

    name: str
    dataset: str
    corpus: Corpus
    tasks: tuple[str, ...]
    task_train: np.ndarray
    task_test: np.ndarray
    attacks: tuple[Attack, ...]
    #: each document's attribute class on attribute scenarios (what A⁴NT rewrites *from*), else None
    attributes: np.ndarray | None = None

    @property
    def attacked_documents(self) -> np.ndarray:
        """Positions of every attack's test documents (sorted, unique): where content and detectability are
        measured, since these are the documents whose authors the release must hide."""
        return np.unique(np.concatenate([a.test for a in self.attacks])) if self.attacks else self.task_test


def view_names(config) -> list[str]:
    """The views of ``config``: ``"all"`` when it has Top-k scenarios (or no scenario at all), then each
    benchmark scenario in config order."""
    from authorguard.data.splits import SCENARIOS

    benchmark = [s for s in config.scenarios if s in SCENARIOS]
    dataset_scenarios = [s for s in config.scenarios if s not in SCENARIOS]
    return ([DATASET_VIEW] if dataset_scenarios or not benchmark else []) + benchmark


def _masks(splits) -> tuple[np.ndarray, np.ndarray]:
    splits = np.asarray(splits, dtype=object)
    return splits == "train", splits == "test"


def cap_per_author(corpus, cap: int, seed: int) -> np.ndarray:
    """A mask keeping at most ``cap`` documents of each (author, split), chosen at random with ``seed``, in corpus
    order."""
    rng = np.random.default_rng(seed)
    groups: dict = {}
    for index, key in enumerate(zip(corpus.authors, corpus.splits)):
        groups.setdefault(key, []).append(index)
    keep = np.zeros(len(corpus), dtype=bool)
    for key in sorted(groups, key=str):
        members = groups[key]
        keep[members if len(members) <= cap else rng.choice(members, cap, replace=False)] = True
    return keep


_DATASETS: dict[str, object] = {}
_VIEWS: dict[str, View] = {}


def cached_view(config, name: str) -> View:
    """View ``name`` of ``config``, built once per process (datasets shared between views; a worker process of
    either engine keeps at most four)."""
    key = json.dumps(
        [
            config.dataset,
            config.dataset_options,
            config.scenarios,
            config.min_test_documents,
            config.tasks,
            config.split_seed,
            config.max_documents_per_author,
            config.max_train_documents_per_author,
            name,
        ],
        sort_keys=True,
        default=str,
    )
    if key not in _VIEWS:
        if len(_VIEWS) >= 4:
            _VIEWS.clear()
            _DATASETS.clear()
        _VIEWS[key] = build_view(config, name, _DATASETS)
    return _VIEWS[key]


def build_view(config, name: str, datasets: dict | None = None) -> View:
    """Build view ``name`` of ``config`` (``datasets``: a name -> Corpus cache shared between views)."""
    from authorguard.data.splits import SCENARIOS

    datasets = {} if datasets is None else datasets
    if name == DATASET_VIEW:
        # the options are part of the key: two "records" datasets are two files
        key = json.dumps([config.dataset, config.dataset_options], sort_keys=True, default=str)
        if key not in datasets:
            datasets[key] = load_dataset(config.dataset, **config.dataset_options)
        corpus = datasets[key]
        in_train, in_test = _masks(corpus.splits)
        labelled = np.array([label is not None for label in corpus.labels])
        authors = np.array(corpus.authors, dtype=object)
        attacks = []
        for scenario in config.parsed_scenarios():
            chosen = set(scenario.authors(corpus))
            member = np.array([a in chosen for a in corpus.authors])
            attacks.append(
                Attack(scenario.name, np.flatnonzero(member & in_train), np.flatnonzero(member & in_test), authors)
            )
        return View(
            name,
            config.dataset,
            corpus,
            tuple(config.tasks),
            np.flatnonzero(labelled & in_train),
            np.flatnonzero(labelled & in_test),
            tuple(attacks),
        )
    if name not in SCENARIOS:
        raise InputError(f"unknown scenario {name!r}")
    scenario = SCENARIOS[name].with_seed(config.split_seed)
    key = json.dumps([scenario.dataset, {}])
    if key not in datasets:
        datasets[key] = load_dataset(scenario.dataset)
    corpus = scenario.selection.select(datasets[key])
    splits = np.asarray(corpus.splits, dtype=object)
    if config.max_documents_per_author is not None:
        # the benchmark reads only train and test: a capped (slow-method) run does not rewrite validation texts
        keep = cap_per_author(corpus, config.max_documents_per_author, config.split_seed)
        corpus = corpus.subset(keep & (splits != "validation"))
    elif config.max_train_documents_per_author is not None:  # the test split stays whole
        keep = cap_per_author(corpus, config.max_train_documents_per_author, config.split_seed) | (splits == "test")
        corpus = corpus.subset(keep & (splits != "validation"))
    in_train, in_test = _masks(corpus.splits)
    targets = np.array(corpus.authors if scenario.target == "authors" else corpus.labels, dtype=object)
    train, test = np.flatnonzero(in_train), np.flatnonzero(in_test)
    return View(
        name,
        scenario.dataset,
        corpus,
        scenario.tasks,
        train,
        test,
        (Attack(name, train, test, targets),),
        targets if scenario.target == "labels" else None,
    )
