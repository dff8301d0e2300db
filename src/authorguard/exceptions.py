"""Exceptions and warnings raised by authorguard."""


class AuthorguardError(Exception):
    """Base class of every error authorguard raises on purpose.

    Messages are one line and name the problem (the parameter, the file, the record).
    """


class InputError(AuthorguardError, ValueError):
    """Bad user input: a malformed file, a missing field, a duplicate id, bad bytes."""


class DataNotFoundError(AuthorguardError, FileNotFoundError):
    """A dataset or resource is neither in the data directory, the cache, nor downloadable."""


class ChecksumError(AuthorguardError):
    """A downloaded or local file does not match its published sha256."""


class PrivacyLeakWarning(UserWarning):
    """A configuration weakens the privacy guarantee (e.g. a vocabulary fitted on private input)."""
