"""The editor as a writer uses it (docs/results/check.md, issue 57): held-out bloggers' texts, edits guided only
by the check's evidence and advice (no rewriting model), rank and probability before and after, fidelity by the
meter.

  python scripts/check/editor_trial.py draw -o docs/results/check/editor
      draws --writers bloggers (seeded; each left out of the background), checks a 300-word post against 2,500
      words of their earlier posts, and writes tasks.json: each text with what the page shows (verdict, rankings,
      the evidence with its advice)
  python scripts/check/editor_trial.py score docs/results/check/editor
      reads edits.jsonl ({"writer", "edited"} per line, the edited texts), re-checks each edit with the attackers
      fitted for its check (the page's re-check), scores fidelity, and writes results.json and a table
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from authorguard.check import CheckConfig, prepare
from authorguard.check.background import load_background
from authorguard.check.texts import cut_pieces, word_count


def _writers(pool, count: int, seed: int, known_words: int, text_words: int) -> list:
    need = text_words * (-(-known_words // text_words) + 1) + 100
    eligible = sorted(a for a, docs in pool.authors.items() if sum(word_count(d) for d in docs) >= need)
    order = np.random.default_rng(seed).permutation(len(eligible))
    return [eligible[i] for i in order[:count]]


def _case(pool, writer: str, known_words: int, text_words: int):
    known = cut_pieces(pool.authors[writer], 250, limit=known_words)
    after = -(-known_words // text_words)  # the first piece of text_words words after the known writing
    text = cut_pieces(pool.authors[writer], text_words, limit=text_words * (after + 1))[after]
    return known, text


def _session(pool, writer, known, text, index):
    return prepare(text, known, background=pool.without([writer]), config=CheckConfig(sizes=(10, 100), seed=index))


def _rankings(result) -> list:
    return [
        {"attacker": r.attacker, "candidates": r.candidates, "rank": r.rank, "probability": round(r.probability, 4)}
        for r in result.rankings
    ]


def draw(args) -> None:
    pool = load_background("blog")
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    tasks = []
    for index, writer in enumerate(_writers(pool, args.writers, args.seed, args.known_words, args.text_words)):
        known, text = _case(pool, writer, args.known_words, args.text_words)
        result = _session(pool, writer, known, text, index).result
        tasks.append(
            {
                "writer": writer,
                "index": index,
                "text": text,
                "verdict": result.verdict(),
                "rankings": _rankings(result),
                "evidence": [
                    {
                        "description": e.describe(),
                        "advice": e.advice,
                        "attacker": e.attacker,
                        "weight": round(e.weight, 3),
                    }
                    for e in result.evidence
                ],
            }
        )
        print(f"{writer}: {result.verdict()}", flush=True)
    (out / "tasks.json").write_text(json.dumps(tasks, indent=1, ensure_ascii=False))


def score(args) -> None:
    from authorguard.metrics.fidelity import FidelityMeter

    pool = load_background("blog")
    folder = Path(args.folder)
    tasks = {t["writer"]: t for t in json.loads((folder / "tasks.json").read_text())}
    edits = [json.loads(line) for line in (folder / "edits.jsonl").read_text().splitlines() if line.strip()]
    meter = FidelityMeter(n_process=1)
    rows = []
    for edit in edits:
        task = tasks[edit["writer"]]
        known, text = _case(pool, edit["writer"], args.known_words, args.text_words)
        assert text == task["text"], "the drawn text changed"
        session = _session(pool, edit["writer"], known, text, task["index"])
        after = session.recheck(edit["edited"])
        verdict = meter.score([text], [edit["edited"]])[0]
        rows.append(
            {
                "writer": edit["writer"],
                "before": _rankings(session.result),
                "after": _rankings(after),
                "fidelity": verdict.verdict,
                "fidelity_reason": verdict.reason,
                "words_changed": _changed_words(text, edit["edited"]),
            }
        )
    (folder / "results.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    print(
        "| writer | attacker | candidates | rank before → after | p(writer) before → after | fidelity | words changed |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        for b, a in zip(row["before"], row["after"]):
            print(
                f"| {row['writer']} | {b['attacker']} | {b['candidates']} | {b['rank']} → {a['rank']} | "
                f"{b['probability']:.2f} → {a['probability']:.2f} | {row['fidelity']} | {row['words_changed']} |"
            )


def _changed_words(before: str, after: str) -> int:
    import difflib

    a, b = before.split(), after.split()
    return sum(
        max(i2 - i1, j2 - j1)
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if op != "equal"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw")
    d.add_argument("-o", "--output", required=True)
    s = sub.add_parser("score")
    s.add_argument("folder")
    for p in (d, s):
        p.add_argument("--writers", type=int, default=5)
        p.add_argument("--seed", type=int, default=57)
        p.add_argument("--known-words", type=int, default=2500)
        p.add_argument("--text-words", type=int, default=300)
    args = parser.parse_args()
    {"draw": draw, "score": score}[args.command](args)


if __name__ == "__main__":
    main()
