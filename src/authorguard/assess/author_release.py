"""What ``assess`` offers a data owner whose need is a labelled task: the author-level DP release (``authorguard
synth``), with its ε, its utility measured by training on the release and testing on the real documents of authors
it never saw (TSTR), and the sentence it must carry.

The whole usable corpus is used (DP needs many authors; the attack measurements' subsample would be too few): its
authors split by a seeded hash, a share of them (and all their documents) held out for the test, the rest released.
Utility is the share of the original's accuracy above the majority class (:func:`~authorguard.assess.recommend.
task_utility`), the classifier the SynTF paper's analyst (tf-idf + multinomial naive Bayes) trained once on the real
released side and once on the synthetic release.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

import numpy as np

from authorguard.assess.recommend import task_utility

#: ε per author of the release assess measures and offers (δ below), and the authors held out to test it
EPSILON, DELTA, TEST_SHARE = 4.0, 1e-5, 0.3
#: fewer authors than this and the release is mostly noise at ε = 4 (docs/results/synth.md): not measured
MIN_AUTHORS = 100
SENTENCE = "It releases no one's documents: the task works, the texts are gone."


def _held_out(authors: Sequence[object] | np.ndarray, share: float, seed: int) -> np.ndarray:
    """Whether each document's author is on the test side (a seeded hash of the author: all or none of theirs)."""
    cut = int(share * 2**32)
    return np.asarray(
        [
            int.from_bytes(hashlib.blake2b(f"{seed}\x00{a}".encode(), digest_size=4).digest(), "little") < cut
            for a in authors
        ]
    )


def _accuracy(train_counts, train_labels, test_counts, test_labels) -> float:
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(TfidfTransformer(), MultinomialNB(alpha=0.01)).fit(train_counts, train_labels)
    return float(np.mean(model.predict(test_counts) == np.asarray(test_labels)))


def evaluate_author_release(
    texts: Sequence[str], authors: Sequence[object] | np.ndarray, labels: Sequence[object], seed: int = 0
) -> dict:
    """The author-level release at :data:`EPSILON` measured on this corpus: ``{"epsilon", "delta", "utility",
    "tstr_accuracy", "original_accuracy", "majority", "authors", "test_documents", "noise_share", "sentence"}``, or
    ``{"skipped": reason}`` when the corpus has too few authors or classes to measure it."""
    from authorguard.methods.author_synth import AuthorLevelSynthesiser
    from authorguard.text.analysis import TermAnalyzer
    from authorguard.text.counting import count_terms

    labels = [str(label) for label in labels]
    test = _held_out(authors, TEST_SHARE, seed)
    released = np.flatnonzero(~test).tolist()
    n_authors = len({str(authors[i]) for i in released})
    if n_authors < MIN_AUTHORS:
        return {"skipped": f"{n_authors} authors on the released side: at least {MIN_AUTHORS} are needed"}
    if test.sum() == 0:
        return {"skipped": "no author fell on the held-out side"}
    if len({labels[i] for i in released}) < 2:
        return {"skipped": "the released side has one label"}
    model = AuthorLevelSynthesiser(EPSILON, DELTA, random_state=seed)
    model.fit([texts[i] for i in released], [authors[i] for i in released], [labels[i] for i in released])
    synthetic_labels, synthetic = model.sample()
    analyzer = TermAnalyzer(model.morphology)
    held = np.flatnonzero(test).tolist()
    test_counts = count_terms([texts[i] for i in held], analyzer, model.vocabulary_)[0]
    test_labels = [labels[i] for i in held]
    original = _accuracy(
        count_terms([texts[i] for i in released], analyzer, model.vocabulary_)[0],
        [labels[i] for i in released],
        test_counts,
        test_labels,
    )
    tstr = _accuracy(synthetic, synthetic_labels, test_counts, test_labels)
    majority = Counter(test_labels).most_common(1)[0][1] / len(test_labels)
    privacy = model.privacy_report()
    return {
        "epsilon": privacy.epsilon,
        "delta": privacy.delta,
        "utility": task_utility(tstr, original, majority) if original > majority else None,
        "tstr_accuracy": tstr,
        "original_accuracy": original,
        "majority": majority,
        "authors": n_authors,
        "test_documents": len(held),
        "noise_share": model.noise_share_,
        "sentence": SENTENCE,
    }


def offer(release: dict, min_utility: float) -> str:
    """One sentence on the author-level release for the verdict: recommended or not, and why."""
    if "skipped" in release:
        return f"The author-level DP release (authorguard synth) was not measured: {release['skipped']}."
    utility = release["utility"]
    figures = (
        f"ε = {release['epsilon']:g} per author, TSTR accuracy {release['tstr_accuracy']:.0%} against "
        f"{release['original_accuracy']:.0%} trained on the real documents (majority {release['majority']:.0%})"
    )
    if utility is not None and utility >= min_utility:
        return f"The author-level DP release keeps utility {utility:.2f} ({figures}). {SENTENCE}"
    if utility is None:
        return (
            f"The author-level DP release was measured ({figures}), but the task trained on the real documents does "
            "not beat its majority class, so no release can keep it: not recommended."
        )
    return (
        f"The author-level DP release keeps utility {utility:.2f} ({figures}): below {min_utility:.2f}, "
        "not recommended."
    )


def with_author_release(recommendation, release: dict, min_utility: float):
    """The recommendation with the author-level release weighed in: recommended when no text release is and it keeps
    ``min_utility``; otherwise said beside the verdict."""
    from dataclasses import replace

    sentence = offer(release, min_utility)
    utility = release.get("utility")
    if recommendation.choice is None and utility is not None and utility >= min_utility:
        return replace(
            recommendation,
            choice="synth",
            params={"epsilon": release["epsilon"]},
            method_name="synth",
            reason=f"{sentence} No text release is recommended: {recommendation.reason}",
        )
    return replace(recommendation, reason=f"{recommendation.reason} {sentence}")
