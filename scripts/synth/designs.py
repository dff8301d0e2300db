"""Design experiments for the author-level release on cached counts (the figures of docs/results/synth.md's
"Tried next" table): count once, then try a weighting, budget, threshold, mixture, clustering or number of
synthetic documents in seconds.

    AUTHORGUARD_DATA=../shared/data python scripts/synth/designs.py cache 20news          # writes /tmp/synth-20news.pkl
    AUTHORGUARD_DATA=../shared/data python scripts/synth/designs.py run /tmp/synth-20news.pkl 4 seed=0 mult=5 th=0

Options of ``run`` (key=value): seed, weight (tf | binary | sqrt | log), idf (power of log public rank), st / sc /
scl / sl (budget shares of terms, clusters, classes, lengths), th (threshold in noise deviations), mix (word-level
share), pooled (1: spread cluster masses by the pooled noisy word sums), k (recluster the vocabulary), mult
(synthetic documents per counted one), orig (1: also the original-trained scores). Prints one JSON line: TSTR NB
and SVM, the direct naive Bayes of the distributions, and nearest-centroid (Rocchio) on the noisy and the clean sums.
"""

# ruff: noqa: E731
import json
import pickle
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp


def cache() -> None:
    import numpy as np
    from tstr import _corpus

    from authorguard.methods.author_synth import _cut, chosen_documents, public_vocabulary, word_clusters
    from authorguard.text.analysis import TermAnalyzer
    from authorguard.text.counting import count_terms

    sys.path.insert(0, str(Path(__file__).parent))

    name = sys.argv[2]
    task = sys.argv[3] if len(sys.argv) > 3 else "age_group"
    (texts, authors, labels), (tt, tl) = _corpus(name, task)
    an = TermAnalyzer("lower")
    vocab, ranks = public_vocabulary(10000, an)
    clusters = word_clusters(vocab, 500)
    chosen = chosen_documents(authors, list(range(len(texts))), 10, 12345)
    cut = [_cut(texts[i], 500) for i in chosen]
    C = count_terms(cut, an, vocab)[0].tocsr()
    full = count_terms(texts, an, vocab)[0].tocsr()
    T = count_terms(tt, an, vocab)[0].tocsr()
    classes = sorted(set(map(str, labels)))
    li = {c: k for k, c in enumerate(classes)}
    y = np.array([li[str(labels[i])] for i in chosen])
    yfull = np.array([li[str(v)] for v in labels])
    yt = np.array([li[str(v)] for v in tl])
    owner = np.unique(np.array([str(authors[i]) for i in chosen], dtype=object), return_inverse=True)[1]
    with open(f"/tmp/synth-{name}.pkl", "wb") as handle:
        pickle.dump(
            {
                "vocab": vocab,
                "ranks": ranks,
                "clusters": clusters,
                "C": C,
                "y": y,
                "owner": owner,
                "full": full,
                "yfull": yfull,
                "T": T,
                "yt": yt,
                "classes": classes,
            },
            handle,
        )
    print(C.shape, T.shape, owner.max() + 1)


def run() -> None:
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    from authorguard.methods.author_synth import (
        _rows_normalised,
        _thresholded,
        author_sums,
        length_edges,
        spread_over_words,
    )
    from authorguard.privacy.author_level import AuthorBound, calibrate

    with open(sys.argv[2], "rb") as handle:
        D = pickle.load(handle)
    eps = float(sys.argv[3])
    opt = dict(a.split("=") for a in sys.argv[4:])
    g = lambda k, d: type(d)(opt.get(k, d))
    seed = g("seed", 0)
    rng = np.random.default_rng(seed)
    C, y, owner, clusters, ranks = D["C"], D["y"], D["owner"], D["clusters"], D["ranks"]
    if "k" in opt:
        from authorguard.methods.author_synth import word_clusters

        clusters = word_clusters(D["vocab"], int(opt["k"]))
    L, V = len(D["classes"]), C.shape[1]
    weight = g("weight", "tf")
    X = C.astype(float)
    if weight == "binary":
        X.data[:] = 1.0
    elif weight == "sqrt":
        X.data = np.sqrt(X.data)
    elif weight == "log":
        X.data = 1 + np.log(X.data)
    idfpow = g("idf", 0.0)
    if idfpow:
        X = X @ sp.diags((np.log(ranks + 10.0)) ** idfpow)
    bound = AuthorBound(10, 500, 1.0)
    nclu = clusters.max() + 1
    by_cluster = sp.csr_matrix((np.ones(V), (np.arange(V), clusters)), shape=(V, nclu))
    terms = np.asarray(author_sums(X, owner, y, L, 1.0).sum(0)).reshape(L, V)
    Xc = X @ by_cluster
    clus = np.asarray(author_sums(Xc, owner, y, L, 1.0).sum(0)).reshape(L, nclu)
    classes_ = np.bincount(y, minlength=L).astype(float)
    edges = length_edges(500)
    tl = np.asarray(C.sum(1)).ravel()
    bins = np.minimum(np.searchsorted(edges, tl, side="right") - 1, len(edges) - 2)
    lengths = np.bincount(bins, minlength=len(edges) - 1).astype(float)
    shares = {"terms": g("st", 0.45), "clusters": g("sc", 0.45), "classes": g("scl", 0.05), "lengths": g("sl", 0.05)}
    sizes = {"terms": L * V, "clusters": L * nclu, "classes": L, "lengths": len(lengths)}
    scales, _ = calibrate(eps, 1e-5, bound, sizes, shares)
    noisy = {
        k: v + rng.normal(0, scales[k], v.shape)
        for k, v in {"terms": terms, "clusters": clus, "classes": classes_, "lengths": lengths}.items()
    }
    th = g("th", 3.0)
    mix = g("mix", 0.5)
    fine = _thresholded(noisy["terms"], th * scales["terms"])
    coarse = _thresholded(noisy["clusters"], th * scales["clusters"])
    spread = spread_over_words(coarse, clusters, ranks)
    if g("pooled", 0):
        pooled = np.clip(noisy["terms"].sum(0), 0, None)
        if g("pooled", 0) == 2:
            pooled = np.where(noisy["terms"].sum(0) > th * scales["terms"] * np.sqrt(L), pooled, 0)
        ptot = np.bincount(clusters, weights=pooled, minlength=nclu)
        within = np.where(ptot[clusters] > 0, pooled / np.maximum(ptot[clusters], 1e-12), 0)
        spread = coarse[:, clusters] * within
    mixed = mix * _rows_normalised(fine) + (1 - mix) * _rows_normalised(spread)
    P = _rows_normalised(mixed)
    # undo term weighting? sampling counts from weighted mass distribution
    if g("unweight", 0) and idfpow:
        P = _rows_normalised(P / (np.log(ranks + 10.0)) ** idfpow)
    cd = _rows_normalised(np.clip(noisy["classes"], 0, None)[None])[0]
    ld = np.clip(noisy["lengths"], 0, None)
    ld[0] = 0
    ld = ld / ld.sum()
    n = int(g("mult", 1.0) * classes_.sum())
    lab = rng.choice(L, size=n, p=cd)
    b = rng.choice(len(edges) - 1, size=n, p=ld)
    lens = rng.integers(edges[b], np.minimum(edges[b + 1], 501))
    rows = []
    for k, m in zip(lab, lens):
        rows.append(rng.multinomial(int(m), P[k]))
    S = sp.csr_matrix(np.array(rows))
    out = {"eps": eps, **opt}
    T, yt = D["T"], D["yt"]
    # direct NB from P
    logp = np.log(P + 1e-9)
    prior = np.log(cd + 1e-9)
    out["direct"] = float(np.mean(np.argmax(T @ logp.T + prior, 1) == yt))
    for nm, mdl in (("nb", MultinomialNB(alpha=0.01)), ("svm", LinearSVC())):
        f = make_pipeline(TfidfTransformer(), mdl).fit(S, lab)
        out[nm] = round(float(np.mean(f.predict(T) == yt)), 4)
    if g("orig", 0):
        for nm, mdl in (("onb", MultinomialNB(alpha=0.01)), ("osvm", LinearSVC())):
            f = make_pipeline(TfidfTransformer(), mdl).fit(D["full"], D["yfull"])
            out[nm] = round(float(np.mean(f.predict(T) == yt)), 4)
    out["kept"] = int(np.count_nonzero(fine))
    U = sp.diags(1 / np.maximum(np.sqrt(np.asarray(T.multiply(T).sum(1)).ravel()), 1e-9)) @ T
    R = noisy["terms"]
    out["rocchio_raw"] = round(
        float(np.mean(np.argmax(U @ (R / np.linalg.norm(R, axis=1, keepdims=True)).T, 1) == yt)), 4
    )
    R0 = terms
    out["rocchio_clean"] = round(
        float(np.mean(np.argmax(U @ (R0 / np.linalg.norm(R0, axis=1, keepdims=True)).T, 1) == yt)), 4
    )
    # a real message's score against its class and the best other one, on the clean sums (the noise's sd: scale)
    scores = np.asarray(U @ terms.T)
    own = scores[np.arange(len(yt)), yt]
    other = np.where(np.eye(L, dtype=bool)[yt], -np.inf, scores).max(axis=1)
    out["score_own_median"], out["score_other_median"] = (
        round(float(np.median(own)), 2),
        round(float(np.median(other)), 2),
    )
    out["noise_sd"] = round(float(scales["terms"]), 3)
    print(json.dumps(out), flush=True)


def select() -> None:
    """A DP selection of the vocabulary: a share of the word budget releases the class sums, the K words with the
    largest noisy class sum are kept, the rest of the budget releases class sums of the author vectors restricted
    to those words and renormalised (words only, no clusters). ``select CACHE SHARE K SEED``."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    from authorguard.methods.author_synth import _rows_normalised, author_sums

    with open(sys.argv[2], "rb") as handle:
        D = pickle.load(handle)
    C, y, owner, T, yt = D["C"].astype(float), D["y"], D["owner"], D["T"], D["yt"]
    L, V = len(D["classes"]), C.shape[1]
    sig_total = 1.158  # OpenDP's total sigma at epsilon 4, delta 1e-5, for sensitivity 1

    # total sigma at eps 4 (all of rho on one sensitivity-1 release)
    def run(share1, K, seed, th=3.0, mult=1):
        rng = np.random.default_rng(seed)
        # budget in rho: ~10% to classes/lengths; terms phases split the rest
        rho_terms = 0.9 / (2 * sig_total**2)
        s1 = 1 / np.sqrt(2 * rho_terms * share1)
        s2 = 1 / np.sqrt(2 * rho_terms * (1 - share1))
        S1 = np.asarray(author_sums(C, owner, y, L, 1.0).sum(0)).reshape(L, V) + rng.normal(0, s1, (L, V))
        # selection: words whose noisy max over classes is largest (post-processing of phase 1)
        score = S1.max(0)
        sel = np.argsort(-score)[:K]
        Cs = C[:, sel]
        S2 = np.asarray(author_sums(Cs, owner, y, L, 1.0).sum(0)).reshape(L, K) + rng.normal(0, s2, (L, K))
        fine = np.where(S2 - th * s2 > 0, S2, 0)
        P = np.zeros((L, V))
        P[:, sel] = _rows_normalised(fine)
        n = int(mult * len(y))
        lab = rng.choice(L, size=n, p=np.bincount(y) / len(y))
        lens = rng.integers(20, 200, size=n)
        S = sp.csr_matrix(np.array([rng.multinomial(int(m), P[k]) for k, m in zip(lab, lens)]))
        out = {"share1": share1, "K": K, "seed": seed, "th": th, "kept": int(np.count_nonzero(fine))}
        for nm, mdl in (("nb", MultinomialNB(alpha=0.01)), ("svm", LinearSVC())):
            f = make_pipeline(TfidfTransformer(), mdl).fit(S, lab)
            out[nm] = round(float(np.mean(f.predict(T) == yt)), 4)
        print(json.dumps(out), flush=True)

    run(float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))


def shrink() -> None:
    """Empirical-Bayes shrinkage instead of the threshold: each noisy class x word sum pulled towards a prior (the
    class's noisy cluster mass spread by the pooled noisy word sums), by the share of its residual's variance that
    is not noise, per pooled-frequency decile. ``shrink CACHE [K]``: nearest-centroid and TSTR, seeds 0 and 1."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    from authorguard.methods.author_synth import _rows_normalised, author_sums, word_clusters

    with open(sys.argv[2], "rb") as handle:
        D = pickle.load(handle)
    C, y, owner, T, yt = D["C"].astype(float), D["y"], D["owner"], D["T"], D["yt"]
    L, V = len(D["classes"]), C.shape[1]
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    clusters = word_clusters(D["vocab"], k)
    B = sp.csr_matrix((np.ones(V), (np.arange(V), clusters)), shape=(V, k))
    rho = 0.9 / (2 * 1.158**2)
    s_t = 1 / np.sqrt(2 * rho * 0.5)
    s_c = s_t
    St = np.asarray(author_sums(C, owner, y, L, 1.0).sum(0)).reshape(L, V)
    Sc = np.asarray(author_sums(C @ B, owner, y, L, 1.0).sum(0)).reshape(L, k)
    U = sp.diags(1 / np.maximum(np.sqrt(np.asarray(T.multiply(T).sum(1)).ravel()), 1e-9)) @ T

    def rocchio(M):
        return round(
            float(
                np.mean(
                    np.asarray(U @ (M / np.maximum(np.linalg.norm(M, axis=1, keepdims=True), 1e-9)).T).argmax(1) == yt
                )
            ),
            4,
        )

    def tstr(P, rng, mult=1):
        n = int(mult * len(y))
        lab = rng.choice(L, size=n, p=np.bincount(y) / len(y))
        lens = np.asarray(C.sum(1)).ravel().astype(int)
        lens = rng.choice(np.maximum(lens, 1), size=n)
        S = sp.csr_matrix(np.array([rng.multinomial(int(m), P[c]) for c, m in zip(lab, lens)]))
        out = {}
        for nm, mdl in (("nb", MultinomialNB(alpha=0.01)), ("svm", LinearSVC())):
            f = make_pipeline(TfidfTransformer(), mdl).fit(S, lab)
            out[nm] = round(float(np.mean(f.predict(T) == yt)), 4)
        return out

    for seed in (0, 1):
        rng = np.random.default_rng(seed)
        Nt = St + rng.normal(0, s_t, St.shape)
        Nc = Sc + rng.normal(0, s_c, Sc.shape)
        pooled = np.clip(Nt.sum(0), 0, None)
        ptot = np.bincount(clusters, weights=pooled, minlength=k)
        within = np.where(ptot[clusters] > 0, pooled / np.maximum(ptot[clusters], 1e-12), 0)
        # prior for each class-word cell: the class's cluster mass (noisy) spread by pooled within-cluster shares,
        # rescaled from cluster-norm units to word units by matching total mass per class
        prior = np.clip(Nc, 0, None)[:, clusters] * within
        # scale prior to the word-sum units by least squares on all cells
        a = float((prior * Nt).sum() / (prior * prior).sum())
        prior *= a
        resid = Nt - prior
        # per pooled-frequency band: lambda = max(0, var(resid) - s^2) / var(resid)
        band = np.digitize(np.log1p(pooled), np.quantile(np.log1p(pooled), np.linspace(0, 1, 11)[1:-1]))
        lam = np.zeros(V)
        for b in range(10):
            idx = band == b
            v = resid[:, idx].var()
            lam[idx] = max(0.0, v - s_t**2) / v if v > 0 else 0
        shrunk = prior + lam[None, :] * resid
        out = {
            "seed": seed,
            "k": k,
            "a": round(a, 2),
            "lam": [round(float(x), 2) for x in np.unique(lam)][:10],
            "rocchio_noisy": rocchio(Nt),
            "rocchio_prior": rocchio(prior),
            "rocchio_shrunk": rocchio(shrunk),
            "rocchio_clean": rocchio(St),
        }
        P = _rows_normalised(np.clip(shrunk, 0, None))
        out["tstr_shrunk"] = tstr(P, rng)
        P2 = _rows_normalised(np.clip(prior, 0, None))
        out["tstr_prior"] = tstr(P2, rng)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    {"cache": cache, "run": run, "select": select, "shrink": shrink}[sys.argv[1]]()
