"""Preparations: what a method computes once per view and every cell of it reads.

A deterministic text method's output on the view's corpus, or a vector method fitted on its training texts (with
every epsilon of its grid, or the epsilon calibrated to each ``target_loss``, and the privacy report of each). Each
is stored in the run folder's ``cache`` under :func:`preparation_key`, so a rewriting of a split is computed once
and shared by every attacker, threat model and run — and by every worker of a Ray cluster that sees the folder.
An epsilon grid costs one fit (``with_epsilon`` shares the precomputation).
"""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path

from authorguard import registry
from authorguard.base import TextObfuscator
from authorguard.data.io import atomic_write, write_json
from authorguard.exceptions import AuthorguardError
from authorguard.experiments.config import CALIBRATION_PARAMETER, ExperimentConfig, MethodSpec
from authorguard.experiments.views import cached_view, view_names
from authorguard.methods.build import construct_method


def digest(obj: object, length: int = 16) -> str:
    """A short stable hash of a JSON-able value: the names of cells and preparations."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:length]


def method_class(spec: MethodSpec):
    return registry.methods.get(spec.name)


def epsilon_shared(cls) -> bool:
    return hasattr(cls, "with_epsilon")


def fit_params(cls, setting: dict) -> dict:
    """The parameters a fit depends on: the setting less those that ``with_epsilon`` / ``calibrate`` change
    without refitting."""
    params = {k: v for k, v in setting.items() if k != CALIBRATION_PARAMETER}
    if epsilon_shared(cls):
        params.pop("epsilon", None)
    return params


def preparation_key(view: str, spec: MethodSpec, setting: dict, fingerprint: str) -> str:
    """Names the cached preparation of ``setting`` on ``view``: settings that share a fit share it."""
    return digest([fingerprint, view, spec.name, fit_params(method_class(spec), setting)])


def setting_key(setting: dict) -> str:
    return digest(setting)


def prepare(config: ExperimentConfig, view: str, spec: MethodSpec, settings: list[dict], path: Path) -> None:
    """Compute and store one preparation: ``PATH.json`` (texts, or each setting's epsilon and privacy report) and,
    for a vector method, the fitted model in ``PATH.pkl``."""
    built = cached_view(config, view)
    corpus = built.corpus
    cls = method_class(spec)
    if issubclass(cls, TextObfuscator):
        method = construct_method(spec.name, settings[0]).fit()
        texts = method.obfuscate_labelled(corpus.texts, built.attributes)
        if len(texts) != len(corpus):
            raise AuthorguardError(f"method {spec.name!r} returned {len(texts)} texts for {len(corpus)} documents")
        with atomic_write(path.with_suffix(".json")) as handle:
            json.dump({"texts": texts}, handle)
        return
    fitted = construct_method(spec.name, fit_params(cls, settings[0])).fit(corpus.split("train").texts)
    resolved = {}
    for setting in settings:
        model = fitted
        if epsilon_shared(cls):
            model = fitted.with_epsilon(setting.get("epsilon", fitted.epsilon))
        if CALIBRATION_PARAMETER in setting:
            model.calibrate(setting[CALIBRATION_PARAMETER])
        report = model.privacy_report().to_dict() if hasattr(model, "privacy_report") else {}
        resolved[setting_key(setting)] = {"epsilon": getattr(model, "epsilon", None), "privacy": report}
    with atomic_write(path.with_suffix(".pkl"), mode="wb", encoding=None) as handle:
        pickle.dump(fitted, handle)
    write_json(path.with_suffix(".json"), {"settings": resolved})


def preparations(config: ExperimentConfig) -> dict[str, tuple[str, MethodSpec, list[dict]]]:
    """Every preparation of ``config``: key -> (view, method, the settings that share it)."""
    fingerprint = config.evaluation_fingerprint()
    jobs: dict[str, tuple[str, MethodSpec, list[dict]]] = {}
    for view in view_names(config):
        for spec in config.methods:
            cls = method_class(spec)
            if issubclass(cls, TextObfuscator) and not cls.deterministic:
                continue  # computed per run inside the cells
            for setting in spec.settings():
                key = preparation_key(view, spec, setting, fingerprint)
                if key in jobs:
                    if setting not in jobs[key][2]:
                        jobs[key][2].append(setting)
                else:
                    jobs[key] = (view, spec, [setting])
    return jobs


_LOADED: dict[str, object] = {}


def load_prepared(path: Path):
    """(metadata, fitted model or None) of a stored preparation, kept for the next cell of this process."""
    key = str(path)
    if key not in _LOADED:
        if len(_LOADED) >= 4:
            _LOADED.clear()
        meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        fitted = None
        if path.with_suffix(".pkl").exists():
            with open(path.with_suffix(".pkl"), "rb") as handle:
                fitted = pickle.load(handle)
        _LOADED[key] = (meta, fitted)
    return _LOADED[key]
