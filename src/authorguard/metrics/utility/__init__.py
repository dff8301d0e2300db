"""Utility tasks: what the analyst does with a release."""
