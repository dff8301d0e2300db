"""Saving and loading released count matrices with their vocabulary and record ids."""

from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp

from authorguard.data.io import atomic_write
from authorguard.exceptions import InputError


def save_counts_npz(path: str | os.PathLike, matrix: sp.spmatrix, vocabulary, ids) -> None:
    """Write a CSR matrix, its column words and its row ids to one ``.npz`` (atomically, no pickles)."""
    matrix = sp.csr_matrix(matrix)
    ids_array = np.asarray([str(i) for i in ids])
    with atomic_write(path, "wb") as out:
        np.savez_compressed(
            out,
            data=matrix.data,
            indices=matrix.indices,
            indptr=matrix.indptr,
            shape=np.asarray(matrix.shape),
            vocabulary=np.asarray([str(w) for w in vocabulary]),
            ids=ids_array,
            id_is_int=np.asarray([isinstance(i, (int, np.integer)) for i in ids], dtype=bool),
        )


def load_counts_npz(path: str | os.PathLike) -> tuple[sp.csr_matrix, list[str], list]:
    """Read what :func:`save_counts_npz` wrote: (matrix, vocabulary, ids)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            matrix = sp.csr_matrix(
                (archive["data"], archive["indices"], archive["indptr"]), shape=tuple(archive["shape"])
            )
            vocabulary = archive["vocabulary"].tolist()
            ids = [
                int(i) if as_int else str(i)
                for i, as_int in zip(archive["ids"].tolist(), archive["id_is_int"].tolist())
            ]
    except (OSError, KeyError, ValueError) as error:
        raise InputError(f"{path}: not an authorguard counts .npz ({error})") from None
    return matrix, vocabulary, ids
