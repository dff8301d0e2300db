"""Two roles realisers on development text (blog paragraphs, never the held-out set): how often each puts back the
articles the text had, and what the fidelity meter says (issue 65: retrain for the changed view, or keep the old).

    python scripts/bottleneck/compare_realisers.py runs/realiser-roles-65 [--paragraphs 96]

Each paragraph (the first 90 words of a blog post with at least 90, seeded like benchmarks/bottleneck_throughput.py)
is written by the packaged roles realiser and by the one in FOLDER, seed 0, under the roles constraint. Per output:
the gaps between view words where the free words written equal the text's own (``roles_surface``: the training
target), and the meter's verdict. Output words/s beside.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))


def gaps(text: str, words: list[str]) -> list[tuple[str, ...]]:
    """The free words written before each view word of ``words`` (lower case), in order."""
    out, gap, position = [], [], 0
    for token in text.split():
        bare = token.strip(".?!").lower()
        if position < len(words) and bare == words[position].lower().strip(".?!"):
            out.append(tuple(gap))
            gap, position = [], position + 1
        else:
            gap.append(bare)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--paragraphs", type=int, default=96)
    args = parser.parse_args()
    from bottleneck_throughput import paragraphs

    from authorguard.methods.bottleneck import Bottleneck
    from authorguard.metrics.fidelity import FidelityMeter
    from authorguard.neural.realiser.data import view_plan_words
    from authorguard.text.atoms import ATOM_SPACE
    from authorguard.text.views.roles import roles_surface, roles_view

    texts = paragraphs(args.paragraphs, 90)
    gold = [roles_surface(t) for t in texts]
    report = {}
    for name, model in (("packaged", None), ("retrained", str(args.folder))):
        method = Bottleneck(model=model, random_state=0).fit()
        method.obfuscate(texts[:4])  # warm up
        started = time.time()
        outputs = method.obfuscate(texts)
        seconds = time.time() - started
        same = total = 0
        for text, output, target in zip(texts, outputs, gold):
            words = [w.replace(ATOM_SPACE, " ") for w in view_plan_words(roles_view(text))[0]]
            written, wanted = gaps(output, words), gaps(target, words)
            same += sum(a == b for a, b in zip(written, wanted))
            total += len(wanted)
        verdicts = Counter(s.verdict for s in FidelityMeter().score(texts, outputs))
        report[name] = {
            "gaps as the text had them": round(same / total, 3),
            "meter": dict(verdicts),
            "fallback chunks": method.release_report().get("chunks_fallback"),
            "output words/s": round(sum(len(o.split()) for o in outputs) / seconds, 1),
            "example": outputs[0],
        }
        print(name, json.dumps(report[name], ensure_ascii=False), flush=True)
    print("text's own:", gold[0])


if __name__ == "__main__":
    main()
