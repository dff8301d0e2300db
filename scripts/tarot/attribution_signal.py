"""What carries a scenario's attribution signal: the authors' own posts, transformed in fixed ways, attacked again.

Each transform is applied to every training and test post of the scenario (split seed 0), and each attacker is
measured under two threat models: **static** (trained on the original training posts, as when a rewriter is
judged by the paper's attacker) and **adversarial** (retrained on the transformed training posts: an attacker who
knows the transform). The content cost is chrF and MiniLM cosine of each transformed test post to its original, and the
share of
its words (as a bag) the transform removed.
The transforms are deliberately crude (nothing is paraphrased): they bound what a rewrite must change before an
attacker loses a given share of its accuracy, and what keeping it costs in similarity.

- ``casing-punctuation``: lower case; a run of one punctuation mark becomes one ("!!!" -> "!"); white space collapsed.
- ``names``: spaCy's named entities (people, places, organisations, products, events, works; en_core_web_sm)
  become their type in brackets ("[PERSON]").
- ``rare-words``: every word outside GloVe 6B's ``--vocabulary`` most frequent (Wikipedia + news) becomes "w":
  names, misspellings, slang and rare topic words.
- ``rare-words+casing``: both of the above.
- ``function-words-only``: every word outside the function-word attacker's list becomes "w": content gone, the
  skeleton of function words, punctuation and word lengths' rhythm kept.

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/tarot/attribution_signal.py [--scenario BAC-10]
            [--attackers char-ngrams,function-words] [--transforms casing-punctuation,names,...] [--vocabulary 10000]
            [--release runs/tarot-gpu/attribution-per-post.jsonl.gz dpo]

``--release FILE POLICY`` adds a stored release of the test posts (``tarot_split_attribution.py --out``) and each
transform applied to it, attacked statically (its training posts were not rewritten): is a rewriter's gain more
than a transform's, and do the two add up?
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from tarot_validity import _open_text, scenario_split

WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
REPEATED_PUNCTUATION = re.compile(r"([^\w\s])\1+")
SPACE = re.compile(r"\s+")
ENTITY_TYPES = {"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART"}
TRANSFORMS = ("casing-punctuation", "names", "rare-words", "rare-words+casing", "function-words-only")


def casing_punctuation(text: str) -> str:
    """Lower case, one mark for a run of the same punctuation mark, single spaces."""
    return SPACE.sub(" ", REPEATED_PUNCTUATION.sub(r"\1", text.lower())).strip()


def words_outside(vocabulary: set[str]) -> Callable[[str], str]:
    """A transform replacing every word whose stem (:func:`stem`) is not in ``vocabulary`` with "w"."""
    return lambda text: WORD.sub(lambda m: m.group(0) if stem(m.group(0)) in vocabulary else "w", text)


def stem(word: str) -> str:
    """The lower-case part of ``word`` a tokeniser like GloVe's looks up: "don't" -> "do", "John's" -> "john"."""
    word = word.lower()
    return word[:-3] if word.endswith("n't") else word.split("'")[0]


def entity_masker(texts: list[str]) -> list[str]:
    """``texts`` with spaCy's named entities of :data:`ENTITY_TYPES` replaced by "[TYPE]" (en_core_web_sm)."""
    import spacy

    from authorguard.text.resources import spacy_model_path

    nlp = spacy.load(spacy_model_path(), disable=["parser", "lemmatizer", "attribute_ruler", "tagger"])
    masked = []
    for doc in nlp.pipe(texts, batch_size=64):
        pieces, last = [], 0
        for entity in doc.ents:
            if entity.label_ in ENTITY_TYPES:
                pieces += [doc.text[last : entity.start_char], f"[{entity.label_}]"]
                last = entity.end_char
        masked.append("".join(pieces) + doc.text[last:])
    return masked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", default="BAC-10")
    parser.add_argument("--attackers", default="char-ngrams,function-words")
    parser.add_argument("--transforms", default=",".join(TRANSFORMS))
    parser.add_argument(
        "--vocabulary", type=int, default=10_000, help="GloVe's most frequent words kept by rare-words."
    )
    parser.add_argument(
        "--release",
        nargs=2,
        metavar=("FILE", "POLICY"),
        help="Also attack (static only) a stored "
        "release of the test posts (tarot_split_attribution.py --out) and each transform of it.",
    )
    args = parser.parse_args()

    import pyarrow.parquet as pq

    from authorguard import registry
    from authorguard.data.release import Release
    from authorguard.embeddings.glove import packaged_glove_paths
    from authorguard.metrics.content import content_metrics
    from authorguard.text.resources import english_stop_words

    transforms = args.transforms.split(",")
    unknown = set(transforms) - set(TRANSFORMS)
    if unknown:
        parser.error(f"unknown --transforms {', '.join(sorted(unknown))}; known: {', '.join(TRANSFORMS)}")
    _, corpus, train, test = scenario_split(parser, args.scenario)
    authors = np.array(corpus.authors)
    texts = list(corpus.texts)

    index_path, _ = packaged_glove_paths()
    common = {w for w in pq.read_table(index_path).column("index").to_pylist()[: args.vocabulary] if WORD.fullmatch(w)}
    rare_words = words_outside(common)
    function_words = words_outside(set(english_stop_words()))
    apply = {
        "casing-punctuation": lambda values: [casing_punctuation(t) for t in values],
        "names": entity_masker,
        "rare-words": lambda values: [rare_words(t) for t in values],
        "rare-words+casing": lambda values: [casing_punctuation(rare_words(t)) for t in values],
        "function-words-only": lambda values: [function_words(t) for t in values],
    }
    transformed = {"original": texts}
    for name in transforms:
        transformed[name] = apply[name](texts)
        print(f"{name}: transformed {len(texts)} posts", flush=True)
    released = {}  # test posts only: attacked statically
    if args.release:
        path, policy = args.release
        stored = [json.loads(line) for line in _open_text(path)]
        mine = sorted((r for r in stored if r["policy"] == policy), key=lambda r: r["post"])
        if [r["post"] for r in mine] != list(range(len(test))):
            parser.error(f"--release: {path} has no full release {policy!r} of this split's {len(test)} test posts")
        released[policy] = [r["text"] for r in mine]
        for name in transforms:
            released[f"{policy} + {name}"] = apply[name](released[policy])
    pick = lambda values, rows: Release.from_texts([values[i] for i in rows])  # noqa: E731
    names = args.attackers.split(",")
    accuracy = {}
    for attacker_name in names:
        static = registry.attackers.get(attacker_name)(random_state=0).fit(pick(texts, train), authors[train])
        for name, values in transformed.items():
            hits = static.predict(pick(values, test)) == authors[test]
            accuracy[attacker_name, name, "static"] = hits
            if name != "original":
                adapted = registry.attackers.get(attacker_name)(random_state=0).fit(pick(values, train), authors[train])
                accuracy[attacker_name, name, "adversarial"] = adapted.predict(pick(values, test)) == authors[test]
            print(f"{attacker_name} on {name}: done", flush=True)
        for name, values in released.items():
            accuracy[attacker_name, name, "static"] = static.predict(Release.from_texts(values)) == authors[test]

    originals = [texts[i] for i in test]
    n = len(test)
    print(
        f"\n{args.scenario}: {len(train)} training posts, {n} test posts, {len(set(authors[test]))} authors; accuracy "
        f"% ± SE, static / adversarial (retrained on the transformed training posts)\n"
    )
    print("| transform | " + " | ".join(names) + " | chrF | MiniLM cos | words removed |")
    print("|---|" + "---|" * len(names) + "---|---|---|")
    rows = {**{name: [values[i] for i in test] for name, values in transformed.items()}, **released}
    for name, released_texts in rows.items():
        cells = []
        for attacker_name in names:
            runs = [
                accuracy[attacker_name, name, model]
                for model in ("static", "adversarial")
                if (attacker_name, name, model) in accuracy
            ]
            cells.append(" / ".join(f"{100 * h.mean():.1f} ± {100 * h.std(ddof=1) / np.sqrt(n):.1f}" for h in runs))
        if name == "original":
            tail = "1.00 | 1.00 | 0.000"
        else:
            metric = content_metrics(originals, released_texts)["per_document"]  # chrF / 100, MiniLM cosine
            chrf, cosine = np.mean(metric["chrf"]), np.mean(metric.get("embedding_cosine") or [np.nan])
            tail = f"{chrf:.2f} | {cosine:.2f} | {replaced_share(originals, released_texts):.3f}"
        print(f"| {name} | " + " | ".join(cells) + f" | {tail} |")


def replaced_share(originals: list[str], transformed: list[str]) -> float:
    """The share of the originals' words (as a bag, case kept) missing from the transformed text's words."""
    missing = total = 0
    for before, after in zip(originals, transformed):
        old = Counter(WORD.findall(before))
        total += sum(old.values())
        missing += sum((old - Counter(WORD.findall(after))).values())
    return missing / max(total, 1)


if __name__ == "__main__":
    main()
