"""The learned consistency judges beside the rule meter, and how their verdicts join it (:mod:`.verdict`):

- ``judge``: the feature judge (:mod:`.feature_judge`) — gradient-boosted trees over the rules' findings and the
  lexical differences they do not weigh (:mod:`.features`), fitted on hand-written development pairs; packaged
  (one JSON file, checksum-checked), needs the ``minilm`` extra for its sentence cosines;
- ``cross-encoder``: a MiniLM cross-encoder (:mod:`.model`) trained by ``authorguard train judge``; not packaged.
"""

from __future__ import annotations

import functools
from pathlib import Path

#: sha256 of the packaged feature judge (a corrupt or replaced file is refused before it is read)
PACKAGED_FEATURE_SHA256 = "cf3dbcec76a6655660f13f024ae209c3a1636e6571f59646a5753ca2b376d8a8"


def load_feature_judge(path: str | Path | None = None):
    """The feature judge at ``path``, else the packaged one (its checksum checked)."""
    from authorguard.exceptions import InputError
    from authorguard.metrics.fidelity.judge.feature_judge import FILE_NAME, FeatureJudge
    from authorguard.utils.weights import file_sha256, packaged_folder

    if path is not None:
        return FeatureJudge.load(path)
    packaged = packaged_folder("feature_judge") / FILE_NAME
    if file_sha256(packaged) != PACKAGED_FEATURE_SHA256:  # the judge this code was calibrated with, exactly
        raise InputError(f"the packaged feature judge {packaged} is not the one this authorguard expects: reinstall")
    return FeatureJudge.load(packaged)


@functools.lru_cache(maxsize=4)
def shared_judge(meter: str = "judge"):
    """The judge of a meter (``judge`` or ``cross-encoder``), loaded once per process."""
    if meter == "cross-encoder":
        from authorguard.metrics.fidelity.judge.model import load_judge

        return load_judge()
    return load_feature_judge()
