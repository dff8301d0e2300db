"""Experiments: authorship scenarios (and, later, the runner and reports)."""
