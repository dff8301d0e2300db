"""The realiser tests need torch and trl (the tiny realiser itself is in tests/conftest.py: the method tests use it
too)."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")
