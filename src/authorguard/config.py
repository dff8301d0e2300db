"""Where authorguard finds data and keeps its cache.

Resolved once, at the edge (CLI option or function argument, else environment, else the user settings file,
else default):

- data directory: ``AUTHORGUARD_DATA``, else the ``data_dir`` that ``authorguard setup --data-dir DIR`` recorded in
  the settings file — local copies of corpora, laid out as ``<data>/<dataset>/<file>`` (e.g.
  ``<data>/20news/20news-bydate.tar.gz``) and, optionally, an NLTK data folder ``<data>/nltk_data``.
- cache directory: ``AUTHORGUARD_CACHE``, default ``~/.cache/authorguard`` — downloads and derived vectors.
- models directory: ``AUTHORGUARD_MODELS``, else the recorded ``models_dir``, default
  ``~/.local/share/authorguard/models`` (``XDG_DATA_HOME``) — pretrained weights that ``authorguard setup --models``
  fetched (kept apart from the cache, which may be wiped).
- settings file: ``AUTHORGUARD_CONFIG``, default ``~/.config/authorguard/settings.json`` (``XDG_CONFIG_HOME``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

DATA_ENV = "AUTHORGUARD_DATA"
CACHE_ENV = "AUTHORGUARD_CACHE"
MODELS_ENV = "AUTHORGUARD_MODELS"
SETTINGS_ENV = "AUTHORGUARD_CONFIG"


def settings_path() -> Path:
    """Where ``authorguard setup`` records the user's settings."""
    value = os.environ.get(SETTINGS_ENV)
    if value:
        return Path(value).expanduser()
    return Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "authorguard" / "settings.json"


def read_settings() -> dict:
    """The recorded settings ({} when there is no file or it cannot be read: settings only fill in defaults)."""
    try:
        value = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def write_settings(settings: dict) -> Path:
    """Record ``settings`` (atomically: a temporary file renamed into place); returns the file's path."""
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path


def data_dir(explicit: str | os.PathLike | None = None) -> Path | None:
    """The data directory, or None when none is configured (argument, ``AUTHORGUARD_DATA``, recorded setting)."""
    value = explicit if explicit is not None else os.environ.get(DATA_ENV) or read_settings().get("data_dir")
    return Path(value).expanduser() if value else None


def cache_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The cache directory (created on demand by the code that writes to it)."""
    value = explicit if explicit is not None else os.environ.get(CACHE_ENV)
    if value:
        return Path(value).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "authorguard"


def models_dir(explicit: str | os.PathLike | None = None) -> Path:
    """Where fetched pretrained weights live (argument, ``AUTHORGUARD_MODELS``, recorded setting, default)."""
    value = explicit if explicit is not None else os.environ.get(MODELS_ENV) or read_settings().get("models_dir")
    if value:
        return Path(value).expanduser()
    return Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "authorguard" / "models"
