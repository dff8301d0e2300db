"""Obama and Trump speeches: the three sets, their blocks and dates."""

from __future__ import annotations

from collections import Counter

import pytest

from authorguard.data.speeches import load_speeches, split_speeches
from authorguard.exceptions import InputError


def test_sets_speakers_and_dates():
    speeches = load_speeches()
    assert Counter(speeches.column("set")) == {"obama": 50, "trump-millercenter": 34, "trump-campaign": 10}
    assert Counter(speeches.authors) == {"obama": 50, "trump": 44} and speeches.labels == speeches.authors
    dates = dict(zip(speeches.ids, speeches.column("date")))
    assert dates["obama-001"] == "2008-08-28" and dates["trump-millercenter-001"] == "2017-01-20"
    assert dates["trump-campaign-001"] is None
    # wc -w of each file less the two words of every 'SPEECH n' line
    words = Counter()
    for text, name in zip(speeches.texts, speeches.column("set")):
        words[name] += len(text.split())
    assert words == {"obama": 205_661 - 100, "trump-campaign": 168_060 - 20, "trump-millercenter": 180_836 - 68}


def test_one_set_alone_and_unknown_sets():
    assert set(load_speeches(("trump-campaign",)).column("source")) == {"campaign"}
    with pytest.raises(InputError, match="unknown speech set 'biden'"):
        load_speeches(("biden",))


def test_split_speeches():
    assert split_speeches("SPEECH 1\nHello.\nSPEECH 2\n\nBye.\n") == [(1, "Hello."), (2, "Bye.")]
    with pytest.raises(InputError, match="f: no 'SPEECH n' line"):
        split_speeches("just text", "f")
    with pytest.raises(InputError, match="text before the first"):
        split_speeches("preamble\nSPEECH 1\nx")
