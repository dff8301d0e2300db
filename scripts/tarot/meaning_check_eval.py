"""Can a meaning check be learned from the hand labels? Leave-one-policy-out, on the outputs the gate passes.

The rewrite-validity gate passes fluent texts that keep the input's words and change what they say (reversals,
swapped people, invented clauses; docs/results/tarot.md, the 10x rounds). This script asks whether the signals
available offline separate those from valid rewrites: every hand-labelled output (the five
``docs/results/tarot/validity-labels*.jsonl`` files: 800 outputs of eight policies) that the gate and the MiniLM
floor pass is described by

- MiniLM: the whole-text cosine; per sentence, how well each rewrite sentence is supported by its nearest input
  sentence (``support_*``) and each input sentence covered by its nearest rewrite sentence (``coverage_*``);
- surface: content stems invented / dropped, negation count difference and flip, change in the share of first-,
  second- and third-person pronouns, a question mark gained or lost, copied bigrams, sequence similarity, log
  length ratio;
- with ``--lm``, the reference LM (SmolLM2-135M-Instruct, no adapter): pointwise mutual information of the
  rewrite's tokens with the input (log p(rewrite | input) - log p(rewrite | a neutral context), mean and 10th
  percentile, nats per token), the same backwards (the input given the rewrite), and the backward NLL itself.

A logistic regression (standardised features, balanced classes, L2 ``C``) is trained on seven policies' outputs
and scores the eighth's, for each policy in turn. Prints the pooled AUC of "invalid" over the held-out scores,
the invalid outputs caught and valid ones lost at probability 0.5, the AUC *within* each policy (the pooled one
also rewards telling policies apart, which a user's single policy does not need), and each feature's mean
within-policy AUC alone.

Usage:  AUTHORGUARD_DATA=../shared/data python scripts/tarot/meaning_check_eval.py [--lm] [--C 0.1] [--floor 0.5]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

LABEL_FILES = (
    "validity-labels",
    "validity-labels-dpo10x",
    "validity-labels-dpo10x-v2",
    "validity-labels-dpo10x-anchored",
    "validity-labels-ppo10x",
)
#: the policy a file's outputs came from (None: the file's rows say it)
FILE_POLICY = {
    "validity-labels": None,
    "validity-labels-dpo10x": "dpo10x",
    "validity-labels-dpo10x-v2": "dpo10x-v2",
    "validity-labels-dpo10x-anchored": "dpo10x-anchored",
    "validity-labels-ppo10x": "ppo10x",
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_NEGATION = {"not", "no", "never", "nothing", "none", "nobody", "nor", "neither", "without"}
_PERSON = (
    {"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "i'm", "i've", "i'd", "i'll", "we're"},
    {"you", "your", "yours", "you're", "yourself"},
    {"he", "she", "him", "her", "his", "hers", "they", "them", "their", "he's", "she's", "they're"},
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labels", default="docs/results/tarot", help="Folder of the labelled files.")
    parser.add_argument("--lm", action="store_true", help="Add the reference LM's cross-likelihood features (slow).")
    parser.add_argument("--C", type=float, default=0.1, help="Inverse L2 strength of the logistic regression.")
    parser.add_argument("--floor", type=float, default=0.5, help="MiniLM floor of the selection (as the method).")
    args = parser.parse_args()
    import numpy as np
    from sklearn.metrics import roc_auc_score

    rows = passed_outputs(Path(args.labels), args.floor)
    features = [surface_features(r["original"], r["rewrite"]) for r in rows]
    for f, s in zip(features, alignment_features(rows)):
        f.update(s)
    if args.lm:
        for f, s in zip(features, lm_features(rows)):
            f.update(s)
    names = list(features[0])
    X = np.array([[f[k] for k in names] for f in features])
    y = np.array([r["label"] != "V" for r in rows], dtype=int)
    policies = np.array([r["policy"] for r in rows])
    scores = leave_one_policy_out(X, y, policies, args.C)
    flagged = scores > 0.5
    print(
        f"{len(rows)} labelled outputs the gate and the floor {args.floor} pass: {y.sum()} invalid by hand, "
        f"{len(y) - y.sum()} valid; {len(names)} features{' (with the LM)' if args.lm else ''}, C {args.C}\n"
    )
    print(
        f"pooled AUC of the held-out scores: {roc_auc_score(y, scores):.2f}; at 0.5: invalid caught "
        f"{(flagged & (y == 1)).sum()}/{y.sum()}, valid lost {(flagged & (y == 0)).sum()}/{(y == 0).sum()}\n"
    )
    print(
        "| held-out policy | outputs | invalid | AUC within it | invalid caught | valid lost "
        "|\n|---|---|---|---|---|---|"
    )
    mixed = [p for p in dict.fromkeys(policies) if 0 < y[policies == p].sum() < (policies == p).sum()]
    for policy in dict.fromkeys(policies):
        mine = policies == policy
        auc = f"{roc_auc_score(y[mine], scores[mine]):.2f}" if policy in mixed else "-"
        print(
            f"| {policy} | {mine.sum()} | {y[mine].sum()} | {auc} | {(flagged & mine & (y == 1)).sum()} | "
            f"{(flagged & mine & (y == 0)).sum()} |"
        )
    print("\n| feature | mean within-policy AUC alone (invalid high) |\n|---|---|")
    for j, name in enumerate(names):
        aucs = [roc_auc_score(y[policies == p], X[policies == p, j]) for p in mixed]
        print(f"| {name} | {np.mean(aucs):.2f} |")


def passed_outputs(folder: Path, floor: float) -> list:
    """The labelled outputs that the gate (with the token-limit flag) and the MiniLM floor pass, each with its
    ``policy``, ``label``, ``original``, ``rewrite`` and ``cosine``."""
    from authorguard.neural.tarot.config import TAROT_PROMPT, RewardConfig
    from authorguard.neural.tarot.reward import ObfuscationReward
    from authorguard.text.validity import RewriteGate

    rows = []
    for name in LABEL_FILES:
        for line in (folder / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            row["policy"] = FILE_POLICY[name] or row["policy"]
            rows.append(row)
    cosines = ObfuscationReward(RewardConfig(privacy=False, gate=False))(
        [r["original"] for r in rows], [r["rewrite"] for r in rows]
    ).utility
    gate = RewriteGate(instruction=TAROT_PROMPT)
    kept = []
    for row, cosine in zip(rows, cosines):
        if cosine >= floor and gate.problem(row["original"], row["rewrite"], row["truncated"]) is None:
            row["cosine"] = float(cosine)
            kept.append(row)
    return kept


def surface_features(original: str, rewrite: str) -> dict:
    import numpy as np

    from authorguard.text.validity import content_stems, copy_share, invented_share, sequence_similarity, words

    theirs, mine = content_stems(original), content_stems(rewrite)
    negations = [_negations(original), _negations(rewrite)]
    return {
        "invented": invented_share(original, rewrite),
        "dropped": len(theirs - mine) / max(len(theirs), 1),
        "negation_difference": abs(negations[1] - negations[0]),
        "negation_flip": float((negations[0] > 0) != (negations[1] > 0)),
        "person_change": float(np.abs(_person(rewrite) - _person(original)).sum()),
        "question_change": float(("?" in original) != ("?" in rewrite)),
        "copied_bigrams": copy_share(original, rewrite),
        "sequence": sequence_similarity(original, rewrite),
        "log_length_ratio": float(np.log((len(words(rewrite)) + 1) / (len(words(original)) + 1))),
    }


def alignment_features(rows: list) -> list:
    """MiniLM: whole-text cosine and sentence-to-sentence support / coverage, one dict per row."""
    import numpy as np

    from authorguard.metrics.content import _encoder

    split = {r["original"]: _sentences(r["original"]) for r in rows} | {
        r["rewrite"]: _sentences(r["rewrite"]) for r in rows
    }
    unique = sorted({s for parts in split.values() for s in parts})
    vectors = dict(
        zip(unique, _encoder().encode(unique, batch_size=32, normalize_embeddings=True, convert_to_numpy=True))
    )
    out = []
    for r in rows:
        similarity = np.array([[vectors[a] @ vectors[b] for b in split[r["original"]]] for a in split[r["rewrite"]]])
        support, coverage = similarity.max(axis=1), similarity.max(axis=0)
        out.append(
            {
                "cosine": r["cosine"],
                "support_min": float(support.min()),
                "support_mean": float(support.mean()),
                "coverage_min": float(coverage.min()),
                "coverage_mean": float(coverage.mean()),
            }
        )
    return out


def lm_features(rows: list) -> list:
    """The reference LM's pointwise mutual information between input and rewrite (nats per token), per row."""
    import numpy as np
    import torch

    from authorguard.neural.tarot.policy import load_policy

    model, tokenizer = load_policy()
    ids = lambda text: tokenizer(text, add_special_tokens=False)["input_ids"]  # noqa: E731

    def log_probs(context: str, target: str) -> np.ndarray:
        c, t = ids(context), ids(target)[:160]
        with torch.no_grad():
            logits = model(torch.tensor([c + t])).logits[0, len(c) - 1 : -1].float()
        return torch.log_softmax(logits, -1).gather(1, torch.tensor(t)[:, None])[:, 0].numpy()

    frame = "Text: {}\nThe same text in other words: "
    out = []
    for r in rows:
        forward = log_probs(frame.format(r["original"]), r["rewrite"]) - log_probs(frame.format("Hello."), r["rewrite"])
        given = log_probs(frame.format(r["rewrite"]), r["original"])
        backward = given - log_probs(frame.format("Hello."), r["original"])
        out.append(
            {
                "pmi_mean": float(forward.mean()),
                "pmi_p10": float(np.percentile(forward, 10)),
                "back_pmi_mean": float(backward.mean()),
                "back_pmi_p10": float(np.percentile(backward, 10)),
                "back_nll": float(-given.mean()),
            }
        )
    return out


def leave_one_policy_out(X, y, policies, C: float):
    """Each policy's outputs scored by a model trained on the other policies' (probability of "invalid")."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    scores = np.zeros(len(y))
    for policy in np.unique(policies):
        train, test = policies != policy, policies == policy
        model = make_pipeline(StandardScaler(), LogisticRegression(C=C, class_weight="balanced", max_iter=1000))
        scores[test] = model.fit(X[train], y[train]).predict_proba(X[test])[:, 1]
    return scores


def _sentences(text: str) -> list:
    from authorguard.text.validity import words

    parts = [s.strip() for s in _SENTENCE.split(text) if len(words(s)) >= 2]
    return parts or [text]


def _negations(text: str) -> int:
    from authorguard.text.validity import words

    return sum(w in _NEGATION or w.endswith("n't") for w in words(text))


def _person(text: str):
    import numpy as np

    from authorguard.text.validity import words

    tokens = words(text)
    return np.array([sum(w in group for w in tokens) for group in _PERSON]) / max(len(tokens), 1)


if __name__ == "__main__":
    main()
