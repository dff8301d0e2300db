"""The text adapter carries a rewriter's flagged-record count into the shard's manifest entry."""

from __future__ import annotations

from authorguard.base import TextObfuscator
from authorguard.batch.adapters import TextBatchAdapter


class FlagsLongTexts(TextObfuscator):
    """Upper-cases each text; "flags" (as a rewriter flags a fallback) every text longer than three words."""

    deterministic = False

    def __init__(self, random_state=None) -> None:
        self.random_state = random_state

    def fit(self, raw_documents=None, y=None):
        return self

    def obfuscate(self, raw_documents):
        texts = list(raw_documents)
        self.last_ = sum(len(t.split()) > 3 for t in texts)
        return [t.upper() for t in texts]

    def release_report(self) -> dict:
        return {"records_flagged": self.last_}


def test_flagged_records_are_summed_over_a_shard_rewritten_record_by_record():
    adapter = TextBatchAdapter(FlagsLongTexts().fit())
    rows = adapter.release(["a", "b", "c"], [["one two three four", "short"], ["five six seven eight nine"]], seed=1)
    assert [r["text"] for r in rows] == ["ONE TWO THREE FOUR", "SHORT", "FIVE SIX SEVEN EIGHT NINE"]
    assert adapter.records_flagged == 2
