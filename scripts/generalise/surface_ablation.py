"""Where the rest of the signal is after ``generalise``: the same release with its surface made plainer, step by
step, attacked as ``scripts/faithful/privacy_bac10.py`` attacks it (issue 66's measured cause).

    python scripts/generalise/surface_ablation.py runs/generalise-bac10-R generalise-level-withheld-2000 [normalise]

Reads a privacy run's cached rewrites (``<method>-train.jsonl`` / ``-test.jsonl``: BAC-10, 80 train posts an
author, all 2,350 test posts, 300 words) and retrains the char 2-4-gram and word 1-2-gram LinearSVCs on each
variant (the adversarial threat model): as released; emoticons, runs of marks and capitalised words made plain;
commas removed; semicolons, colons, dashes and brackets made commas and "!" a full stop; both; only full stops and
question marks kept; that lower-cased; every mark removed and lower-cased (the issue's view). None of the last four
is a faithful release: they locate the signal, they are not offered.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "faithful"))

EMOTICON = re.compile(r"(?:[:;=8][\-o\*']?[\)\]\(\[dDpP/\\|@3]+|<3|\^_*\^|[\)\(]:)")


def _spaces(text: str) -> str:
    return re.sub(r"[ \t]{2,}", " ", text)


def plain(text: str) -> str:
    text = EMOTICON.sub(" ", text)
    text = re.sub(r"\.{2,}|…", ".", text)
    text = re.sub(r"([!?])[!?]+", r"\1", text)
    text = re.sub(r"-{2,}", "-", text)
    return _spaces(re.sub(r"\b[A-Z]{2,}\b", lambda m: m.group(0).lower(), text))


def no_commas(text: str) -> str:
    return _spaces(text.replace(",", " "))


def unified(text: str) -> str:
    text = re.sub(r"\s*[;:]\s+|\s+[-\u2013\u2014]+\s+|\s*\u2014\s*", ", ", text)
    text = re.sub(r"\s*\(\s*|\s*\)\s*", " , ", text).replace("!", ".")
    return _spaces(re.sub(r"\s+,", ",", text))


def stops_only(text: str) -> str:
    return _spaces(re.sub(r"[^\w\s\[\].?]", " ", text))


VARIANTS = {
    "as released": lambda t: t,
    "plain (emoticons, runs of marks, capitals)": plain,
    "commas removed": no_commas,
    "; : dashes brackets -> comma, ! -> .": unified,
    "both of the last two": lambda t: no_commas(unified(t)),
    "only . and ? kept": stops_only,
    "only . and ? kept, lower case": lambda t: stops_only(t).lower(),
    "no marks, lower case": lambda t: _spaces(re.sub(r"[^\w\s\[\]]", " ", t.lower())),
}


def main() -> None:
    from privacy_bac10 import _attack, _sample

    run, methods = Path(sys.argv[1]), sys.argv[2:]
    _, train_authors, _, test_authors = _sample(300, 80, 0, 0)
    for method in methods:

        def load(part: str, method: str = method) -> list[str]:
            lines = (run / f"{method}-{part}.jsonl").read_text(encoding="utf-8").splitlines()
            return [json.loads(line)["text"] for line in lines]

        train, test = load("train"), load("test")
        for name, variant in VARIANTS.items():
            found = _attack([variant(t) for t in train], train_authors, [variant(t) for t in test], test_authors)
            print(method, "|", name, "|", {k: round(float(v.mean()), 3) for k, v in found.items()}, flush=True)


if __name__ == "__main__":
    main()
