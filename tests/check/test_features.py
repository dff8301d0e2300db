"""The cached background features: equal to freshly counted ones, rebuilt when the pool, the code or a file
changes, never read when damaged; and the session reuses its fitted attackers."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.check import CheckConfig, prepare
from authorguard.check import feature_cache as C
from authorguard.check import features as F
from authorguard.check.texts import word_count

CONFIG = CheckConfig(sizes=(5, 10), attackers=("char-ngrams", "function-words", "writeprints-text"))


def _forget_loaded():
    C._LOADED.clear()


def _numbers(result):
    return [(r.attacker, r.candidates, r.rank, round(r.margin, 9), round(r.probability, 9)) for r in result.rankings]


def test_blocks_add_up_to_pieces():
    text = " ".join(f"word{i}, and more." for i in range(130))
    blocks = F.cut_blocks([text])
    assert [word_count(b) for b in blocks] == [50, 50, 50, 50, 50, 50, 50, 40]
    counted = F.count_blocks(blocks, ("char", "words"))
    matrix = F.BlockMatrix(
        {f: m.astype(np.float32) for f, (m, _) in counted.items()}, {f: keys for f, (_, keys) in counted.items()}
    )
    summed = matrix.pieces([[0, 1], [2, 3, 4]])
    direct = F.count_texts(matrix, [" ".join(blocks[:2])], ("words",))
    # words never cross blocks: a piece's word counts are its blocks' counts summed
    assert (summed["words"][0] != direct["words"][0]).nnz == 0
    assert summed["char"][1].sum() == sum(counted["char"][0][i].sum() for i in (2, 3, 4))


def test_cached_features_equal_fresh_ones_and_give_the_same_check(habits_world):
    known, mine, _, background = habits_world
    key = C.background_key(background.genre, background.authors)
    _forget_loaded()
    first = prepare(mine, known, background=background, config=CONFIG).result
    cached = C.read_pool_features(C._cache_folder(key), background.authors)
    assert cached is not None
    # fresh: every author's blocks counted now, in the cache's columns
    for i, author in enumerate(cached.authors):
        blocks = F.cut_blocks(background.authors[author], F.AUTHOR_WORDS)
        counted = F.count_blocks(blocks)
        for family in F.FAMILIES:
            matrix, keys = counted[family]
            index = {k: j for j, k in enumerate(cached.vocabulary[family])}
            fresh = F.remap(matrix, keys, index, len(index)).toarray()
            rows = cached.counts[family].rows([cached.blocks_of(i)]).toarray()
            assert np.array_equal(fresh, rows), (author, family)
    _forget_loaded()
    second = prepare(mine, known, background=background, config=CONFIG).result  # read from disk
    assert _numbers(first) == _numbers(second)


def test_a_changed_pool_or_code_or_a_damaged_file_is_rebuilt(habits_world, monkeypatch):
    known, mine, _, background = habits_world
    key = C.background_key(background.genre, background.authors)
    _forget_loaded()
    reference = _numbers(prepare(mine, known, background=background, config=CONFIG).result)
    folder = C._cache_folder(key)

    said = []
    _forget_loaded()
    damaged = folder / "char.npz"
    damaged.write_bytes(damaged.read_bytes()[:-100] + b"\x00" * 100)
    assert C.read_pool_features(folder, background.authors) is None  # detected, never used
    again = prepare(mine, known, background=background, config=CONFIG, progress=said.append).result
    assert any("rebuilding" in line for line in said) and _numbers(again) == reference

    _forget_loaded()
    monkeypatch.setattr(C, "code_version", lambda: "another-version")
    assert C.read_pool_features(folder, background.authors) is None
    said.clear()
    prepare(mine, known, background=background, config=CONFIG, progress=said.append)
    assert any("rebuilding" in line for line in said)
    monkeypatch.undo()

    _forget_loaded()
    changed = {a: list(t) for a, t in background.authors.items()}
    first = next(iter(changed))
    changed[first][0] = changed[first][0] + " An added sentence."
    assert C.background_key("own", changed) != key  # another pool: another folder
    assert C.read_pool_features(folder, changed) is None  # and this folder's features are not its features
    _forget_loaded()


def test_a_rewrite_and_a_recheck_reuse_the_fitted_attackers(habits_world):
    known, mine, _, background = habits_world
    session = prepare(mine, known, background=background, config=CONFIG)
    fitted = session.fits
    assert fitted == 6  # three attackers x two sizes
    edited = session.recheck(mine.replace("!", "."))
    assert session.fits == fitted and len(edited.rankings) == 6
    assert all(a.candidates == b.candidates for a, b in zip(edited.rankings, session.result.rankings))
    shown = []
    rewrite = session.rewrite("dropout(rate=0.4)", shown=shown.append)
    # only the augmented attackers are new: three, at the smallest set
    assert session.fits == fitted + 3
    assert shown and shown[0]["text"] == rewrite.text
    assert {r.threat_model for r in rewrite.rankings} == {"static", "augmented"}


def test_the_backgrounds_rewrites_are_made_once(habits_world, monkeypatch):
    from authorguard.methods.build import build_text_method, parse_method_spec

    known, mine, _, background = habits_world
    session = prepare(mine, known, background=background, config=CheckConfig(sizes=(5,), attackers=("char-ngrams",)))
    rewriter = build_text_method(*parse_method_spec("dropout(rate=0.3)"), 0)
    calls = []
    original = rewriter.obfuscate
    monkeypatch.setattr(rewriter, "obfuscate", lambda texts: calls.append(len(texts)) or original(texts))
    rewriter.name = "dropout(rate=0.3)"
    session.rewrite(rewriter)
    first = list(calls)
    calls.clear()
    again = prepare(mine, known, background=background, config=CheckConfig(sizes=(5,), attackers=("char-ngrams",)))
    again.rewrite(rewriter)
    # second check: the text and the writer's pieces are rewritten again (kept in memory only), the background's not
    assert first == [1, 12, 3] and calls == [1, 3]


def test_limits_are_one_line(habits_world):
    from authorguard.check.config import KNOWN_LIMIT_WORDS, TEXT_LIMIT_WORDS
    from authorguard.exceptions import InputError

    known, mine, _, background = habits_world
    with pytest.raises(InputError, match=f"a check reads at most {TEXT_LIMIT_WORDS:,}"):
        prepare("word " * (TEXT_LIMIT_WORDS + 1), known, background=background, config=CONFIG)
    with pytest.raises(InputError, match=f"a check reads at most {KNOWN_LIMIT_WORDS:,}"):
        prepare(mine, ["word " * (KNOWN_LIMIT_WORDS + 1)], background=background, config=CONFIG)
