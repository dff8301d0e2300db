"""Build the common-words table ``generalise`` ships (src/authorguard/text/data/common_words.tsv.gz).

    python scripts/generalise/word_table.py [--held-out 20] [--seed 66] [--shares-only]

For each word, the number of authors who use it at least once, over the staged corpora's authors that no
evaluation scenario selects: the blog sample's bloggers outside BAC-10/20 and the attribute scenarios, and the 20
Newsgroups posters outside Top10-Any/Multi (the speeches, Federalist, AMT and Drexel authors are all evaluated on:
never counted). A seeded pool of ``--held-out`` bloggers with at least 10 posts of 300 words is left out as well:
the writers of ``generalise``'s check target (issue 66); their ids are in the table's header.

With the table, the same authors give each word's **lower-case share**
(``src/authorguard/text/data/lowercase_share.tsv.gz``): of its appearances inside a sentence (after a letter, a digit
or a comma and a space), the share written in lower case — a name is written capitalised (< 0.1), an interjection or
an ordinary word mostly not ("heya", "eww", "neat"). ``--shares-only`` writes only that file.
"""

from __future__ import annotations

import argparse
import gzip
from collections import defaultdict

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--held-out", type=int, default=20)
    parser.add_argument("--seed", type=int, default=66)
    parser.add_argument("--shares-only", action="store_true", help="write only the lower-case shares")
    args = parser.parse_args()
    from authorguard import registry
    from authorguard.neural.author_encoder.episodes import evaluation_authors
    from authorguard.text.vocabulary import (
        COMMON_WORDS,
        LOWERCASE_SHARE,
        author_counts,
        lowercase_counts,
        table_rows,
        write_table,
    )

    texts: dict[str, list[str]] = defaultdict(list)
    pools = {}
    for dataset in ("blogs", "20news"):
        corpus = registry.datasets.get(dataset)()
        evaluated = evaluation_authors(dataset, corpus)
        for author, text in zip(corpus.authors, corpus.texts):
            if author not in evaluated:
                texts[f"{dataset}:{author}"].append(text)
        pools[dataset] = len({a for a in corpus.authors if a not in evaluated})
    long_posts = sorted(
        key
        for key, posts in texts.items()
        if key.startswith("blogs:") and sum(len(p.split()) >= 300 for p in posts) >= 10
    )
    held_out = sorted(np.random.default_rng(args.seed).choice(long_posts, args.held_out, replace=False).tolist())
    for key in held_out:
        del texts[key]
    counts = author_counts(texts)
    ranked = {word for word, _ in table_rows(counts)}  # the shares are kept for the table's words only
    lower, written = lowercase_counts(texts)
    shares = sorted((word, lower[word] / written[word]) for word in written if written[word] >= 5 and word in ranked)
    with gzip.open(LOWERCASE_SHARE, "wt", encoding="utf-8") as handle:
        handle.write(
            f"# lower-case share of each word's appearances inside a sentence; the authors of {COMMON_WORDS.name}\n"
        )
        handle.writelines(f"{word}\t{share:.3f}\n" for word, share in shares)
    print(f"{len(shares)} lower-case shares -> {LOWERCASE_SHARE}")
    if args.shares_only:
        return
    header = (
        f"authors using each word at least once; {len(texts)} authors (blogs {pools['blogs'] - len(held_out)}, "
        f"20news {pools['20news']}) outside every evaluation scenario; held out for generalise's check target "
        f"(seed {args.seed}): {' '.join(k.split(':', 1)[1] for k in held_out)}"
    )
    rows = write_table(counts, COMMON_WORDS, header)
    print(f"{rows} words from {len(texts)} authors -> {COMMON_WORDS}")
    print(header)


if __name__ == "__main__":
    main()
