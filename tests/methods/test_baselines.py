"""Scrubbing baselines on real-looking messages."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.methods.baselines import Original, Presidio, Scrubadub

MESSAGE = "Hi, this is John Smith from Boston: write to john.smith@example.com or call 617-253-1000."


def test_original_returns_the_documents():
    assert Original().obfuscate(["a", ""]) == ["a", ""]
    with pytest.raises(InputError, match="document 0 must be a str"):
        Original().obfuscate([None])


def test_scrubadub_replaces_addresses_and_phone_numbers():
    out = Scrubadub().obfuscate([MESSAGE, ""])
    assert "john.smith@example.com" not in out[0] and "{{EMAIL}}" in out[0] and "{{PHONE}}" in out[0]
    assert "John Smith" in out[0]  # no name detector offline (see the class docstring)
    assert out[1] == ""


def test_presidio_replaces_names_places_and_addresses():
    out = Presidio().obfuscate([MESSAGE, "nothing to see here"])
    assert "<PERSON>" in out[0] and "<EMAIL_ADDRESS>" in out[0] and "John Smith" not in out[0]
    assert out[1] == "nothing to see here"
    with pytest.raises(InputError, match="'score_threshold' parameter"):
        Presidio(score_threshold=2).obfuscate(["x"])
