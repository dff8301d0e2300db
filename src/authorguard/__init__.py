"""authorguard: protect the authors of text data.

The public API — each use case of the command line as one function::

    import authorguard
    released = authorguard.obfuscate(texts, method="normalise")    # list of RecordOutcome: text, status, fidelity
    result = authorguard.check(text, known=my_posts)                # CheckResult: rank, probability, evidence
    audit = authorguard.assess("posts.jsonl", output_dir="audit/")  # the risk audit, report.html
    X = authorguard.SynTF(random_state=0).fit_transform(texts)      # ε-DP term-frequency vectors
    corpus = authorguard.synthesise(texts, authors, labels, epsilon=4)  # a synthetic corpus, (ε, δ)-DP per author

They are loaded on first use (PEP 562), so ``import authorguard`` and ``authorguard --help`` stay light: no torch,
no spaCy, no numba until a function needs them.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

#: public name -> "module:attribute" that it is, imported when the name is first used. ``check`` and ``assess`` are
#: their subpackages, which are callable (authorguard.utils.modules): one object whichever was imported first.
_PUBLIC = {
    "obfuscate": "authorguard.api:obfuscate",
    "build_method": "authorguard.api:build_method",
    "RecordOutcome": "authorguard.api:RecordOutcome",
    "check": "authorguard.check:",
    "assess": "authorguard.assess:",
    "SynTF": "authorguard.methods.syntf:SynTF",
    "synthesise": "authorguard.api:synthesise",
    "SyntheticCorpus": "authorguard.api:SyntheticCorpus",
    "load_dataset": "authorguard.data:load_dataset",
}

__all__ = [
    "RecordOutcome",
    "SynTF",
    "SyntheticCorpus",
    "__version__",
    "assess",
    "build_method",
    "check",
    "load_dataset",
    "obfuscate",
    "synthesise",
]


def __getattr__(name: str) -> Any:
    # type checkers read the names from __init__.pyi
    if name in _PUBLIC:
        import importlib

        module_name, attribute = _PUBLIC[name].split(":")
        module = importlib.import_module(module_name)
        value = getattr(module, attribute) if attribute else module
        globals()[name] = value
        return value
    raise AttributeError(f"module 'authorguard' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
