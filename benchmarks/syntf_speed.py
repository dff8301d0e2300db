"""SynTF speed and memory on 20 Newsgroups (run on demand; prints figures for docs/benchmarks.md).

(a) docs/s of SynTF on the whole corpus (18,846 messages) at n = 150 and L ≈ 30k, against the paper's way
    in the same run: precomputed probability rows and one ``Generator.choice(L, p=pi_v)`` per sampled word
    (timed on a sample of words drawn as the transform draws them, then extrapolated to the corpus).
(b) seconds and peak memory of the exact loss per word l at L = 10k and 30k, each in a fresh process, against
    a plain blocked float32 numpy implementation.
(c) the whole ``authorguard syntf`` process (start-up, reading, tokenising, fitting, the one pass over the
    mechanism that samples and computes l, writing JSONL) on 20,000 documents of 120 tokens drawn from a Zipf
    law over L = 30,000 words, with random 100-d and 300-d vectors in a GloVe text file (n = 150, epsilon = 47.5,
    s = 0.3, morphology orth), against the paper's per-word way on the same mechanism, in the same run.

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/syntf_speed.py [--sizes 10000 30000] [--reference-words 2000]
        [--parts a b c] [--dims 100 300]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np


def machine() -> str:
    import numba

    with open("/proc/cpuinfo") as cpuinfo:
        cpu = next(
            (line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), platform.processor()
        )
    return (
        f"{cpu}, {os.cpu_count()} cores, numba threads {numba.get_num_threads()}, "
        f"Python {platform.python_version()}, numpy {np.__version__}"
    )


def transform_throughput(n_words: int, max_features: int, reference_words: int, seed: int) -> dict:
    from authorguard.data.newsgroups import load_20newsgroups
    from authorguard.methods.syntf import SynTF

    corpus = load_20newsgroups()
    SynTF(n_words=5, vocabulary=["cat", "dog"], random_state=0).fit([]).transform(["cat"])  # load cached kernels
    started = time.perf_counter()
    model = SynTF(epsilon=69.0, n_words=n_words, bigram_weight=0.3, max_features=max_features, random_state=seed).fit(
        corpus.texts
    )
    fitted = time.perf_counter()
    counts = model.term_counts(corpus.texts)
    counted = time.perf_counter()
    synthetic = model.synthesize(counts)
    done = time.perf_counter()
    assert synthetic.shape[0] == len(corpus) and (np.asarray(synthetic.sum(axis=1)).ravel() == n_words).all()
    sampled_words = n_words * len(corpus)

    # the paper's way: one categorical draw per sampled word from a precomputed row of pi
    rng = np.random.default_rng(seed)
    nonempty = np.flatnonzero(np.diff(counts.indptr) > 0)
    docs = rng.choice(nonempty, size=reference_words)
    sources = np.concatenate([model._sample_sources(counts[d], rng.random((1, 1)))[0] for d in docs])
    rows = np.exp(model.mechanism_.log_probabilities(sources))  # precomputed, not timed
    L = rows.shape[1]
    tick = time.perf_counter()
    for row in rows:
        rng.choice(L, p=row)
    per_word_reference = (time.perf_counter() - tick) / reference_words
    per_word_ours = (done - counted) / sampled_words
    return {
        "documents": len(corpus),
        "vocabulary_size": L,
        "n_words": n_words,
        "fit_s": fitted - started,
        "term_counts_s": counted - fitted,
        "synthesize_s": done - counted,
        "total_s": done - started,
        "docs_per_s_synthesize": len(corpus) / (done - counted),
        "docs_per_s_total": len(corpus) / (done - started),
        "us_per_word_ours": 1e6 * per_word_ours,
        "us_per_word_reference": 1e6 * per_word_reference,
        "reference_corpus_s_extrapolated": per_word_reference * sampled_words,
        "speedup_per_word": per_word_reference / per_word_ours,
    }


def _numpy_loss(mechanism, block_rows: int = 1024) -> float:
    """Plain blocked float32 numpy: the baseline the kernels replace."""
    E = mechanism.unit_vectors
    incidence = mechanism.bigrams.incidence.astype(np.float32)
    sizes = mechanism.bigrams.set_sizes.astype(np.float32)
    s, eps = mechanism.bigram_weight, mechanism.epsilon
    L = E.shape[0]
    col_max = np.full(L, -np.inf, np.float32)
    col_min = np.full(L, np.inf, np.float32)
    for start in range(0, L, block_rows):
        rows = np.arange(start, min(L, start + block_rows))
        cos = E[rows] @ E.T
        shared = (incidence[rows] @ incidence.T).toarray()
        dice = 2 * shared / np.maximum(sizes[rows, None] + sizes[None, :], 1)
        dice[np.arange(len(rows)), rows] = 1.0
        a = (eps / (2 * (1 + s)) * ((cos + 1) / 2 - s * dice + s)).astype(np.float32)
        top = a.max(axis=1, keepdims=True)
        log_z = top + np.log(np.exp(a - top).sum(axis=1, keepdims=True))
        np.maximum(col_max, (a - log_z).max(axis=0), out=col_max)
        np.minimum(col_min, (a - log_z).min(axis=0), out=col_min)
    return float((col_max - col_min).max())


def _rss_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field))


def loss_child(size: int, implementation: str) -> dict:
    """Runs in a fresh process: fit the vocabulary, then time the exact loss and its peak memory."""
    from authorguard.data.newsgroups import load_20newsgroups
    from authorguard.methods.syntf import SynTF

    SynTF(n_words=5, vocabulary=["cat", "dog"], random_state=0).fit([]).loss_per_word()  # load cached kernels
    corpus = load_20newsgroups()
    model = SynTF(epsilon=69.0, bigram_weight=0.3, max_features=size).fit(corpus.texts)
    del corpus
    mechanism = model.mechanism_
    with open("/proc/self/clear_refs", "w") as refs:  # reset the peak-RSS counter (VmHWM)
        refs.write("5")
    before = _rss_kib("VmRSS:")
    tick = time.perf_counter()
    loss = mechanism.loss_per_word() if implementation == "kernels" else _numpy_loss(mechanism)
    seconds = time.perf_counter() - tick
    peak = _rss_kib("VmHWM:")
    return {
        "implementation": implementation,
        "vocabulary_size": mechanism.vocabulary_size,
        "loss_per_word": loss,
        "seconds": seconds,
        "rss_before_mib": before / 1024,
        "peak_rss_mib": peak / 1024,
        "peak_increase_mib": (peak - before) / 1024,
    }


def make_zipf_input(
    folder: str, dims: list[int], documents: int = 20_000, tokens: int = 120, size: int = 30_000, seed: int = 0
) -> tuple[str, dict[int, str]]:
    """Documents of real English words (GloVe's most frequent alphabetic non-stop words), drawn from a Zipf law
    (p_k ∝ 1/k), and a GloVe-format file of random vectors of each dimension for those words."""
    from authorguard.embeddings.loading import load_word_vectors
    from authorguard.text.resources import english_stop_words

    stop = english_stop_words()
    words = []
    for word in load_word_vectors("glove-6b-50d").words:
        if word.isalpha() and len(word) > 1 and word not in stop:
            words.append(word)
            if len(words) == size:
                break
    rng = np.random.default_rng(seed)
    vector_files = {}
    for dim in dims:
        path = os.path.join(folder, f"vectors{dim}.txt")
        with open(path, "w", encoding="utf-8") as handle:
            for word, vector in zip(words, rng.standard_normal((size, dim))):
                handle.write(word + " " + " ".join(f"{x:.4f}" for x in vector) + "\n")
        vector_files[dim] = path
    probabilities = 1.0 / np.arange(1, size + 1)
    probabilities /= probabilities.sum()
    documents_path = os.path.join(folder, "documents.jsonl")
    with open(documents_path, "w", encoding="utf-8") as handle:
        for i, draw in enumerate(rng.choice(size, size=(documents, tokens), p=probabilities)):
            handle.write(json.dumps({"id": f"d{i}", "text": " ".join(words[j] for j in draw)}) + "\n")
    return documents_path, vector_files


def whole_process(documents_path: str, vector_file: str, reference_words: int, seed: int) -> dict:
    """Time ``authorguard syntf`` as a user runs it, then the paper's per-word sampling on the same mechanism."""
    output = os.path.join(os.path.dirname(documents_path), "released.jsonl")
    command = [
        sys.executable,
        "-m",
        "authorguard.cli.app",
        "syntf",
        documents_path,
        "-o",
        output,
        "--embeddings",
        vector_file,
        "--epsilon",
        "47.5",
        "--n-words",
        "150",
        "--bigram-weight",
        "0.3",
        "--morphology",
        "orth",
        "--seed",
        str(seed),
        "--json",
    ]
    tick = time.perf_counter()
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - tick
    report = json.loads(result.stdout[: result.stdout.rindex("}") + 1])

    tick = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import authorguard.cli.app, authorguard.cli.syntf, authorguard.methods.syntf, "
            "authorguard.privacy._kernels",
        ],
        check=True,
    )
    start_up = time.perf_counter() - tick

    from pathlib import Path

    from authorguard.cli.syntf import write_output
    from authorguard.data.io import read_records
    from authorguard.embeddings.loading import load_word_vectors
    from authorguard.methods.syntf import SynTF

    # the same steps in this process, timed one by one: where the whole command's time goes
    steps = {"start_up_s": start_up}
    tick = time.perf_counter()
    records = read_records(documents_path)
    texts = records.texts
    steps["read_s"] = time.perf_counter() - tick
    tick = time.perf_counter()
    load_word_vectors(vector_file)
    steps["load_vectors_s"] = time.perf_counter() - tick
    model = SynTF(
        epsilon=47.5,
        n_words=150,
        bigram_weight=0.3,
        morphology="orth",
        embeddings=vector_file,
        random_state=seed,
        n_jobs=-1,  # as the command does
    )
    tick = time.perf_counter()
    counts = model.fit_term_counts(texts)
    steps["tokenise_and_fit_s"] = time.perf_counter() - tick - steps["load_vectors_s"]  # fit loads the vectors again
    tick = time.perf_counter()
    released = model.synthesize(counts)
    steps["one_pass_s"] = time.perf_counter() - tick
    tick = time.perf_counter()
    write_output(Path(output), records.ids, released, model.get_feature_names_out())
    steps["write_jsonl_s"] = time.perf_counter() - tick
    rng = np.random.default_rng(seed)
    docs = rng.choice(len(texts), size=reference_words)
    sources = np.concatenate([model._sample_sources(counts[d].astype(np.float64), rng.random((1, 1)))[0] for d in docs])
    rows = np.exp(model.mechanism_.log_probabilities(sources))  # precomputed, not timed
    tick = time.perf_counter()
    for row in rows:
        rng.choice(rows.shape[1], p=row)
    per_word = (time.perf_counter() - tick) / reference_words
    reference_s = per_word * 150 * len(texts)
    return {
        "dim": model.mechanism_.unit_vectors.shape[1],
        "documents": len(texts),
        "vocabulary_size": report["vocabulary_size"],
        "loss_per_word": report["loss_per_word"],
        "wall_s": wall,
        "reference_us_per_word": 1e6 * per_word,
        "reference_s_extrapolated": reference_s,
        "speedup_whole_process": reference_s / wall,
        **steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000])
    parser.add_argument("--n-words", type=int, default=150)
    parser.add_argument("--max-features", type=int, default=30_000)
    parser.add_argument("--reference-words", type=int, default=2000)
    parser.add_argument("--no-numpy-baseline", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parts", nargs="+", default=["a", "b", "c"], choices=["a", "b", "c"])
    parser.add_argument("--dims", type=int, nargs="+", default=[100, 300], help="(c): vector dimensions")
    parser.add_argument("--child", nargs=2, metavar=("SIZE", "IMPLEMENTATION"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(loss_child(int(args.child[0]), args.child[1])))
        return
    print(f"machine: {machine()}")
    if "a" in args.parts:
        result = transform_throughput(args.n_words, args.max_features, args.reference_words, args.seed)
        print("(a) transform:", json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in result.items()}))
    if "c" in args.parts:
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            documents, vector_files = make_zipf_input(folder, args.dims, seed=args.seed)
            for dim in args.dims:
                row = whole_process(documents, vector_files[dim], args.reference_words, args.seed)
                print(
                    "(c) whole process:",
                    json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}),
                )
    implementations = ["kernels"] + ([] if args.no_numpy_baseline else ["numpy"])
    for size in args.sizes if "b" in args.parts else []:
        for implementation in implementations:
            output = subprocess.run(
                [sys.executable, __file__, "--child", str(size), implementation],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            row = json.loads(output.strip().splitlines()[-1])
            print(
                "(b) exact loss:", json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
            )


if __name__ == "__main__":
    main()
