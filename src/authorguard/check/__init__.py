"""The writer's check: would a stylometric attacker holding your known writing pick you out as a text's author?

``authorguard.check.check(text, known)`` -> :class:`~authorguard.check.result.CheckResult`, the object the CLI
(``authorguard check``) prints and the local web page (``authorguard serve``) renders.
"""

from authorguard.check.result import AttackerRanking, CheckResult, RewriteCheck
from authorguard.check.run import CheckConfig, check

__all__ = ["AttackerRanking", "CheckConfig", "CheckResult", "RewriteCheck", "check"]
