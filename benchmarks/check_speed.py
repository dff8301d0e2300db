"""Speed of ``authorguard check`` (issue 68's targets, 2 cores, warm: 10 + 100 candidates with the three default
attackers <= 10 s; 1,000 candidates <= 20 s; a re-check of an edit <= 5 s): the command as a user runs it, on a
blogger of the staged sample, cold (an empty cache folder: the background pool and its features are built first),
then warm in the command's own process (``--no-server``) and through the resident check server (its first command
starts it; the next ones find it warm), then the check and the re-check of an edit through the Python API.

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/check_speed.py [--sizes 10,100] [--cold] [--attacker ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100", help="Candidate-set sizes, you included.")
    parser.add_argument("--known-words", type=int, default=5000)
    parser.add_argument("--text-words", type=int, default=500)
    parser.add_argument("--attacker", action="append", default=[])
    parser.add_argument("--cold", action="store_true", help="Also time a first run with an empty cache folder.")
    parser.add_argument("--runs", type=int, default=2, help="Warm runs of the command.")
    args = parser.parse_args()

    from authorguard.check.background import load_background
    from authorguard.check.texts import cut_pieces, word_count

    pool = load_background("blog")
    writer = next(
        a
        for a in sorted(pool.authors)
        if sum(word_count(d) for d in pool.authors[a]) >= args.known_words + args.text_words + 100
    )
    pieces = cut_pieces(pool.authors[writer], args.text_words, limit=args.known_words + args.text_words)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        known = root / "known"
        known.mkdir()
        for i, piece in enumerate(pieces[:-1]):
            (known / f"{i}.txt").write_text(piece)
        (root / "text.txt").write_text(pieces[-1])
        command = [
            sys.executable,
            "-m",
            "authorguard.cli.app",
            "check",
            str(root / "text.txt"),
            "--known",
            str(known),
            "--genre",
            "blog",
            "--sizes",
            args.sizes,
        ] + [f"--attacker={a}" for a in args.attacker]
        shape = (
            f"text {word_count(pieces[-1])} words, known {sum(word_count(p) for p in pieces[:-1])} words, sizes "
            f"{args.sizes}, blogger {writer}"
        )
        if args.cold:
            environment = dict(os.environ, AUTHORGUARD_CACHE=str(root / "cache"))
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=environment)
            print(
                f"cold run (empty cache: pool and features built): {time.perf_counter() - start:.1f} s ({shape})",
                flush=True,
            )
        for run in range(args.runs):
            start = time.perf_counter()
            done = subprocess.run([*command, "--no-server"], check=True, capture_output=True, text=True)
            print(f"warm run {run + 1}, --no-server: {time.perf_counter() - start:.1f} s ({shape})", flush=True)
        print(done.stdout.splitlines()[0])
        from authorguard.cli.check_server import stop_server

        stop_server()  # a server of earlier code would answer otherwise
        try:
            for run in range(args.runs + 1):
                start = time.perf_counter()
                served = subprocess.run([*command, "--server"], check=True, capture_output=True, text=True)
                what = "the server started by it" if run == 0 else "the resident server, warm"
                print(f"run {run + 1} through {what}: {time.perf_counter() - start:.1f} s", flush=True)
            print("same answer as --no-server:", served.stdout == done.stdout)
        finally:
            stop_server()

    from authorguard.check import CheckConfig, prepare

    sizes = tuple(int(s) for s in args.sizes.split(","))
    config = CheckConfig(sizes=sizes, **({"attackers": tuple(args.attacker)} if args.attacker else {}))
    start = time.perf_counter()
    session = prepare(pieces[-1], pieces[:-1], background=pool, config=config)
    print(f"in one process (API, features cached): check {time.perf_counter() - start:.1f} s")
    edited = pieces[-1].replace(",", "").replace(" I ", " i ")
    start = time.perf_counter()
    session.recheck(edited)
    print(f"re-check of an edit: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
