"""A learned fidelity meter, tried and not shipped (issue 55): the rule meter's findings plus MiniLM sentence
alignment, combined by a gradient-boosted classifier fitted on the tuning half of the labels and scored on the
held-out half (the halves of meter_agreement.py).

    python scripts/faithful/meter_learned.py

Features per pair: MiniLM cosine of the whole texts; each output sentence's best cosine to an input sentence (min,
mean) and each input sentence's best cosine to an output sentence (min, mean); the rule meter's recall, invention,
new and lost names or numbers, negation and question mismatch, swapped roles, changed agents; the length ratio.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

FEATURES = (
    "doc",
    "out_min",
    "out_mean",
    "in_min",
    "in_mean",
    "recall",
    "invented",
    "new",
    "lost",
    "negation",
    "question",
    "swap",
    "agents",
    "length_ratio",
)


def main() -> None:
    import meter_agreement
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import accuracy_score, cohen_kappa_score

    from authorguard.metrics.content import _encoder
    from authorguard.metrics.fidelity import FidelityMeter, FidelityThresholds
    from authorguard.metrics.fidelity.verdict import judge_pair as judge
    from authorguard.text.views.reading import sentences

    pairs = meter_agreement.labelled_pairs()
    texts = sorted({t for p in pairs for t in (p["input"], p["output"])})
    meter = FidelityMeter()
    readings = dict(zip(texts, meter.read(texts)))
    split = {t: sentences(t) or [t] for t in texts}
    encoder = _encoder()
    all_sentences = sorted({s for parts in split.values() for s in parts})
    sentence_vectors = dict(zip(all_sentences, encoder.encode(all_sentences, batch_size=64, normalize_embeddings=True)))
    text_vectors = dict(zip(texts, encoder.encode(texts, batch_size=32, normalize_embeddings=True)))
    rows = []
    for pair in pairs:
        a, b = pair["input"], pair["output"]
        similarity = (
            np.array([sentence_vectors[s] for s in split[b]]) @ np.array([sentence_vectors[s] for s in split[a]]).T
        )
        score = judge(readings[a], readings[b], FidelityThresholds())
        values = (
            float(text_vectors[a] @ text_vectors[b]),
            similarity.max(1).min(),
            similarity.max(1).mean(),
            similarity.max(0).min(),
            similarity.max(0).mean(),
            score.recall,
            score.invented,
            len(score.new_names),
            len(score.lost_names),
            int(score.negations[0] != score.negations[1]),
            int((score.questions[0] > 0) != (score.questions[1] > 0)),
            len(score.swapped_roles),
            len(score.changed_agents),
            len(b.split()) / max(1, len(a.split())),
        )
        rows.append((meter_agreement.half(a), pair["source"], np.array(values, float), pair["label"] == "faithful"))
    tune = [r for r in rows if r[0] == "tune"]
    held = [r for r in rows if r[0] != "tune"]
    model = HistGradientBoostingClassifier(max_depth=3, max_iter=300, learning_rate=0.05, random_state=0)
    model.fit(np.array([r[2] for r in tune]), np.array([r[3] for r in tune]))
    predicted = model.predict(np.array([r[2] for r in held]))
    truth = np.array([r[3] for r in held])
    print(
        f"held out: {len(held)} pairs, accuracy {accuracy_score(truth, predicted):.3f}, "
        f"kappa {cohen_kappa_score(truth, predicted):.3f} (faithful vs not)"
    )
    for source in sorted({r[1] for r in held}):
        index = [i for i, r in enumerate(held) if r[1] == source]
        print(f"  {source}: {len(index)} pairs, agreement {np.mean(predicted[index] == truth[index]):.3f}")


if __name__ == "__main__":
    main()
