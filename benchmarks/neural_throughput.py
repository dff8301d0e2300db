"""Throughput of the neural components on real blog posts (run on demand; figures go to docs/benchmarks.md).

Measures, on this machine's CPU threads (or a GPU with --device cuda):
- the transformer attributor: fine-tuning and inference, windows of 128 word pieces per second;
- the author encoder: encoding texts/s (one 128-piece window each) and one contrastive training step
  (24 authors x 2 episodes x 2 texts);
- the reference LM (SmolLM2-135M, float32): scoring texts/s and tokens/s (first 128 tokens of each text, batch 8).

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/neural_throughput.py [--texts 256]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=256, help="Blog posts per measurement.")
    args = parser.parse_args()
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    import torch

    from authorguard import registry
    from authorguard.generation.reference_lm import load_reference_lm, token_log_likelihoods
    from authorguard.neural.attributor.config import AttributorConfig
    from authorguard.neural.attributor.trainer import FineTunedClassifier
    from authorguard.neural.author_encoder.config import AuthorEncoderConfig
    from authorguard.neural.author_encoder.episodes import sample_batch
    from authorguard.neural.author_encoder.model import build_network, load_author_encoder
    from authorguard.neural.author_encoder.trainer import contrastive_loss
    from authorguard.neural.chunks import token_windows

    blogs = registry.datasets.get("blogs")()
    rng = np.random.default_rng(0)
    chosen = [i for i in rng.permutation(len(blogs)) if len(blogs.texts[i].split()) >= 100][: args.texts]
    texts = [blogs.texts[i] for i in chosen]
    authors = [blogs.authors[i] for i in chosen]
    print(
        f"{len(texts)} blog posts of >= 100 words; torch {torch.__version__}, {torch.get_num_threads()} threads, "
        f"{os.cpu_count()} CPUs"
    )

    classifier = FineTunedClassifier(
        AttributorConfig(epochs=1, max_windows=1, max_train_windows=len(texts)), random_state=0
    )
    labels = [str(hash(a) % 4) for a in authors]  # 4 arbitrary classes: throughput only
    started = time.perf_counter()
    classifier.fit(texts, labels)
    fit_seconds = time.perf_counter() - started
    started = time.perf_counter()
    classifier.predict(texts)
    predict_seconds = time.perf_counter() - started
    windows = len(token_windows(classifier.tokenizer_, texts, 128, 1)[0])
    print(f"attributor fine-tuning: {windows / fit_seconds:6.1f} windows/s (batch 16 x 128 pieces, full fine-tuning)")
    print(f"attributor inference:   {windows / predict_seconds:6.1f} windows/s")

    encoder = load_author_encoder()
    started = time.perf_counter()
    encoder.encode(texts)
    print(f"author encoder encode:  {len(texts) / (time.perf_counter() - started):6.1f} texts/s (one window each)")
    config = AuthorEncoderConfig()
    module, tokenizer = build_network(config, seed=0)
    pool = {}
    for author, text in zip(blogs.authors, blogs.texts):
        pool.setdefault(author, []).append(text)
    pool = {a: t for a, t in pool.items() if len(t) >= 4}
    optimizer = torch.optim.AdamW([p for p in module.parameters() if p.requires_grad], lr=1e-3)
    step_seconds = []
    for _ in range(3):
        batch_texts, n = sample_batch(pool, config.authors_per_batch, config.texts_per_episode, rng)
        started = time.perf_counter()
        batch = tokenizer(batch_texts, truncation=True, max_length=config.max_tokens, padding=True, return_tensors="pt")
        loss = contrastive_loss(
            module(batch["input_ids"], batch["attention_mask"]), n, config.texts_per_episode, config.temperature
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step_seconds.append(time.perf_counter() - started)
    print(f"author encoder training: {np.median(step_seconds):5.1f} s a step ({len(batch_texts)} texts; median of 3)")

    model, lm_tokenizer = load_reference_lm()
    started = time.perf_counter()
    scores = token_log_likelihoods(texts, model, lm_tokenizer, max_tokens=128, batch_size=8)
    seconds = time.perf_counter() - started
    print(
        f"reference LM scoring:   {len(texts) / seconds:6.1f} texts/s, {scores.n_tokens.sum() / seconds:7.0f} tokens/s "
        f"(<= 128 tokens a text, batch 8, float32)"
    )


if __name__ == "__main__":
    main()
