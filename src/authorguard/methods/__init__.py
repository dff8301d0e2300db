"""Obfuscation methods (registered by name in :mod:`authorguard.registry`)."""
