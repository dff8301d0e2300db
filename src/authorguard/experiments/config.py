"""The typed experiment configuration, read from TOML or YAML and validated once, at the edge.

Example (TOML; every key is optional except ``methods``)::

    name = "syntf-20news"
    dataset = "20news"                 # a registered dataset; options go in [dataset_options]
    scenarios = ["Top5-Any", "Top10-Any", "Top5-Multi", "Top10-Multi"]
    tasks = ["topic"]                  # utility tasks on the dataset's own split
    attackers = ["bow", "writeprints"]
    threat_models = ["static", "augmented", "adversarial"]
    classifiers = ["nb", "svm"]
    runs = 10
    seed = 0
    n_jobs = 2

    [[methods]]
    name = "original"

    [[methods]]
    name = "syntf"
    params = { n_words = 150, morphology = "lemma" }
    grid = { bigram_weight = [0.0, 0.3], target_loss = [25.4] }

``scenarios`` may also name text-benchmark scenarios (``BAC-10``, ``AMT-20``, ``blog-age``, ``speech``, ...; see
:mod:`authorguard.data.splits`): each brings its own dataset, split (seed ``split_seed``), attack target
and utility task, and is released on its own (:mod:`authorguard.experiments.views`). ``content_metrics``
(METEOR, BLEU, chrF, ROUGE, MiniLM cosine, unchanged share) and ``detector`` (can a classifier tell released from
original text) are measured on each view's attacked test documents, and ``fidelity`` (the fidelity meter's share of
``faithful`` and ``changed`` outputs, :mod:`authorguard.metrics.fidelity`; a column of every text report; part of
the evaluation fingerprint, so a run made before it existed computes its cells again once on resume) (content on a
seeded sample of at most
``content_sample`` of them, 0 = all: METEOR costs ~50 ms a document). ``fluency`` adds the reference language
model's perplexity of the released text on that sample (``lm`` extra; ~30 s a cell on 2 cores). ``detectors``
lists the registered obfuscation detectors (``char-ngrams``, ``lm-stylometric``) run when ``detector`` is true.
``max_documents_per_author`` (benchmark scenarios only) keeps at most that many documents of each author in each
split (seeded by ``split_seed``) and drops the validation split, which the benchmark never reads: a smaller but
same-shaped benchmark for methods that rewrite slowly on a CPU: set it only for language-model methods, since the
test split shrinks with it. ``max_train_documents_per_author`` caps the training split alone (the test split stays
whole, so every figure is on the same test documents as a full run). ``attacker_train_documents`` gives an attacker
too slow for the whole training split a seeded sample of it (``{ writeprints = 2000 }``: at most 2,000 training
documents, each author's share kept); every result row says at what scale it was measured (``n_train``,
``n_test``).
``attacker_options`` gives attackers their own parameters, e.g. ``attacker_options.transformer = { epochs = 2 }``;
attackers that bring their own model (``transformer``, ``author-embedding``) ignore ``classifiers`` and report
the classifier ``neural``. ``detector_options`` does the same for the detectors, e.g.
``detector_options.lm-stylometric = { max_train_documents = 100, max_tokens = 64 }``.

``target_loss`` is not a method parameter: it asks the harness to set each fitted method's ``epsilon`` by its
``calibrate`` so that the exact loss per word equals the target (equal privacy, not equal epsilon).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from authorguard import registry
from authorguard.attacks.base import THREAT_MODELS, canonical_threat_model
from authorguard.data.scenarios import AuthorshipScenario, parse_scenario
from authorguard.exceptions import AuthorguardError, InputError
from authorguard.metrics.classification import CLASSIFIER_NAMES
from authorguard.text.analysis import MORPHOLOGIES
from authorguard.utils.validation import check_number, check_option

CALIBRATION_PARAMETER = "target_loss"


@dataclass(frozen=True)
class MethodSpec:
    """One method of the comparison: fixed ``params`` and a ``grid`` whose cartesian product is explored.

    ``label`` names the method in tables and plots (default: ``name``). ``gpus``: what each of its jobs asks Ray
    for (``--engine ray``), so a cluster with GPU nodes rewrites there and the attackers run on CPU nodes; the local
    engine ignores it.
    """

    name: str
    params: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    label: str = ""
    gpus: float = 0.0

    def settings(self) -> list[dict]:
        """Every parameter setting: ``params`` updated by each point of the grid, in grid order."""
        keys = list(self.grid)
        points = itertools.product(*(self.grid[k] for k in keys)) if keys else [()]
        return [{**self.params, **dict(zip(keys, values))} for values in points]

    @property
    def display_name(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class ExperimentConfig:
    """Everything an experiment depends on; recorded beside its results."""

    methods: tuple[MethodSpec, ...]
    name: str = "experiment"
    dataset: str = "20news"
    dataset_options: dict = field(default_factory=dict)
    scenarios: tuple[str, ...] = ("Top10-Any",)
    min_test_documents: int = 5
    tasks: tuple[str, ...] = ("topic",)
    attackers: tuple[str, ...] = ("bow", "writeprints")
    threat_models: tuple[str, ...] = THREAT_MODELS
    classifiers: tuple[str, ...] = CLASSIFIER_NAMES
    morphology: str = "lemma"
    runs: int = 10
    seed: int = 0
    split_seed: int = 0
    content_metrics: bool = True
    content_sample: int = 500
    detector: bool = True
    detectors: tuple[str, ...] = ("char-ngrams",)
    fluency: bool = False
    fidelity: bool = True
    max_documents_per_author: int | None = None
    max_train_documents_per_author: int | None = None
    attacker_options: dict = field(default_factory=dict)
    detector_options: dict = field(default_factory=dict)
    attacker_train_documents: dict = field(default_factory=dict)
    n_jobs: int = 1

    def __post_init__(self) -> None:
        for attribute in ("methods", "scenarios", "tasks", "attackers", "threat_models", "classifiers", "detectors"):
            object.__setattr__(self, attribute, tuple(getattr(self, attribute)))
        object.__setattr__(self, "threat_models", tuple(canonical_threat_model(t) for t in self.threat_models))
        self.validate()

    def validate(self) -> None:
        """Fail at once, naming the key, on anything a run would trip over later."""
        owner = "the experiment config"
        if not self.methods:
            raise InputError("experiment config: 'methods' must list at least one method")
        _require_registered(registry.datasets, self.dataset)
        for key, known in (("tasks", registry.tasks), ("attackers", registry.attackers)):
            for name in getattr(self, key):
                _require_registered(known, name)
        for threat in self.threat_models:
            check_option(threat, "threat_models", owner, THREAT_MODELS)
        for classifier in self.classifiers:
            check_option(classifier, "classifiers", owner, CLASSIFIER_NAMES)
        check_option(self.morphology, "morphology", owner, MORPHOLOGIES)
        self._validate_counts(owner)
        self._validate_attack_options(owner)
        for flag in ("content_metrics", "detector", "fluency", "fidelity"):
            if not isinstance(getattr(self, flag), bool):
                raise InputError(f"experiment config: {flag!r} must be true or false, got {getattr(self, flag)!r}")
        if check_number(self.n_jobs, "n_jobs", owner, kind=int, low=-1, closed="left") == 0:
            raise InputError(
                "The 'n_jobs' parameter of the experiment config must be -1 (all cores) or >= 1. Got 0 instead."
            )
        check_number(self.min_test_documents, "min_test_documents", owner, kind=int, low=1, closed="left")
        self._validate_scenarios()
        labels = [m.display_name for m in self.methods]
        if len(set(labels)) != len(labels):
            raise InputError(
                f"experiment config: two methods share the label {next(x for x in labels if labels.count(x) > 1)!r}; "
                "give one a 'label'"
            )
        for spec in self.methods:
            _validate_method(spec)

    def _validate_counts(self, owner: str) -> None:
        """Runs, seeds, sample sizes and the per-author caps: whole numbers in range, one cap at most."""
        check_number(self.runs, "runs", owner, kind=int, low=1, closed="left")
        check_number(self.seed, "seed", owner, kind=int, low=0, closed="left")
        check_number(self.split_seed, "split_seed", owner, kind=int, low=0, closed="left")
        check_number(self.content_sample, "content_sample", owner, kind=int, low=0, closed="left")
        for key in ("max_documents_per_author", "max_train_documents_per_author"):
            if getattr(self, key) is not None:
                check_number(getattr(self, key), key, owner, kind=int, low=1, closed="left")
        if self.max_documents_per_author is not None and self.max_train_documents_per_author is not None:
            raise InputError(
                "experiment config: give 'max_documents_per_author' (both splits) or "
                "'max_train_documents_per_author' (the training split), not both"
            )

    def _validate_attack_options(self, owner: str) -> None:
        """The attackers' training sizes and options and the detectors with theirs, each built once now (naming the
        option) rather than failing in a worker hours later."""
        if not isinstance(self.attacker_train_documents, dict):
            raise InputError("experiment config: 'attacker_train_documents' must be a table of attacker name -> count")
        for name, count in self.attacker_train_documents.items():
            if name not in self.attackers:
                raise InputError(
                    f"experiment config: attacker_train_documents names {name!r}, which 'attackers' does not list"
                )
            check_number(count, f"attacker_train_documents.{name}", owner, kind=int, low=1, closed="left")
        for name in self.detectors:
            _require_registered(registry.detectors, name)

        def build_attacker(name: str, options: dict):
            from authorguard.attacks.base import attacker_classifiers, make_attacker

            return make_attacker(name, attacker_classifiers(name, self.classifiers or ("svm",))[0], 0, options)

        _check_options(
            "detector_options",
            self.detector_options,
            "detectors",
            self.detectors,
            lambda name, options: registry.detectors.get(name)(random_state=0, **options),
        )
        _check_options("attacker_options", self.attacker_options, "attackers", self.attackers, build_attacker)

    def _validate_scenarios(self) -> None:
        """At least one scenario, each a benchmark's or of the form Top10-Any / Top5-Multi."""
        from authorguard.data.splits import SCENARIOS

        if not self.scenarios:
            raise InputError("experiment config: 'scenarios' must name at least one scenario")
        for scenario in self.scenarios:
            if scenario not in SCENARIOS:
                try:
                    parse_scenario(scenario, self.min_test_documents)
                except InputError:
                    raise InputError(
                        f"experiment config: scenario {scenario!r} must look like 'Top10-Any' or 'Top5-Multi', "
                        f"or be a benchmark scenario ({', '.join(SCENARIOS)})"
                    ) from None

    def parsed_scenarios(self) -> list[AuthorshipScenario]:
        """The Top-k x Any/Multi scenarios on the config's ``dataset`` (benchmark scenarios left out)."""
        from authorguard.data.splits import SCENARIOS

        return [parse_scenario(s, self.min_test_documents) for s in self.scenarios if s not in SCENARIOS]

    def to_dict(self) -> dict:
        return json.loads(json.dumps(asdict(self)))

    def evaluation_fingerprint(self) -> str:
        """Hash of everything but the methods, runs and n_jobs: cells computed under another fingerprint
        are not reused on resume."""
        relevant = {k: v for k, v in self.to_dict().items() if k not in ("methods", "runs", "n_jobs", "name")}
        # runs made before these options existed still resume
        for key in (
            "max_documents_per_author",
            "max_train_documents_per_author",
            "attacker_train_documents",
            "detector_options",
        ):
            if not relevant.get(key):
                relevant.pop(key, None)
        return hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest()[:16]


def _check_options(key: str, table, listed_key: str, listed: tuple[str, ...], build) -> None:
    """``table`` (component name -> options) names only components of ``listed`` and each one's options build it
    (``build(name, options)``); otherwise an InputError naming ``key`` and the component."""
    if not isinstance(table, dict):
        raise InputError(f"experiment config: {key!r} must be a table of name -> options")
    for name, options in table.items():
        if name not in listed:
            raise InputError(f"experiment config: {key} names {name!r}, which {listed_key!r} does not list")
        if not isinstance(options, dict):
            raise InputError(f"experiment config: {key}.{name} must be a table of options")
        try:
            build(name, options)
        except TypeError as error:
            raise InputError(f"experiment config: {key}.{name}: {error}") from None


def _require_registered(table, name: str):
    """The registered component, or an InputError with the registry's "did you mean" message."""
    try:
        return table.get(name)
    except AuthorguardError as error:
        raise InputError(f"experiment config: {error}") from None


def _validate_method(spec: MethodSpec) -> None:
    where = f"experiment config: method {spec.display_name!r}"
    check_number(spec.gpus, "gpus", where, low=0.0, closed="left")
    cls = _require_registered(registry.methods, spec.name)
    for key, values in spec.grid.items():
        if not isinstance(values, list) or not values:
            raise InputError(f"{where}: grid value of {key!r} must be a non-empty list, got {values!r}")
    from authorguard.methods.build import check_parameters

    keys = set(spec.params) | set(spec.grid)
    if CALIBRATION_PARAMETER in keys and not hasattr(cls, "calibrate"):
        raise InputError(f"{where}: {CALIBRATION_PARAMETER!r} needs a method with calibrate(); {spec.name!r} has none")
    check_parameters(spec.name, sorted(keys), where, allowed=frozenset({CALIBRATION_PARAMETER}))
    if CALIBRATION_PARAMETER in set(spec.params) | set(spec.grid) and "epsilon" in set(spec.params) | set(spec.grid):
        raise InputError(f"{where}: give 'epsilon' or {CALIBRATION_PARAMETER!r}, not both")


_METHOD_KEYS = {f.name for f in fields(MethodSpec)}
_TOP_KEYS = {f.name for f in fields(ExperimentConfig)}


def config_from_dict(data: dict, source: str = "experiment config") -> ExperimentConfig:
    """Build and validate a config from parsed TOML/YAML; unknown keys fail naming the key."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: the top level must be a table of keys")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise InputError(f"{source}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_TOP_KEYS))})")
    if "methods" not in data:
        raise InputError(f"{source}: missing key 'methods'")
    if not isinstance(data["methods"], list):
        raise InputError(f"{source}: 'methods' must be a list of tables ([[methods]] in TOML)")
    methods = []
    for position, entry in enumerate(data["methods"]):
        if not isinstance(entry, dict) or "name" not in entry:
            raise InputError(f"{source}: methods[{position}] must be a table with a 'name'")
        bad = sorted(set(entry) - _METHOD_KEYS)
        if bad:
            raise InputError(
                f"{source}: unknown key {bad[0]!r} in methods[{position}] (known: {', '.join(sorted(_METHOD_KEYS))})"
            )
        for key in ("params", "grid"):
            if not isinstance(entry.get(key, {}), dict):
                raise InputError(f"{source}: methods[{position}].{key} must be a table")
        methods.append(MethodSpec(**entry))
    values = {k: v for k, v in data.items() if k != "methods"}
    for key in ("scenarios", "tasks", "attackers", "threat_models", "classifiers", "detectors"):
        if key in values and (isinstance(values[key], str) or not isinstance(values[key], list)):
            raise InputError(f"{source}: {key!r} must be a list, got {values[key]!r}")
    return ExperimentConfig(methods=tuple(methods), **values)


def load_config(path: str | os.PathLike) -> ExperimentConfig:
    """Read an experiment config from a ``.toml``, ``.yaml`` or ``.yml`` file."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such config file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        elif suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        else:
            raise InputError(f"{path}: config must be .toml, .yaml or .yml")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not a valid TOML file ({str(error).splitlines()[0]})") from None
    except Exception as error:  # yaml.YAMLError without importing yaml at module level
        if type(error).__module__.startswith("yaml"):
            raise InputError(f"{path}: not a valid YAML file ({str(error).splitlines()[0]})") from None
        raise
    return config_from_dict(data, str(path))
