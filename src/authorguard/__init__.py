"""authorguard: protect the authors of text data.

Heavy dependencies (numba kernels, torch) are imported lazily by the modules that need them, so
``import authorguard`` and ``authorguard --help`` stay fast.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
