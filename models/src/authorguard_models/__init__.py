"""authorguard's trained models, as data: one folder a model, every file's sha256 in ``checksums.json``.

Nothing here is imported by authorguard; it finds this folder without importing it
(:func:`authorguard.utils.weights.packaged_folder`).
"""

__version__ = "0.1.0"
