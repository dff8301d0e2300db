"""Which WordNet senses should the `synonyms` baseline draw from? A blind, labelled sample of its replacements.

    python scripts/methods/synonym_senses.py sample -o docs/results/synonyms/sample.jsonl     # writes the pairs
    python scripts/methods/synonym_senses.py score docs/results/synonyms/sample.jsonl docs/results/synonyms/labels.jsonl

`sample` rewrites real blog posts (the blog sample's first posts of 30-300 words) with `synonyms` at rate 0.3 under
both rules (`senses="all"`, every WordNet sense; `senses="common"`, the most frequent sense, SemCor-attested lemmas,
one-letter words skipped), and draws N replaced words per rule by seed, each with its sentence: the pairs are written
shuffled, with an opaque key and without the rule, for a blind annotator. `score` joins the labels ("ok": the
replacement keeps the word's meaning in that sentence; "wrong": it does not, or is not a word a writer would use
there) back to the rules and prints the share judged wrong per rule, with a Wilson 95 % interval, and the share of
words each rule changes.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from statistics import NormalDist

import numpy as np

from authorguard.config import data_dir
from authorguard.methods.perturbation import _WORD, SynonymReplacement
from authorguard.metrics.statistics import wilson_interval


def posts(count: int) -> list[str]:
    with gzip.open(data_dir() / "blogs" / "blogs_sample.jsonl.gz", "rt", encoding="utf-8") as handle:
        texts = [json.loads(line)["text"] for line in handle]
    return [t for t in texts if 30 <= len(t.split()) <= 300][:count]


def replacements(texts: list[str], senses: str, seed: int) -> tuple[list[dict], float]:
    """Every replaced word of ``texts`` (its sentence, the word, the replacement), and the share of words changed."""
    method = SynonymReplacement(rate=0.3, senses=senses, random_state=seed).fit()
    pairs, changed, total = [], 0, 0
    for text in texts:
        out = method.obfuscate([text])[0]
        before, after = [m.group(0) for m in _WORD.finditer(text)], [m.group(0) for m in _WORD.finditer(out)]
        if len(before) != len(after):
            continue
        total += len(before)
        for position, (old, new) in enumerate(zip(before, after)):
            if old != new:
                changed += 1
                window = " ".join(
                    before[max(0, position - 10) : position] + [f"[{old}]"] + before[position + 1 : position + 11]
                )
                pairs.append({"context": window, "word": old, "replacement": new})
    return pairs, changed / max(total, 1)


def sample(args) -> None:
    rng = np.random.default_rng(args.seed)
    texts = posts(args.posts)
    rows = []
    for senses in ("all", "common"):
        pairs, share = replacements(texts, senses, args.seed)
        print(f"senses={senses}: {len(pairs)} replacements, {share:.3f} of words changed")
        for index in rng.choice(len(pairs), size=min(args.n, len(pairs)), replace=False):
            rows.append({**pairs[int(index)], "senses": senses, "changed_share": round(share, 4)})
    order = rng.permutation(len(rows))
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as handle:
        for key, index in enumerate(order):
            handle.write(json.dumps({"key": f"s{key:03d}", **rows[int(index)]}, ensure_ascii=False) + "\n")
    blind = out.with_name(out.stem + "-blind.jsonl")
    with open(blind, "w", encoding="utf-8") as handle:
        for key, index in enumerate(order):
            row = rows[int(index)]
            handle.write(
                json.dumps(
                    {
                        "key": f"s{key:03d}",
                        "context": row["context"],
                        "word": row["word"],
                        "replacement": row["replacement"],
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    print(f"wrote {out} (with the rules) and {blind} (for the annotator)")


def score(args) -> None:
    rows = {r["key"]: r for r in map(json.loads, Path(args.sample).read_text(encoding="utf-8").splitlines())}
    labels = {r["key"]: r["label"] for r in map(json.loads, Path(args.labels).read_text(encoding="utf-8").splitlines())}
    z = NormalDist().inv_cdf(0.975)
    print("| senses | words changed | replacements labelled | judged wrong | 95 % interval |")
    print("| --- | --- | --- | --- | --- |")
    for senses in ("all", "common"):
        mine = [labels[k] for k, r in rows.items() if r["senses"] == senses and k in labels]
        wrong = sum(label == "wrong" for label in mine)
        share = wrong / len(mine) if mine else float("nan")
        low, high = wilson_interval(share, len(mine), z=z)
        changed = next(r["changed_share"] for r in rows.values() if r["senses"] == senses)
        print(f"| {senses} | {changed:.3f} | {len(mine)} | {wrong} ({share:.2f}) | {low:.2f}-{high:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("sample", help="write the blind sample")
    make.add_argument("-o", "--output", required=True)
    make.add_argument("--posts", type=int, default=200)
    make.add_argument("--n", type=int, default=50, help="replacements drawn per rule")
    make.add_argument("--seed", type=int, default=0)
    make.set_defaults(run=sample)
    judge = commands.add_parser("score", help="score the labels")
    judge.add_argument("sample")
    judge.add_argument("labels")
    judge.set_defaults(run=score)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
