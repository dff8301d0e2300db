"""Build the first-names list ``generalise`` ships (src/authorguard/text/data/first_names.txt.gz).

    python scripts/generalise/first_names.py [--posts 20000] [--min-authors 3] [--seed 66]

No first-name list ships with the installed packages (NLTK's ``names`` corpus is not staged), so it is read from
the same authors the common-words table counts — the staged corpora's authors that no evaluation scenario selects,
less the 20 bloggers held out for ``generalise``'s check target (named in the table's header). spaCy's recogniser
reads a seeded sample of ``--posts`` texts (their first 300 words); a word is a first name when it begins a
PERSON span of two or more words ("John Smith") for at least ``--min-authors`` authors, before at least three
different second words (a first name takes many surnames; "Mardi Gras", "Starry Night" one), and begins a PERSON span in
at least half of its capitalised appearances inside a sentence (so "New", "Dear", "God" are none; four in
five for a common lower-case word: "Yellow", "Modest").
"""

from __future__ import annotations

import argparse
import gzip
from collections import Counter, defaultdict

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--posts", type=int, default=20000)
    parser.add_argument("--min-authors", type=int, default=3)
    parser.add_argument("--seed", type=int, default=66)
    args = parser.parse_args()
    from authorguard import registry
    from authorguard.neural.author_encoder.episodes import evaluation_authors
    from authorguard.text.generalise import _pipeline
    from authorguard.text.generalise.record import at_sentence_start
    from authorguard.text.vocabulary import FIRST_NAMES, is_common, table_header

    held_out = set(table_header().rsplit(":", 1)[1].split())
    pool: list[tuple[str, str]] = []
    for dataset in ("blogs", "20news"):
        corpus = registry.datasets.get(dataset)()
        evaluated = evaluation_authors(dataset, corpus)
        pool += [
            (f"{dataset}:{a}", " ".join(t.split()[:300]))
            for a, t in zip(corpus.authors, corpus.texts)
            if a not in evaluated and str(a) not in held_out
        ]
    rng = np.random.default_rng(args.seed)
    chosen = [pool[i] for i in sorted(rng.choice(len(pool), min(args.posts, len(pool)), replace=False))]
    first_of_person: dict[str, set[str]] = defaultdict(set)
    followed_by: dict[str, set[str]] = defaultdict(set)
    begins, capitalised = Counter(), Counter()
    for (author, _), doc in zip(chosen, _pipeline().pipe((t for _, t in chosen), batch_size=64)):
        starts = {ent.start for ent in doc.ents if ent.label_ == "PERSON"}
        for ent in doc.ents:
            if ent.label_ == "PERSON" and len(ent) >= 2 and ent[0].is_alpha:
                first_of_person[ent[0].text].add(author)
                followed_by[ent[0].text].add(ent[1].text)
        for token in doc:
            if token.is_alpha and token.text[:1].isupper() and not at_sentence_start(doc.text, token.idx):
                capitalised[token.text] += 1
                begins[token.text] += token.i in starts
    names = sorted(
        word
        for word, authors in first_of_person.items()
        if len(authors) >= args.min_authors
        and len(followed_by[word]) >= 3
        and len(word) > 1
        and word[1:].islower()
        and capitalised[word]
        and begins[word] / capitalised[word] >= (0.8 if is_common(word.lower(), 5000) else 0.5)
    )
    header = (
        f"first names: words that begin a PERSON span of two or more words for >= {args.min_authors} authors, "
        "before >= 3 different second words, and "
        "begin a PERSON span in >= half their capitalised appearances (4/5 for a common lower-case word); spaCy "
        f"en_core_web_sm over {len(chosen)} "
        f"texts (seed {args.seed}) of authors outside every evaluation scenario and the check target's held-out "
        "bloggers"
    )
    FIRST_NAMES.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(FIRST_NAMES, "wt", encoding="utf-8") as handle:
        handle.write(f"# {header}\n")
        handle.writelines(f"{name}\n" for name in names)
    print(f"{len(names)} first names -> {FIRST_NAMES}")


if __name__ == "__main__":
    main()
