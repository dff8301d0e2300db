"""Batch anonymisation of large archives: sharded, streaming, resumable, exactly once, local or on Ray."""
