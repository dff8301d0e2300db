"""``authorguard syntf``'s JSONL writer: each line is the json.dumps of the record, counts descending."""

from __future__ import annotations

import json

import numpy as np
import scipy.sparse as sp

from authorguard.cli.syntf import write_output


def test_each_line_is_the_records_json_with_counts_descending_ties_in_vocabulary_order(tmp_path):
    rng = np.random.default_rng(0)
    vocabulary = np.array(["zebra", "ünïcode", 'quo"te', "apple", "b"], dtype=object)
    dense = rng.integers(0, 4, size=(6, 5))
    dense[2] = 0  # a record with no word
    ids = ["a", "é", 3, "d", "e", "f"]
    path = tmp_path / "out.jsonl"
    write_output(path, ids, sp.csr_matrix(dense), vocabulary)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(ids)
    for line, identifier, row in zip(lines, ids, dense):
        order = sorted(np.flatnonzero(row), key=lambda j: (-row[j], j))
        record = {"id": identifier, "counts": {str(vocabulary[j]): int(row[j]) for j in order}}
        assert line == json.dumps(record, ensure_ascii=False)
    empty = tmp_path / "empty.jsonl"
    write_output(empty, ["x", "y"], sp.csr_matrix((2, 5), dtype=np.int64), vocabulary)
    assert empty.read_text(encoding="utf-8").splitlines() == ['{"id": "x", "counts": {}}', '{"id": "y", "counts": {}}']
