"""A package that can be called: ``authorguard.check(...)`` while ``authorguard.check`` stays the subpackage.

``authorguard.check`` and ``authorguard.assess`` are both a use case's function (the public API) and a subpackage.
Python binds a subpackage to its parent's attribute when it is first imported, so a function of the same name
bound there would be replaced by the module at some later, unpredictable import. Making the subpackage itself
callable gives one object that is both, whatever was imported first.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


def make_callable(package: str, function: str) -> None:
    """Make the module ``package`` (already in ``sys.modules``) callable: calling it calls ``function``, given as
    ``"module:name"`` and imported on the first call (the package's own import stays light)."""
    module_name, name = function.split(":")

    class CallablePackage(types.ModuleType):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return getattr(importlib.import_module(module_name), name)(*args, **kwargs)

    CallablePackage.__call__.__doc__ = f"Call :func:`{module_name}.{name}`."
    CallablePackage.__name__ = CallablePackage.__qualname__ = "CallablePackage"
    sys.modules[package].__class__ = CallablePackage
