"""Freeze the held-out fidelity set of issue 65: passages and pair sources from corpora the methods were not
developed on (the Obama / Trump Miller Center speeches, the Federalist papers, the AMT essays).

    python scripts/faithful/heldout_set.py docs/results/faithful/heldout
    python scripts/faithful/heldout_set.py docs/results/faithful/heldout-2 --seed 6502 \
        --exclude docs/results/faithful/heldout [--passages-only]
    python scripts/faithful/heldout_set.py docs/results/faithful/heldout-3 --seed 6503 \
        --exclude docs/results/faithful/heldout --exclude docs/results/faithful/heldout-2 --passages-only
    python scripts/faithful/heldout_set.py docs/results/faithful/heldout-4 --seed 6504 \
        --exclude docs/results/faithful/heldout --exclude docs/results/faithful/heldout-2 \
        --exclude docs/results/faithful/heldout-3 --passages-only

Writes, deterministically (seed 65; the second set, frozen after the first had been read, seed 6502, no
window holding a sentence of the first set's passages or pair sources; its passages were frozen first with
``--passages-only``, its pair sources after, from the same draw — the passages come out identical; the third, frozen
after the
second's blind labels had been read, seed 6503, no sentence of either; the fourth, frozen after the third's had
been read and before the bottleneck's article slot, seed 6504, passages only, no sentence of the three):

- ``passages.jsonl``: 150 passages of whole sentences (50-140 words) — 38 Obama, 37 Trump (Miller Center), 30
  Federalist, 45 AMT — drawn so that about a third hold a number with a unit, currency or scale, about a third a
  quotation and about a third a list; each row ``{"item", "source", "document", "tags", "input"}``. The methods
  rewrite these; blind annotators label the outputs.
- ``pair-sources.jsonl``: 132 short passages (1-2 sentences, 15-70 words) of the same corpora, none inside a
  passage above, each with the kind of rewrite a helper writes for it (``paraphrase``: an honest paraphrase, 66;
  or one change of a failure class, 66). The helper's pairs are labelled blind; the meter is measured on them.

Never tune on these files: develop on blogs and 20 Newsgroups (docs/results/faithful.md, issue 65).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

SEED = 65
QUOTAS = {"obama": 38, "trump-millercenter": 37, "federalist": 30, "amt": 45}
#: the one-change classes of the written pairs, how many of each, and the tag a source needs for it
CHANGE_CLASSES = {
    "unit_dropped": (8, "unit"),
    "decade_or_abbreviation_broken": (5, "atom"),
    "quotation_reworded": (8, "quote"),
    "quotation_unmarked": (5, "quote"),
    "speaker_changed": (8, "speech"),
    "list_merged": (8, "list"),
    "number_moved": (8, "numbers"),
    "negation": (8, None),
    "swapped_agent": (8, None),
}
PARAPHRASES = 66

_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'\u201d\u2019)]))\s+(?=[\"'\u201c\u2018(]?[A-Z0-9])")
TAGS = {
    "unit": re.compile(
        r"\$\s?\d|\d\s?%|\d\s+(?:percent|per cent|million|billion|trillion|thousand|dollars|cents|miles|acres|"
        r"pounds|tons|barrels|gallons|hours|feet|degrees)\b|\b\d{4}s\b",
        re.I,
    ),
    "quote": re.compile(r"[\"\u201c][^\"\u201c\u201d]{6,}[\"\u201d]"),
    "list": re.compile(r"\b[\w'-]+(?: [\w'-]+){0,2}, [\w'-]+(?: [\w'-]+){0,2},? (?:and|or) [\w'-]+"),
    "atom": re.compile(
        r"\b\d{4}s\b|\b(?:[A-Z]\.){2,}|\b(?:Mr|Mrs|Ms|Dr|Inc|Corp|Co|Jr|Sen|Gov|Gen|St)\.|\b[A-Z][a-z]+-[A-Z]"
    ),
    "speech": re.compile(r"\b(?:said|says|told|asked|wrote|declared|replied)\b|[\"\u201c]"),
    "numbers": re.compile(r"\d[\d,.]*\D+\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|hundred)\b.*\d", re.I),
}


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def _sentences(paragraph: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(paragraph) if s.strip()]


def _windows(paragraph: str, low: int, high: int, most_sentences: int) -> list[str]:
    """Runs of whole sentences of ``low``-``high`` words, each starting where the last ended."""
    sentences, out, start = _sentences(paragraph), [], 0
    while start < len(sentences):
        for end in range(start + 1, min(len(sentences), start + most_sentences) + 1):
            words = sum(len(s.split()) for s in sentences[start:end])
            if words > high:
                break
            if words >= low:
                out.append(" ".join(sentences[start:end]))
                start = end - 1
                break
        start += 1
    return out


def _tags(text: str) -> list[str]:
    return [name for name, pattern in TAGS.items() if pattern.search(text)]


def _excluded_sentences(folder: Path | None) -> set[str]:
    """Every sentence of an earlier set (its passages and pair sources): a window holding one is not drawn again."""
    if folder is None:
        return set()
    out: set[str] = set()
    for name in ("passages.jsonl", "pair-sources.jsonl"):
        path = folder / name
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                out.update(_sentences(json.loads(line)["input"]))
    return out


def _documents() -> dict[str, list[tuple[str, str]]]:
    from authorguard.data.amt import load_amt
    from authorguard.data.federalist import load_federalist, strip_notes
    from authorguard.data.speeches import load_speeches

    out: dict[str, list[tuple[str, str]]] = {name: [] for name in QUOTAS}
    speeches = load_speeches(("obama", "trump-millercenter"))
    for doc_id, text, name in zip(speeches.ids, speeches.texts, speeches.attributes["set"]):
        out[name].append((doc_id, text))
    federalist = load_federalist()
    for doc_id, text in zip(federalist.ids, federalist.texts):
        body = strip_notes(text)
        body = body.split("\n", 1)[1] if body.startswith("To the People") else body
        out["federalist"].append((doc_id, body))
    amt = load_amt()
    for doc_id, text in zip(amt.ids, amt.texts):
        out["amt"].append((doc_id, text))
    return out


def _draw(candidates: list[dict], quota: int, rng, per_document: int) -> list[dict]:
    """``quota`` candidates: a third with a unit, a third with a quotation, the rest with a list where there are
    enough (else any), at most ``per_document`` from one document."""
    order = rng.permutation(len(candidates))
    chosen: list[dict] = []
    used: dict[str, int] = {}
    for tag, share in (("unit", 1 / 3), ("quote", 1 / 3), ("list", 1.0), (None, 1.0)):
        target = len(chosen) + int(round(quota * share)) if tag in ("unit", "quote") else quota
        for index in order:
            if len(chosen) >= min(target, quota):
                break
            row = candidates[index]
            if row in chosen or used.get(row["document"], 0) >= per_document:
                continue
            if tag is not None and tag not in row["tags"]:
                continue
            chosen.append(row)
            used[row["document"]] = used.get(row["document"], 0) + 1
    return chosen


def _write(folder: Path, name: str, rows: list[dict], keys: tuple[str, ...]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(
        "".join(json.dumps({k: r[k] for k in keys}, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output", type=Path)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help="an earlier set's folder (repeatable): none of its sentences is drawn",
    )
    parser.add_argument("--per-document", type=int, default=2, help="most passages drawn from one document")
    parser.add_argument("--passages-only", action="store_true", help="write passages.jsonl alone")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    excluded = set().union(*(_excluded_sentences(folder) for folder in args.exclude))
    documents = _documents()
    passages: list[dict] = []
    taken: set[str] = set()
    short_pool: list[dict] = []
    for source, quota in QUOTAS.items():
        candidates, shorts = [], []
        for doc_id, text in documents[source]:
            for paragraph in _paragraphs(text):
                for window in _windows(paragraph, 50, 140, 8):
                    if excluded and any(sentence in excluded for sentence in _sentences(window)):
                        continue
                    candidates.append({"source": source, "document": doc_id, "tags": _tags(window), "input": window})
                for window in _windows(paragraph, 15, 70, 2):
                    shorts.append({"source": source, "document": doc_id, "tags": _tags(window), "input": window})
        drawn = _draw(candidates, quota, rng, per_document=args.per_document)
        if len(drawn) < quota:
            raise SystemExit(f"{source}: {len(drawn)} passages, {quota} wanted")
        passages.extend(drawn)
        taken.update(row["input"] for row in drawn)
        short_pool.extend(s for s in shorts if not any(s["input"] in p or p in s["input"] for p in taken))
    for item, row in enumerate(passages):
        row["item"] = item
    if args.passages_only:
        _write(args.output, "passages.jsonl", passages, ("item", "source", "document", "tags", "input"))
        counts = {t: sum(t in r["tags"] for r in passages) for t in TAGS}
        print(f"{len(passages)} passages ({counts}) -> {args.output}")
        return
    # pair sources: each change class from sources that have what it changes, then the paraphrases (biased to
    # passages with units, quotations and lists: an honest paraphrase of those is where a meter errs)
    order = [short_pool[i] for i in rng.permutation(len(short_pool))]
    pairs: list[dict] = []
    used: set[str] = set()

    def take(kind: str, tag: str | None, count: int) -> None:
        found = 0
        for row in order:
            if found == count:
                return
            if row["input"] in used or (tag is not None and tag not in row["tags"]):
                continue
            used.add(row["input"])
            pairs.append({"source": row["source"], "tags": row["tags"], "input": row["input"], "rewrite": kind})
            found += 1
        raise SystemExit(f"only {found} sources for {kind}")

    for kind, (count, tag) in CHANGE_CLASSES.items():
        take(kind, tag, count)
    for tag, count in (("unit", 16), ("quote", 16), ("list", 14), (None, PARAPHRASES - 46)):
        take("paraphrase", tag, count)
    pairs = [pairs[i] for i in rng.permutation(len(pairs))]
    for item, row in enumerate(pairs):
        row["item"] = item
    _write(args.output, "passages.jsonl", passages, ("item", "source", "document", "tags", "input"))
    _write(args.output, "pair-sources.jsonl", pairs, ("item", "source", "tags", "rewrite", "input"))
    counts = {t: sum(t in r["tags"] for r in passages) for t in TAGS}
    print(f"{len(passages)} passages ({counts}) and {len(pairs)} pair sources -> {args.output}")


if __name__ == "__main__":
    main()
