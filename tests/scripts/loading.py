"""Loading a research script under scripts/ as a module, for its tests (scripts are not a package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_script(relative: str):
    """The module of ``scripts/<relative>`` (e.g. ``device/travel.py``), executed once per call."""
    path = SCRIPTS / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
