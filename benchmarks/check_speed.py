"""Speed of ``authorguard check`` (issue 49's target: a 500-word text against 5,000 words of known writing and 100
background authors in <= 30 s on 2 cores): the command as a user runs it, on a blogger of the staged sample, timed
twice (the first run also builds the background cache; the second is the figure).

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/check_speed.py [--sizes 100] [--attacker ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100", help="Candidate-set sizes, you included (100: 99 background authors "
                                                       "and you; the target's 100 background authors: 101).")
    parser.add_argument("--known-words", type=int, default=5000)
    parser.add_argument("--text-words", type=int, default=500)
    parser.add_argument("--attacker", action="append", default=[])
    args = parser.parse_args()

    from authorguard.check.background import load_background
    from authorguard.check.texts import cut_pieces, word_count

    pool = load_background("blog")
    writer = next(a for a in sorted(pool.authors)
                  if sum(word_count(d) for d in pool.authors[a]) >= args.known_words + args.text_words + 100)
    pieces = cut_pieces(pool.authors[writer], args.text_words, limit=args.known_words + args.text_words)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        known = root / "known"
        known.mkdir()
        for i, piece in enumerate(pieces[:-1]):
            (known / f"{i}.txt").write_text(piece)
        (root / "text.txt").write_text(pieces[-1])
        command = [sys.executable, "-m", "authorguard.cli.app", "check", str(root / "text.txt"), "--known", str(known),
                   "--genre", "blog", "--sizes", args.sizes] + [f"--attacker={a}" for a in args.attacker]
        for run in ("first", "second"):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            print(f"{run} run: {time.perf_counter() - start:.1f} s (text {word_count(pieces[-1])} words, known "
                  f"{sum(word_count(p) for p in pieces[:-1])} words, sizes {args.sizes}, blogger {writer})", flush=True)


if __name__ == "__main__":
    main()
