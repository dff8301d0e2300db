"""Freeze the held-out set of the learned fidelity judge (issue 81), before any training: short passages of corpora
no rule, threshold or judge was developed on (the Obama / Trump Miller Center speeches, the Federalist papers, the
AMT essays), none holding a sentence of the earlier held-out sets, each with the rewrite a helper writes for it.

    python scripts/judge/frozen_pairs.py docs/results/judge/heldout --seed 8101 \
        --exclude docs/results/faithful/heldout --exclude docs/results/faithful/heldout-2 \
        --exclude docs/results/faithful/heldout-3 --exclude docs/results/faithful/heldout-4

Writes ``pair-sources.jsonl``: 176 passages (1-2 sentences, 15-60 words), each ``{"item", "source", "tags",
"rewrite", "input"}``: 88 honest paraphrases that change many words (``paraphrase:<how>``: clauses reordered,
synonyms, a nationality by its country, an abbreviation expanded or made, brackets moved or dropped, contractions,
free) and 88 one-change rewrites across every class of :data:`CHANGES` (the subtle ones included), 5 or 6 each. A
helper writes the pairs; other helpers, who see neither the rewrite asked for nor any meter, label them blind.

Never develop on these files: the training pairs come from blogs and 20 Newsgroups (``scripts/judge/pairs.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "faithful"))

from heldout_set import _documents, _excluded_sentences, _paragraphs, _sentences, _tags, _windows

#: one-change rewrites: class -> (how many, the tag a source needs for it)
CHANGES = {
    "negation_added_or_removed": (6, None),
    "hedge_reversed": (6, None),
    "antonym": (5, None),
    "number_changed": (5, "numbers_any"),
    "number_moved": (5, "numbers"),
    "unit_or_scale_dropped": (5, "unit"),
    "time_shifted": (6, None),
    "agent_patient_swapped": (5, None),
    "speaker_changed": (5, "speech"),
    "quotation_reworded": (5, "quote"),
    "name_replaced": (5, "name"),
    "name_by_wrong_kind": (5, "name"),
    "co_hyponym": (5, None),
    "clause_dropped": (5, None),
    "claim_added": (6, None),
    "paraphrase_with_one_change": (9, None),
}
#: honest paraphrases: how -> how many
PARAPHRASES = {
    "clauses_reordered": 14,
    "synonyms": 18,
    "nationality_or_country": 8,
    "abbreviation": 8,
    "brackets": 8,
    "contractions_and_spelling": 8,
    "free": 24,
}
QUOTAS = {"obama": 50, "trump-millercenter": 46, "federalist": 36, "amt": 44}


def _source_tags(text: str) -> list[str]:
    import re

    tags = _tags(text)
    if re.search(r"\d", text):
        tags.append("numbers_any")
    if re.search(r"(?<![.!?] )(?<!^)\b[A-Z][a-z]{2,}", text):
        tags.append("name")
    return tags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--seed", type=int, default=8101)
    parser.add_argument("--exclude", type=Path, action="append", default=[])
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    excluded = set().union(*(_excluded_sentences(folder) for folder in args.exclude))
    pool: list[dict] = []
    for source, docs in _documents().items():
        found = []
        for doc_id, text in docs:
            for paragraph in _paragraphs(text):
                for window in _windows(paragraph, 15, 60, 2):
                    if any(sentence in excluded for sentence in _sentences(window)):
                        continue
                    found.append({"source": source, "document": doc_id, "tags": _source_tags(window), "input": window})
        # spread over many documents: each document's first candidate (in a seeded order) before any second one
        order = rng.permutation(len(found))
        rank: dict[str, int] = {}
        ranked = []
        for i in order:
            document = found[i]["document"]
            rank[document] = rank.get(document, 0) + 1
            ranked.append((rank[document], len(ranked), found[i]))
        pool.extend(row for _, _, row in sorted(ranked, key=lambda item: item[:2])[: QUOTAS[source] * 10])
    pool = [pool[i] for i in rng.permutation(len(pool))]
    used: set[str] = set()
    per_source: dict[str, int] = {}
    pairs: list[dict] = []

    def take(kind: str, tag: str | None, count: int) -> None:
        found = 0
        for row in pool:
            if found == count:
                return
            if row["input"] in used or (tag is not None and tag not in row["tags"]):
                continue
            if per_source.get(row["source"], 0) >= QUOTAS[row["source"]]:
                continue
            used.add(row["input"])
            per_source[row["source"]] = per_source.get(row["source"], 0) + 1
            pairs.append({"source": row["source"], "tags": row["tags"], "input": row["input"], "rewrite": kind})
            found += 1
        if found < count:
            raise SystemExit(f"only {found} sources for {kind}")

    for kind, (count, tag) in CHANGES.items():
        take(f"change:{kind}", tag, count)
    for how, count in PARAPHRASES.items():
        take(f"paraphrase:{how}", None, count)
    pairs = [pairs[i] for i in rng.permutation(len(pairs))]
    args.output.mkdir(parents=True, exist_ok=True)
    with open(args.output / "pair-sources.jsonl", "w", encoding="utf-8") as out:
        for item, row in enumerate(pairs):
            record = {"item": item, "source": row["source"], "tags": row["tags"], "rewrite": row["rewrite"]}
            out.write(json.dumps({**record, "input": row["input"]}, ensure_ascii=False) + "\n")
    print(f"{len(pairs)} pair sources ({per_source}) -> {args.output}")


if __name__ == "__main__":
    main()
