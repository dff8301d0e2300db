"""The writer's check: would a stylometric attacker holding your known writing pick you out as a text's author?

``authorguard.check(text, known=...)`` (this package is callable: it calls :func:`authorguard.check.run.check`)
-> :class:`~authorguard.check.result.CheckResult`, the object the CLI (``authorguard check``) prints and the local
web page (``authorguard serve``) renders; ``authorguard.check.prepare(text, known)`` -> a
:class:`~authorguard.check.session.CheckSession` that also re-checks edits and rewrites with the attackers it fitted.
"""

from typing import TYPE_CHECKING, Any

from authorguard.utils.modules import make_callable

if TYPE_CHECKING:
    from authorguard.check.config import CheckConfig
    from authorguard.check.result import AttackerRanking, CheckResult, RewriteCheck
    from authorguard.check.run import check, prepare
    from authorguard.check.session import CheckSession

__all__ = ["AttackerRanking", "CheckConfig", "CheckResult", "CheckSession", "RewriteCheck", "check", "prepare"]

# each name's module, imported on first use (PEP 562): a command that only reads texts (``authorguard check``
# handing its check to the resident server) does not pay for numpy, scipy and scikit-learn
_HOMES = {
    "CheckConfig": "config",
    "AttackerRanking": "result",
    "CheckResult": "result",
    "RewriteCheck": "result",
    "check": "run",
    "prepare": "run",
    "CheckSession": "session",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


make_callable(__name__, "authorguard.check.run:check")
