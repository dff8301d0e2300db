"""Finding a dataset file locally, or downloading it once into the cache, always checking its sha256."""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from authorguard import config
from authorguard.exceptions import ChecksumError, DataNotFoundError


@dataclass(frozen=True)
class RemoteFile:
    """A published file: where to get it and the sha256 digests known to be good."""

    dataset: str
    filename: str
    url: str
    sha256: tuple[str, ...]


def sha256_of(path: str | os.PathLike, chunk_size: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _verify(path: Path, remote: RemoteFile) -> Path:
    actual = sha256_of(path)
    if actual not in remote.sha256:
        raise ChecksumError(
            f"{path}: sha256 {actual} matches none of the known digests of {remote.filename} "
            f"({', '.join(d[:12] + '…' for d in remote.sha256)}); pass verify=False only if you trust this copy"
        )
    return path


def _candidates(remote: RemoteFile, data_dir: Path | None, cache: Path) -> Iterable[Path]:
    if data_dir is not None:
        yield data_dir / remote.dataset / remote.filename
        yield data_dir / remote.filename
    yield cache / remote.dataset / remote.filename


def locate(
    remote: RemoteFile,
    *,
    data_dir: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    download: bool = True,
    verify: bool = True,
) -> Path:
    """Path of a verified local copy of ``remote``.

    Looks in ``<data_dir>/<dataset>/``, ``<data_dir>/`` and ``<cache>/<dataset>/``; if none holds it and
    ``download`` is true, downloads ``remote.url`` into the cache (temporary file, checksum, then rename).
    """
    root = config.data_dir(data_dir)
    cache = config.cache_dir(cache_dir)
    for candidate in _candidates(remote, root, cache):
        if candidate.is_file():
            return _verify(candidate, remote) if verify else candidate
    if not download:
        where = f"{root}" if root is not None else f"no data directory (set {config.DATA_ENV})"
        raise DataNotFoundError(
            f"{remote.filename} not found in {where} or the cache {cache}; download it from {remote.url} "
            f"or allow downloading"
        )
    target = cache / remote.dataset / remote.filename
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{remote.filename}.", suffix=".part")
    os.close(handle)
    try:
        try:
            with urllib.request.urlopen(remote.url, timeout=60) as response, open(temporary, "wb") as out:
                for chunk in iter(lambda: response.read(1 << 20), b""):
                    out.write(chunk)
        except OSError as error:
            raise DataNotFoundError(
                f"cannot download {remote.url} ({error}); set {config.DATA_ENV} to a folder holding {remote.filename}"
            ) from None
        if verify:
            _verify(Path(temporary), remote)
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return target
