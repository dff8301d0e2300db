"""The author membership attack on `authorguard synth`'s noisy statistics: was this author in the corpus?

    AUTHORGUARD_DATA=../shared/data python scripts/synth/membership.py --epsilons 1 4 8 --targets 200 --draws 5

Neighbouring corpora: the 20 Newsgroups train split without T target authors (each with two messages or more), and
the same with one target added (everything they wrote, bounded as the release bounds it). Each trial releases the
statistics with fresh noise at the calibrated scales; half the trials hold the target, half do not. Two attackers:

- **strong** (the DP adversary: it knows every other author's contribution and the target's exact one) — the
  likelihood-ratio statistic sum over releases of <y - rest, contribution> / scale^2, the most powerful test;
- **realistic** (it holds the target's *other* message, never counted, and the release): the cosine between the
  release's term sums in the target's label and that message's unit term vector, and the same over word clusters.

Advantage = TPR - FPR at a threshold chosen on half of the trials and measured on the other half (95 % Wilson
intervals on each rate), beside the bound any (ε, δ)-DP release allows, (e^ε - 1 + 2δ) / (e^ε + 1), and, for the
strong attacker, the exact advantage of the composed Gaussian mechanism, 2 Phi(mu / 2) - 1.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np


def _corpus():
    from authorguard.data.newsgroups import load_20newsgroups

    train = load_20newsgroups().split("train")
    keep = [i for i, a in enumerate(train.authors) if a]
    return [train.texts[i] for i in keep], [train.authors[i] for i in keep], [train.labels[i] for i in keep]


def _statistics(texts, authors, labels, model, positions, classes):
    from authorguard.methods.author_synth import aggregate, chosen_documents
    from authorguard.text.analysis import TermAnalyzer

    label_of = np.asarray([classes.index(labels[i]) for i in positions])
    sub_texts = [texts[i] for i in positions]
    sub_authors = [authors[i] for i in positions]
    chosen = chosen_documents(sub_authors, list(positions), model.bound.max_documents, 0)
    found = aggregate(
        sub_texts,
        sub_authors,
        label_of,
        chosen,
        len(classes),
        model.vocabulary_,
        model.clusters_,
        TermAnalyzer(model.morphology),
        model.bound,
    )
    return found.released()


def _advantage(inside: np.ndarray, outside: np.ndarray, rng) -> dict:
    """TPR - FPR at the threshold that maximises it on a random half, measured on the other half."""
    from authorguard.metrics.statistics import wilson_interval

    halves = rng.permutation(len(inside)) < len(inside) // 2
    pick_in, test_in = inside[halves], inside[~halves]
    pick_out, test_out = outside[halves], outside[~halves]
    candidates = np.unique(np.r_[pick_in, pick_out])
    gains = [np.mean(pick_in > t) - np.mean(pick_out > t) for t in candidates]
    threshold = candidates[int(np.argmax(gains))]
    tpr, fpr = float(np.mean(test_in > threshold)), float(np.mean(test_out > threshold))
    return {
        "advantage": tpr - fpr,
        "tpr": tpr,
        "tpr_ci": list(wilson_interval(tpr, len(test_in))),
        "fpr": fpr,
        "fpr_ci": list(wilson_interval(fpr, len(test_out))),
    }


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


def main() -> None:
    from scipy.stats import norm

    from authorguard.methods.author_synth import AuthorLevelSynthesiser
    from authorguard.privacy.author_level import RELEASES, calibrate

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1, 4, 8])
    parser.add_argument("--targets", type=int, default=200)
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--delta", type=float, default=1e-5)
    options = parser.parse_args()
    rng = np.random.default_rng(0)
    texts, authors, labels = _corpus()
    classes = sorted(set(labels))
    by_author: dict[str, list[int]] = {}
    for i, author in enumerate(authors):
        by_author.setdefault(author, []).append(i)
    eligible = sorted(a for a, docs in by_author.items() if len(docs) >= 2)
    targets = [eligible[i] for i in rng.choice(len(eligible), options.targets, replace=False)]
    # the public vocabulary and word clusters (what the release's columns are), from any fit
    model = AuthorLevelSynthesiser(random_state=0).fit(texts[::200], authors[::200], labels[::200])
    rest = [i for i, a in enumerate(authors) if a not in set(targets)]
    base = _statistics(texts, authors, labels, model, rest, classes)
    sizes = {name: int(base[name].size) for name in RELEASES}
    contributions, probes = [], []
    for author in targets:
        counted, other = by_author[author][:-1], by_author[author][-1]  # the last message: the attacker's
        contributions.append(_statistics(texts, authors, labels, model, counted, classes))
        probe = _statistics(texts, [author] * len(texts), labels, model, [other], classes)
        probes.append({name: _unit(probe[name].ravel()) for name in ("terms", "clusters")})
    for epsilon in options.epsilons:
        scales, spent = calibrate(epsilon, options.delta, model.bound, sizes)
        scores = {"strong": ([], []), "realistic": ([], [])}
        for _ in range(options.draws):
            for contribution, probe in zip(contributions, probes):
                for held, world in ((True, 0), (False, 1)):
                    y = {
                        n: base[n] + (contribution[n] if held else 0.0) + rng.normal(0, scales[n], base[n].shape)
                        for n in RELEASES
                    }
                    strong = sum(float(np.sum((y[n] - base[n]) * contribution[n])) / scales[n] ** 2 for n in RELEASES)
                    realistic = sum(float(_unit(y[n].ravel()) @ probe[n]) for n in ("terms", "clusters"))
                    scores["strong"][world].append(strong)
                    scores["realistic"][world].append(realistic)
        rho = sum(model.bound.sensitivities()[n] ** 2 / (2 * scales[n] ** 2) for n in RELEASES)
        row = {
            "epsilon": epsilon,
            "spent": spent,
            "trials": 2 * len(targets) * options.draws,
            "dp_bound": (math.exp(epsilon) - 1 + 2 * options.delta) / (math.exp(epsilon) + 1),
            "gaussian_exact": 2 * norm.cdf(math.sqrt(2 * rho) / 2) - 1,
        }
        for name, (inside, outside) in scores.items():
            row[name] = _advantage(np.asarray(inside), np.asarray(outside), rng)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
