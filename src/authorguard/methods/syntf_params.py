"""SynTF's parameter checks, importable without scikit-learn or numba: ``authorguard syntf`` checks its options
before it reads its input and starts counting it (the heavy imports then overlap with the counting)."""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np

from authorguard.exceptions import InputError
from authorguard.text.analysis import MORPHOLOGIES
from authorguard.utils.validation import check_number, check_option

#: ``vocabulary="embeddings"``: the embeddings' own words, a public vocabulary
EMBEDDINGS_VOCABULARY = "embeddings"


def check_syntf_parameters(params: Mapping[str, object], owner: str = "SynTF") -> None:
    """Raise InputError (one line naming the parameter) unless ``params`` (SynTF's ``get_params()``) are valid."""
    check_number(params["epsilon"], "epsilon", owner, low=0.0)
    check_number(params["n_words"], "n_words", owner, kind=int, low=1, closed="left")
    check_number(params["bigram_weight"], "bigram_weight", owner, low=0.0, high=1.0, closed="both")
    check_option(params["morphology"], "morphology", owner, MORPHOLOGIES)
    check_number(params["min_df"], "min_df", owner, kind=int, low=1, closed="left")
    if params["max_features"] is not None:
        check_number(params["max_features"], "max_features", owner, kind=int, low=1, closed="left")
    if params["n_jobs"] is not None and check_number(params["n_jobs"], "n_jobs", owner, kind=int) == 0:
        raise InputError(f"The 'n_jobs' parameter of {owner} must be None, -1 (every core) or >= 1. Got 0 instead.")
    for flag in ("synsets", "secure"):
        if not isinstance(params[flag], (bool, np.bool_)):
            raise InputError(f"The {flag!r} parameter of {owner} must be a bool. Got {params[flag]!r} instead.")
    vocabulary = params["vocabulary"]
    if (
        isinstance(vocabulary, (str, os.PathLike))
        and vocabulary != EMBEDDINGS_VOCABULARY
        and not os.path.isfile(vocabulary)
    ):
        raise InputError(
            f"The 'vocabulary' parameter of {owner} must be None, {EMBEDDINGS_VOCABULARY!r}, a word-list file or an "
            f"iterable of words. Got {str(vocabulary)!r} instead (no such file)."
        )
