"""Issue 56's fidelity measurement: the constrained bottleneck beside the unconstrained realiser and ``normalise``,
on 100 BAC-10 test posts and 50 20 News messages, labelled blind.

    python scripts/faithful/constrained_set.py draw docs/results/faithful/constrained
    python scripts/faithful/constrained_set.py blind docs/results/faithful/constrained \
        --methods bottleneck bottleneck-unconstrained normalise --name blind
    python scripts/faithful/constrained_set.py blind docs/results/faithful/constrained \
        --methods tarot tarot-anchored --name blind-tarot
    python scripts/faithful/constrained_set.py summary docs/results/faithful/constrained

``draw``: the inputs are the 100 posts of docs/results/bottleneck/fidelity-sample.jsonl (BAC-10 test posts of
20-150 words, seed 0), whose unconstrained outputs (``bottleneck`` at level ``content``, the former default, seed 0)
are already there and labelled in issue 48, and 50 test messages of the 20 News scenario of 20-150 words (drawn with
seed 0), rewritten now by the same unconstrained realiser (seed 0). Every input is also rewritten by ``bottleneck``
at its defaults (level ``roles``, constrained, the roles realiser; seed 0) and by ``normalise``; the 100 posts also by
``tarot`` at its defaults and with ``anchored=True`` (seed 0). ``--methods`` picks some; a method already in
``outputs.jsonl`` is not drawn again. Writes
``outputs.jsonl`` (``method``, ``corpus``, ``source``, ``input``, ``output``, ``status``, and the fidelity meter's
verdict) and the release reports. ``blind --methods … --name NAME``: every pair of those methods with an output,
shuffled (seed 0), no method named:
``NAME.jsonl`` and ``NAME-key.jsonl``; labels go in ``NAME-labels-*.jsonl`` (``{"item", "label", "note"}``, under
docs/results/bottleneck/fidelity-reading.md). Two sets: ``--methods bottleneck bottleneck-unconstrained normalise
--name blind`` and ``--methods tarot tarot-anchored --name blind-tarot``. ``summary``: labels and meter verdicts per
method and corpus.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

SAMPLE = Path("docs/results/bottleneck/fidelity-sample.jsonl")
METHODS = ("bottleneck", "bottleneck-unconstrained", "normalise", "tarot", "tarot-anchored")


def news_inputs(count: int = 50, seed: int = 0) -> list[tuple[int, str]]:
    from authorguard import registry
    from authorguard.data.splits import SCENARIOS

    corpus = SCENARIOS["20news-Top10-Any"].selection.select(registry.datasets.get("20news")())
    pool = [
        i
        for i, (text, split) in enumerate(zip(corpus.texts, corpus.splits))
        if split == "test" and 20 <= len(text.split()) <= 150
    ]
    chosen = sorted(np.random.default_rng(seed).choice(pool, count, replace=False).tolist())
    return [(int(i), corpus.texts[i]) for i in chosen]


def _rewrite(name: str, method, texts: list[str]) -> tuple[list[str], list[dict], dict, float]:
    started = time.perf_counter()
    outputs = method.obfuscate(texts)
    seconds = time.perf_counter() - started
    report = method.release_report() if hasattr(method, "release_report") else {}
    return outputs, method.record_statuses(texts, outputs), report, seconds


def _method(name: str):
    from authorguard import registry

    if name == "bottleneck":
        return registry.methods.get("bottleneck")(random_state=0)
    if name == "bottleneck-unconstrained":
        return registry.methods.get("bottleneck")(level="content", random_state=0)
    if name == "tarot-anchored":
        return registry.methods.get("tarot")(anchored=True, random_state=0)
    if name == "tarot":
        return registry.methods.get("tarot")(random_state=0)
    return registry.methods.get(name)()


def draw(folder: Path, methods: list[str]) -> None:
    """Rewrite the inputs with each of ``methods`` not yet in ``outputs.jsonl`` (a stopped draw resumes by
    method); the TAROT rows cover the 100 BAC-10 posts only."""
    from authorguard.metrics.fidelity import FidelityMeter

    folder.mkdir(parents=True, exist_ok=True)
    out_file, report_file = folder / "outputs.jsonl", folder / "reports.json"
    done = (
        [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()] if out_file.is_file() else []
    )
    reports = json.loads(report_file.read_text(encoding="utf-8")) if report_file.is_file() else {}
    sample = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    inputs = [("BAC-10", row["post"], row["input"]) for row in sample] + [("20news", i, t) for i, t in news_inputs()]
    for name in methods:
        if any(r["method"] == name for r in done):
            continue
        mine = [x for x in inputs if x[0] == "BAC-10"] if name.startswith("tarot") else inputs
        texts = [t for _, _, t in mine]
        method = _method(name).fit()
        if name == "bottleneck-unconstrained":  # the BAC-10 outputs are issue 48's (same method, seed, posts)
            news = [t for c, _, t in mine if c == "20news"]
            outputs, statuses, report, seconds = _rewrite(name, method, news)
            outputs = [row["output"] for row in sample] + outputs
            statuses = [{"status": row["status"], "reason": row["reason"]} for row in sample] + statuses
        else:
            outputs, statuses, report, seconds = _rewrite(name, method, texts)
        reports[name] = {
            **{k: v for k, v in report.items() if k not in ("fallback_chunks", "flagged_records")},
            "wall_seconds": round(seconds, 1),
            "records": len(texts),
        }
        print(
            name,
            {k: reports[name].get(k) for k in ("wall_seconds", "chunks", "chunks_fallback", "refused", "rounds")},
            flush=True,
        )
        rows = [
            {
                "method": name,
                "corpus": corpus,
                "source": source,
                "input": text,
                "output": output,
                "status": status["status"],
            }
            for (corpus, source, text), output, status in zip(mine, outputs, statuses)
        ]
        scored = [r for r in rows if r["output"]]
        for row, verdict in zip(
            scored, FidelityMeter().score([r["input"] for r in scored], [r["output"] for r in scored])
        ):
            row["meter"] = verdict.verdict
        done += rows
        out_file.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in done), encoding="utf-8")
        report_file.write_text(json.dumps(reports, indent=2, default=str), encoding="utf-8")


def blind(folder: Path, methods: list[str], name: str) -> None:
    """Every pair of ``methods`` with an output, shuffled (seed 0), no method named: ``NAME.jsonl`` and
    ``NAME-key.jsonl``."""
    rows = [json.loads(line) for line in (folder / "outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["output"] and r["method"] in methods]
    order = np.random.default_rng(0).permutation(len(rows))
    items = [{"item": k, "input": rows[j]["input"], "output": rows[j]["output"]} for k, j in enumerate(order)]
    key = [
        {"item": k, "method": rows[j]["method"], "corpus": rows[j]["corpus"], "source": rows[j]["source"]}
        for k, j in enumerate(order)
    ]
    (folder / f"{name}.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8"
    )
    (folder / f"{name}-key.jsonl").write_text("".join(json.dumps(r) + "\n" for r in key), encoding="utf-8")
    print(f"{len(items)} blind items -> {folder / (name + '.jsonl')}")


def summary(folder: Path) -> None:
    rows = [json.loads(line) for line in (folder / "outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    by_pair: dict = {}
    for key_file in sorted(
        folder.glob("*-key.jsonl")
    ):  # each blind set: NAME.jsonl, NAME-key.jsonl, NAME-labels-*.jsonl
        stem = key_file.name[: -len("-key.jsonl")]
        key = [json.loads(line) for line in key_file.read_text(encoding="utf-8").splitlines()]
        labels: dict = {}
        for file in sorted(folder.glob(f"{stem}-labels-*.jsonl")):
            for line in file.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                labels[row["item"]] = row["label"]
        by_pair.update({(k["method"], k["corpus"], k["source"]): labels.get(k["item"]) for k in key})
        print(f"{stem}: labels for {len(labels)} of {len(key)} items")
    print("| method | corpus | records | released | faithful / partial / changed (blind) | faithful (meter) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for method in METHODS:
        for corpus in ("BAC-10", "20news", "all"):
            mine = [r for r in rows if r["method"] == method and corpus in (r["corpus"], "all")]
            if not mine:
                continue
            released = [r for r in mine if r["output"]]
            counted = Counter(by_pair.get((method, r["corpus"], r["source"])) for r in released)
            meter = Counter(r.get("meter") for r in released)
            print(
                f"| {method} | {corpus} | {len(mine)} | {len(released)} | {counted['faithful']} / {counted['partial']} "
                "/ "
                f"{counted['changed']} | {meter['faithful']} of {len(released)} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("stage", choices=("draw", "blind", "summary"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--name", default="blind", help="the blind set's file stem (blind stage)")
    args = parser.parse_args()
    if args.stage == "draw":
        draw(args.folder, args.methods)
    elif args.stage == "blind":
        blind(args.folder, args.methods, args.name)
    else:
        summary(args.folder)


if __name__ == "__main__":
    main()
