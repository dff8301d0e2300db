"""The writer's check: would a stylometric attacker holding your known writing pick you out as a text's author?

``authorguard.check(text, known=...)`` (this package is callable: it calls :func:`authorguard.check.run.check`)
-> :class:`~authorguard.check.result.CheckResult`, the object the CLI (``authorguard check``) prints and the local
web page (``authorguard serve``) renders; ``authorguard.check.prepare(text, known)`` -> a
:class:`~authorguard.check.session.CheckSession` that also re-checks edits and rewrites with the attackers it fitted.
"""

from authorguard.check.config import CheckConfig
from authorguard.check.result import AttackerRanking, CheckResult, RewriteCheck
from authorguard.check.run import check, prepare
from authorguard.check.session import CheckSession
from authorguard.utils.modules import make_callable

__all__ = ["AttackerRanking", "CheckConfig", "CheckResult", "CheckSession", "RewriteCheck", "check", "prepare"]

make_callable(__name__, "authorguard.check.run:check")
