"""The analyst (utility) and the bag-of-words attacker (privacy) on count vectors, and the gain.

Utility: newsgroup classification, tf-idf + MultinomialNB(alpha=0.01) or LinearSVC(C=1), trained on the training
split's vectors and tested on the test split's. Attack: author identification among a scenario's authors with the
same classifiers, under two threat models: ``anonymised-train`` (the attacker trains on released vectors of the
training split, the paper's) and ``original-train`` (the attacker trained on the authors' original texts). Scores:
macro F1 and accuracy; beta = F1(anonymised) / F1(original); gain = beta_U - beta_A.

Run ``python -m authorguard.experiments.evaluation --help`` for the command that measures SynTF on 20 Newsgroups.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

import numpy as np
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.metrics import accuracy_score, f1_score
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

CLASSIFIERS: dict[str, Callable[[], Pipeline]] = {
    "nb": lambda: Pipeline([("tfidf", TfidfTransformer()), ("clf", MultinomialNB(alpha=0.01))]),
    "svm": lambda: Pipeline([("tfidf", TfidfTransformer()), ("clf", LinearSVC(C=1.0))]),
}


def score(train_X, train_y, test_X, test_y, classifier: str) -> dict:
    """Fit ``classifier`` on (train_X, train_y); macro F1 and accuracy on (test_X, test_y)."""
    model = CLASSIFIERS[classifier]().fit(train_X, np.asarray(train_y))
    predicted = model.predict(test_X)
    return {"f1_macro": float(f1_score(test_y, predicted, average="macro")), "accuracy": float(accuracy_score(test_y, predicted))}


def evaluate_syntf(corpus, scenario, params: dict, seed: int, classifiers=("nb", "svm")) -> list[dict]:
    """Utility on the whole corpus and attacks on ``scenario``, original vs SynTF vectors; one row per score."""
    from authorguard.methods.syntf import SynTF

    train, test = corpus.split("train"), corpus.split("test")
    method = SynTF(**params, random_state=seed).fit(train.texts)
    report = method.privacy_report().to_dict()
    original = {name: method.term_counts(part.texts) for name, part in (("train", train), ("test", test))}
    released = {name: method.synthesize(counts) for name, counts in original.items()}
    authors = scenario.select(corpus)
    a_train, a_test = authors.split("train"), authors.split("test")
    a_original = {"train": method.term_counts(a_train.texts), "test": method.term_counts(a_test.texts)}
    a_released = {name: method.synthesize(counts) for name, counts in a_original.items()}
    rows = []
    for classifier in classifiers:
        u_orig = score(original["train"], train.labels, original["test"], test.labels, classifier)["f1_macro"]
        u_anon = score(released["train"], train.labels, released["test"], test.labels, classifier)["f1_macro"]
        a_orig = score(a_original["train"], a_train.authors, a_original["test"], a_test.authors, classifier)["f1_macro"]
        threats = {
            "anonymised-train": score(a_released["train"], a_train.authors, a_released["test"], a_test.authors, classifier)["f1_macro"],
            "original-train": score(a_original["train"], a_train.authors, a_released["test"], a_test.authors, classifier)["f1_macro"],
        }
        for threat, a_anon in threats.items():
            beta_u, beta_a = u_anon / u_orig, a_anon / a_orig
            rows.append({"scenario": scenario.name, "classifier": classifier, "threat_model": threat,
                         "utility_f1_original": u_orig, "utility_f1_syntf": u_anon, "attack_f1_original": a_orig,
                         "attack_f1_syntf": a_anon, "beta_u": beta_u, "beta_a": beta_a, "gain": beta_u - beta_a,
                         "loss_per_word": report["loss_per_word"], "tight_epsilon": report["tight_epsilon"],
                         "epsilon": report["epsilon"], "seed": seed})
    return rows


def main() -> None:
    from authorguard.data.newsgroups import load_20newsgroups
    from authorguard.experiments.scenarios import AuthorshipScenario

    parser = argparse.ArgumentParser(description="SynTF vs original on 20 Newsgroups: utility, bag-of-words attacker, gain.")
    parser.add_argument("--epsilon", type=float, default=None)
    parser.add_argument("--target-loss", type=float, default=25.4, help="calibrate epsilon to this loss per word (default)")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--multi", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    corpus = load_20newsgroups()
    params = {"epsilon": args.epsilon or 47.5}
    if args.epsilon is None:
        from authorguard.methods.syntf import SynTF

        params["epsilon"] = SynTF().fit(corpus.split("train").texts).calibrate(args.target_loss)
    for row in evaluate_syntf(corpus, AuthorshipScenario(args.top, args.multi), params, args.seed):
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}))


if __name__ == "__main__":
    main()
