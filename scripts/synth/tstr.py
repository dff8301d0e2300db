"""Train on the synthetic release, test on real held-out documents (TSTR): the author-level DP release
(`authorguard synth`) beside the same classifier trained on the original documents, per ε.

    AUTHORGUARD_DATA=../shared/data python scripts/synth/tstr.py 20news --epsilons 0.5 1 2 4 8
    AUTHORGUARD_DATA=../shared/data python scripts/synth/tstr.py blogs --task age_group --epsilons 1 4 8

20 Newsgroups: the by-date train split (senders as authors; messages without a sender left out) released, the test
split scored. Blogs: the bloggers split in two by a seeded hash (an author is on one side only), the first half
released, the second scored. Classifiers: tf-idf + multinomial naive Bayes (alpha 0.01, the SynTF paper's analyst)
and tf-idf + linear SVM, on the release's public vocabulary; the original-trained ones on the same vocabulary.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

import numpy as np


def _corpus(name: str, task: str):
    """(train texts, authors, labels), (test texts, labels)."""
    if name == "20news":
        from authorguard.data.newsgroups import load_20newsgroups

        corpus = load_20newsgroups()
        train, test = corpus.split("train"), corpus.split("test")
        keep = [i for i, a in enumerate(train.authors) if a]
        pick = lambda c, ix: [c[i] for i in ix]  # noqa: E731
        return (pick(train.texts, keep), pick(train.authors, keep), pick(train.labels, keep)), (
            list(test.texts),
            list(test.labels),
        )
    from authorguard.data.blogs import load_blogs

    corpus = load_blogs()
    labels = corpus.attributes[task]
    side = [int(hashlib.sha256(str(a).encode()).hexdigest(), 16) % 2 for a in corpus.authors]
    first = [i for i, s in enumerate(side) if s == 0]
    second = [i for i, s in enumerate(side) if s == 1]
    return (
        [corpus.texts[i] for i in first],
        [corpus.authors[i] for i in first],
        [labels[i] for i in first],
    ), ([corpus.texts[i] for i in second], [labels[i] for i in second])


def _scores(train_counts, train_labels, test_counts, test_labels) -> dict[str, float]:
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    truth = np.asarray(test_labels)
    out = {}
    for name, model in (("nb", MultinomialNB(alpha=0.01)), ("svm", LinearSVC())):
        fitted = make_pipeline(TfidfTransformer(), model).fit(train_counts, train_labels)
        out[name] = float(np.mean(fitted.predict(test_counts) == truth))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", choices=("20news", "blogs"))
    parser.add_argument("--task", default="age_group", help="blogs: age_group, gender or topic")
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1, 2, 4, 8])
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--vocabulary-size", type=int, default=10_000)
    parser.add_argument("--syntf", action="store_true", help="also SynTF's per-document release, its defaults")
    options = parser.parse_args()
    from authorguard.methods.author_synth import AuthorLevelSynthesiser
    from authorguard.text.analysis import TermAnalyzer
    from authorguard.text.counting import count_terms

    (texts, authors, labels), (test_texts, test_labels) = _corpus(options.corpus, options.task)
    rows = []
    test_counts = original = None
    for epsilon in options.epsilons:
        for seed in range(options.seeds):
            started = time.monotonic()
            model = AuthorLevelSynthesiser(epsilon, vocabulary_size=options.vocabulary_size, random_state=seed)
            model.fit(texts, authors, labels)
            synthetic_labels, synthetic = model.sample()
            seconds = time.monotonic() - started
            if test_counts is None:
                analyzer = TermAnalyzer(model.morphology)
                test_counts = count_terms(test_texts, analyzer, model.vocabulary_)[0]
                original = _scores(count_terms(texts, analyzer, model.vocabulary_)[0], labels, test_counts, test_labels)
                majority = max(np.mean(np.asarray(test_labels) == c) for c in set(test_labels))
                print(
                    json.dumps(
                        {
                            "original": original,
                            "majority": majority,
                            "authors": model.bounded_["authors"],
                            "documents": len(texts),
                            "test": len(test_texts),
                        }
                    ),
                    flush=True,
                )
            scores = _scores(synthetic, synthetic_labels, test_counts, test_labels)
            row = {
                "epsilon": epsilon,
                "seed": seed,
                "tstr": scores,
                "share": {k: scores[k] / original[k] for k in scores},
                "noise_share": round(model.noise_share_, 3),
                "seconds": round(seconds, 1),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    if options.syntf:
        print(json.dumps(_syntf_row(texts, labels, test_texts, test_labels, model.vocabulary_)), flush=True)


def _syntf_row(texts, labels, test_texts, test_labels, vocabulary) -> dict:
    """SynTF (per-document local DP, its defaults) on the same public vocabulary, scored the same way."""
    from authorguard.methods.syntf import SynTF

    started = time.monotonic()
    mechanism = SynTF(morphology="lower", vocabulary=sorted(vocabulary), random_state=0)
    released = mechanism.fit_transform(texts)
    seconds = time.monotonic() - started
    test = mechanism.term_counts(test_texts)
    found = mechanism.privacy_report().to_dict()
    return {
        "syntf": _scores(released, list(labels), test, test_labels),
        "epsilon_per_document": found.get("tight_epsilon", found.get("epsilon")),
        "seconds": round(seconds, 1),
    }


if __name__ == "__main__":
    main()
