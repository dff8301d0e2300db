"""Scores of classification tasks and attacks."""
