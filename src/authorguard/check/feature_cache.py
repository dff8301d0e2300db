"""The check's background counts, cached: a background's writing is counted (:mod:`authorguard.check.features`) once
and read back on every check. The cache (:func:`pool_features`) is one folder per pool under the cache folder:
``meta.json.gz`` (authors, their
blocks' word counts, vocabularies, the pool's checksum, the code version that made it, each file's sha256) and one
``.npz`` per family. A cache whose pool, code version or file checksums differ is rebuilt, never read. Building
is resumable: authors are counted in shards (``part-*.npz``), kept until the cache is complete.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from authorguard.check.features import (
    AUTHOR_WORDS,
    CHAR_VOCABULARY,
    COUNTING_CODE,
    COUNTING_CONSTANTS,
    EXTENDED,
    FAMILIES,
    TOKEN_NGRAM_VOCABULARY,
    BlockMatrix,
    count_blocks,
    cut_blocks,
    remap,
)
from authorguard.check.texts import word_count
from authorguard.exceptions import InputError
from authorguard.utils.weights import file_sha256

#: the authors counted per resumable shard
SHARD_AUTHORS = 100
FORMAT_VERSION = 1


def code_version() -> str:
    """A digest of the code that counts and stores the features (cutting blocks, each family's keys, the
    vocabularies, the file format) and the format number: a cache made by other counting code is rebuilt (code that
    only reads the cache may change without a rebuild)."""
    import inspect

    makers = (
        *COUNTING_CODE,
        _count_shard,
        _write_part,
        _consolidate,
        _save_csr,
        _top_columns,
        remap,
    )
    source = "".join(inspect.getsource(f) for f in makers)
    constants = (*COUNTING_CONSTANTS, FORMAT_VERSION)
    return hashlib.sha256((source + repr(constants)).encode()).hexdigest()[:16]


@dataclass
class PoolFeatures:
    """The counted blocks of a background pool. ``authors``: names in pool order; ``starts[i]``: the first block
    of author i (``starts[-1]``: the number of blocks); ``block_words``: words per block; ``counts[family]``: a
    :class:`StoredCounts` of (n_blocks, len(vocabulary[family])) integer counts, read when first asked for;
    ``vocabulary[family]``: the keys, column order; ``digest``: the digest of the pool they were counted from, set
    by :func:`pool_features` once read."""

    authors: list
    starts: np.ndarray
    block_words: np.ndarray
    counts: dict
    vocabulary: dict
    digest: str | None = None

    def blocks_of(self, author: int) -> range:
        return range(int(self.starts[author]), int(self.starts[author + 1]))


def _pool_digest(pool: dict) -> str:
    digest = hashlib.sha256()
    for author in sorted(pool):
        digest.update(author.encode("utf-8", "surrogatepass") + b"\x00")
        for text in pool[author]:
            digest.update(text.encode("utf-8", "surrogatepass") + b"\x01")
    return digest.hexdigest()[:24]


def _save_csr(path: Path, matrix: sp.csr_matrix, starts: Sequence[int]) -> None:
    """``matrix`` (blocks x keys) with each author's rows (``starts[i]`` to ``starts[i + 1]``) as members of their
    own, so that a check decompresses only the authors it draws; counts in the smallest integer type."""
    data = matrix.data
    data = (
        data.astype(np.uint8)
        if data.size and data.max() < 256
        else data.astype(np.uint16 if data.max(initial=0) < 65536 else np.int32)
    )
    indices = matrix.indices.astype(np.uint16 if matrix.shape[1] <= 65536 else np.int32)
    members = {
        "indptr": matrix.indptr.astype(np.int64),
        "shape": np.asarray(matrix.shape, dtype=np.int64),
        "starts": np.asarray(starts, dtype=np.int64),
    }
    for author in range(len(starts) - 1):
        begin, end = int(matrix.indptr[starts[author]]), int(matrix.indptr[starts[author + 1]])
        members[f"data_{author}"] = data[begin:end]
        members[f"indices_{author}"] = indices[begin:end]
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as handle:
        np.savez_compressed(handle, **members)
    partial.replace(path)


class StoredCounts:
    """One family's counts of a pool as stored (small integer types, one member per author), read lazily:
    :meth:`rows` decompresses the authors a check draws and builds their blocks' float32 matrix."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: np.lib.npyio.NpzFile | None = None
        self._authors: dict[int, tuple] = {}

    def _open(self):
        if self._file is None:
            self._file = np.load(self.path)
            self.indptr, self.starts = self._file["indptr"], self._file["starts"]
            self.shape = tuple(int(n) for n in self._file["shape"])
        return self._file

    def _author(self, author: int) -> tuple:
        if author not in self._authors:
            stored = self._open()
            self._authors[author] = (stored[f"data_{author}"], stored[f"indices_{author}"])
        return self._authors[author]

    def rows(self, blocks: Sequence[range]) -> sp.csr_matrix:
        """The rows of ``blocks`` (ranges of block numbers, each within one author), in order: (sum of their
        lengths, width) float32."""
        self._open()
        pieces_data, pieces_indices, lengths = [], [], []
        for block in blocks:
            author = int(np.searchsorted(self.starts, block.start, side="right")) - 1
            data, indices = self._author(author)
            base = int(self.indptr[self.starts[author]])
            begin, end = int(self.indptr[block.start]) - base, int(self.indptr[block.stop]) - base
            pieces_data.append(data[begin:end])
            pieces_indices.append(indices[begin:end])
            lengths.append(np.diff(self.indptr[block.start : block.stop + 1]))
        counts = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
        pointer = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        data = np.concatenate(pieces_data).astype(np.float32) if pieces_data else np.zeros(0, np.float32)
        indices = np.concatenate(pieces_indices).astype(np.int32) if pieces_indices else np.zeros(0, np.int32)
        return sp.csr_matrix((data, indices, pointer), shape=(len(counts), self.shape[1]))


def _top_columns(matrix: sp.csr_matrix, keys: list[str], most: int, by: str) -> list[str]:
    """The ``most`` keys found in most blocks (``by="blocks"``) or most often (``by="count"``), ties by key."""
    weight = (
        np.bincount(matrix.indices, minlength=matrix.shape[1]) if by == "blocks" else np.asarray(matrix.sum(0)).ravel()
    )
    order = sorted(range(len(keys)), key=lambda j: (-weight[j], keys[j]))
    return [keys[j] for j in order[:most]]


_file_digest = file_sha256  # (the name the counting code, and so the cache's code version, reads)
_VOCABULARY_LIMITS = {"char": (CHAR_VOCABULARY, "blocks"), "tokens": (TOKEN_NGRAM_VOCABULARY, "count")}


def _cache_folder(key: str) -> Path:
    from authorguard.config import cache_dir

    return cache_dir() / "check" / "features" / key


def _count_shard(args: tuple) -> tuple:
    """(per family: counts, keys) and the block word counts of one shard's authors (run in a worker)."""
    texts_per_author, families = args
    blocks, starts = [], [0]
    for texts in texts_per_author:
        blocks.extend(cut_blocks(texts, AUTHOR_WORDS))
        starts.append(len(blocks))
    counted = count_blocks(blocks, families)
    return counted, [word_count(b) for b in blocks], starts


def build_pool_features(
    pool: dict, folder: Path, say: Callable[[int, int], None] | None = None, processes: int = 2
) -> None:
    """Count every author's first :data:`AUTHOR_WORDS` words of ``pool`` ({author: documents}) into ``folder``;
    resumable (finished shards are kept); ``say(done, total)`` reports shards."""
    folder.mkdir(parents=True, exist_ok=True)
    authors = list(pool)
    digest = _pool_digest(pool)
    version = code_version()
    shards = [authors[i : i + SHARD_AUTHORS] for i in range(0, len(authors), SHARD_AUTHORS)]
    parts = [folder / f"part-{digest}-{version}-{i:05d}.npz" for i in range(len(shards))]
    todo = [i for i, path in enumerate(parts) if not _readable_part(path)]
    done = len(shards) - len(todo)
    if say:
        say(done, len(shards))
    jobs = [([pool[a] for a in shards[i]], FAMILIES) for i in todo]
    import threading

    # forked workers (spawned ones would re-run a caller's unguarded script); where other working threads run (the
    # page's check runs in one) a fork could copy a lock one of them holds, so the shards are counted in this
    # process instead (daemon threads, such as a progress bar's refresh, do not count)
    working = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if processes > 1 and len(jobs) > 1 and not working and sys.platform != "win32":
        import multiprocessing

        context = multiprocessing.get_context("fork")
        with context.Pool(processes) as workers:
            for i, result in zip(todo, workers.imap(_count_shard, jobs)):
                _write_part(parts[i], result)
                done += 1
                if say:
                    say(done, len(shards))
    else:
        for i, job in zip(todo, jobs):
            _write_part(parts[i], _count_shard(job))
            done += 1
            if say:
                say(done, len(shards))
    _consolidate(folder, authors, parts, digest, version)


def _write_part(path: Path, result: tuple) -> None:
    counted, block_words, starts = result
    arrays: dict[str, np.ndarray] = {
        "block_words": np.asarray(block_words, dtype=np.int32),
        "starts": np.asarray(starts, dtype=np.int64),
    }
    keys = {}
    for family, (matrix, names) in counted.items():
        arrays[f"{family}_data"] = matrix.data
        arrays[f"{family}_indices"] = matrix.indices
        arrays[f"{family}_indptr"] = matrix.indptr
        arrays[f"{family}_width"] = np.asarray([matrix.shape[1]])
        keys[family] = names
    arrays["keys"] = np.frombuffer(json.dumps(keys).encode("utf-8", "surrogatepass"), dtype=np.uint8)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as handle:
        # (allow_pickle, numpy's default, named so that no member of ``arrays`` is taken for it)
        np.savez_compressed(handle, allow_pickle=True, **arrays)
    partial.replace(path)


def _readable_part(path: Path) -> bool:
    try:
        _read_part(path)
        return True
    except Exception:
        return False


def _read_part(path: Path) -> tuple:
    with np.load(path) as stored:
        keys = json.loads(stored["keys"].tobytes().decode("utf-8", "surrogatepass"))
        counted = {}
        for family in FAMILIES:
            width = int(stored[f"{family}_width"][0])
            starts = stored[f"{family}_indptr"]
            counted[family] = (
                sp.csr_matrix(
                    (stored[f"{family}_data"], stored[f"{family}_indices"], starts), shape=(len(starts) - 1, width)
                ),
                keys[family],
            )
        return counted, stored["block_words"].copy(), stored["starts"].copy()


def _consolidate(folder: Path, authors: list, parts: list, digest: str, version: str) -> None:
    shards = [_read_part(p) for p in parts]
    vocabulary = {}
    for family in FAMILIES:
        merged: dict[str, list] = {}
        for counted, _, _ in shards:
            matrix, keys = counted[family]
            blocks = np.bincount(matrix.indices, minlength=matrix.shape[1])
            total = np.asarray(matrix.sum(0)).ravel()
            for j, key in enumerate(keys):
                entry = merged.setdefault(key, [0, 0])
                entry[0] += int(blocks[j])
                entry[1] += int(total[j])
        limit, by = _VOCABULARY_LIMITS.get(family, (None, "count"))
        column = 0 if by == "blocks" else 1
        ranked = sorted(merged, key=lambda k: (-merged[k][column], k))
        vocabulary[family] = ranked[:limit] if limit else ranked
    author_starts, offset = [0], 0
    for _, _, shard_starts in shards:
        author_starts.extend(int(s) + offset for s in shard_starts[1:])
        offset += int(shard_starts[-1])
    files = {}
    for family in FAMILIES:
        index = {k: j for j, k in enumerate(vocabulary[family])}
        stacked = sp.vstack(
            [remap(counted[family][0], counted[family][1], index, len(index)) for counted, _, _ in shards], format="csr"
        )
        stacked.sort_indices()
        path = folder / f"{family}.npz"
        _save_csr(path, stacked, author_starts)
        files[family] = _file_digest(path)
    starts, offset = [0], 0
    block_words: list[int] = []
    for _, words, shard_starts in shards:
        starts.extend(int(s) + offset for s in shard_starts[1:])
        offset += int(shard_starts[-1])
        block_words.extend(int(w) for w in words)
    meta = {
        "format": FORMAT_VERSION,
        "code": version,
        "pool": digest,
        "authors": authors,
        "starts": starts,
        "block_words": block_words,
        "vocabulary": vocabulary,
        "files": files,
    }
    partial = folder / "meta.json.gz.partial"
    with gzip.open(partial, "wt", encoding="utf-8") as handle:
        json.dump(meta, handle)
    partial.replace(folder / "meta.json.gz")
    for path in parts:
        path.unlink(missing_ok=True)


def read_pool_features(folder: Path, pool: dict) -> PoolFeatures | None:
    """The cached features in ``folder`` when they were made from ``pool`` by this code and every file's
    checksum holds; None otherwise (the caller rebuilds)."""
    try:
        with gzip.open(folder / "meta.json.gz", "rt", encoding="utf-8") as handle:
            meta = json.load(handle)
        if (
            meta.get("format") != FORMAT_VERSION
            or meta.get("code") != code_version()
            or meta.get("pool") != _pool_digest(pool)
            or meta.get("authors") != list(pool)
        ):
            return None
        counts = {}
        for family in FAMILIES:
            path = folder / f"{family}.npz"
            if _file_digest(path) != meta["files"][family]:
                return None
            counts[family] = StoredCounts(path)
        return PoolFeatures(
            meta["authors"],
            np.asarray(meta["starts"], dtype=np.int64),
            np.asarray(meta["block_words"], dtype=np.int32),
            counts,
            meta["vocabulary"],
        )
    except (OSError, ValueError, KeyError, EOFError, TypeError):
        return None


_LOADED: dict[str, PoolFeatures] = {}


def pool_features(
    key: str,
    pool: dict,
    say: Callable[[str], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    processes: int = 2,
) -> PoolFeatures:
    """The features of ``pool`` ({author: documents}) cached under ``key`` (a genre, or a background file's
    digest): read when valid, built (or rebuilt: other pool, other code, a damaged file) otherwise; kept in this
    process once read."""
    digest = _pool_digest(pool)
    held = _LOADED.get(key)
    if held is not None and held.authors == list(pool) and held.digest == digest:
        return held
    folder = _cache_folder(key)
    features = read_pool_features(folder, pool)
    if features is None:
        if (folder / "meta.json.gz").exists() and say:
            say(f"the cached features of {key} do not match the pool or this version, or are damaged: rebuilding")
        elif say:
            say(
                f"counting the {key} background's features once (kept in {folder}; `authorguard setup --check` "
                "does it ahead)"
            )
        if progress is None and say is not None:  # a line per part counted, with the time it will take
            from authorguard.utils.progress import JobProgress

            progress = JobProgress(f"counting the {key} background (parts)", 0, "lines", write=say).update
        (folder / "meta.json.gz").unlink(missing_ok=True)
        build_pool_features(pool, folder, progress, processes)
        features = read_pool_features(folder, pool)
        if features is None:
            raise InputError(f"the features cached in {folder} could not be read back after building them")
    features.digest = digest
    _LOADED[key] = features
    return features


def background_key(genre: str, pool: dict) -> str:
    """The cache folder's name for a background: the genre's for a staged pool, else a digest of its writing."""
    return genre if genre != "own" else "own-" + _pool_digest(pool)[:12]


def disk_bytes(key: str) -> int:
    """Bytes the cached features of ``key`` take on disk."""
    folder = _cache_folder(key)
    return sum(p.stat().st_size for p in folder.glob("*") if p.is_file()) if folder.is_dir() else 0


def stack_blocks(
    features: PoolFeatures,
    author_blocks: Sequence[range],
    own_blocks: Sequence[str],
    families: Sequence[str] = FAMILIES,
) -> tuple[BlockMatrix, list[range]]:
    """A :class:`BlockMatrix` of the pool's blocks ``author_blocks`` (ranges of block rows, in order) then the
    writer's ``own_blocks`` counted now; returns it and the rows each input range (and, last, the writer's
    blocks) took in it."""
    n_rows = sum(len(blocks) for blocks in author_blocks)
    counted = count_blocks(own_blocks, families)
    counts, vocabulary = {}, {}
    for family in families:
        names = list(features.vocabulary[family])
        own, keys = counted[family]
        index = {k: j for j, k in enumerate(names)}
        if family in EXTENDED:
            for key in keys:
                if key not in index:
                    index[key] = len(names)
                    names.append(key)
        width = len(names)
        pool_rows = features.counts[family].rows(author_blocks)
        pool_rows = sp.csr_matrix((pool_rows.data, pool_rows.indices, pool_rows.indptr), shape=(n_rows, width))
        counts[family] = sp.vstack([pool_rows, remap(own, keys, index, width).astype(np.float32)], format="csr")
        vocabulary[family] = names
    placed, offset = [], 0
    for blocks in list(author_blocks) + [range(len(own_blocks))]:
        placed.append(range(offset, offset + len(blocks)))
        offset += len(blocks)
    return BlockMatrix(counts, vocabulary), placed
