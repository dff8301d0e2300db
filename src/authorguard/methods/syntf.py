"""SynTF: differentially private synthetic term-frequency vectors.

Given a document T and a vocabulary V (|V| = L):

1. vectorise T into term frequencies t over V (tokenise; morphology; drop stop words and numbers);
2. theta = t / ||t||_1 (a document without any vocabulary word gets the uniform theta, so its output does not
   depend on its content and the guarantee still holds);
3. draw n words v_1..v_n from Cat(theta) and replace each v_i by w_i drawn by the exponential mechanism
   pi[v_i, w] ∝ exp(epsilon * rho(v_i, w) / 2), rho = ((cos + 1)/2 - s * Dice + s) / (1 + s);
4. release the counts s ∈ N^L of w_1..w_n (each row sums to n).

Step 3 is done per source word across the whole batch: every distinct source word's row of pi is computed
once (streamed in blocks, never L x L in memory) and all its draws are made from that row by inverse CDF. When
the batch needs most rows anyway and the exact loss is not known yet, the same pass runs over every row and
also yields the loss, so releasing a corpus and accounting for it cost one pass over the mechanism.
Randomness comes from uniform variates (seeded generator or OS CSPRNG), two per sampled word.

The rating is the paper's (Section 4.1.2) in a normalised form: the paper's rho = cos - s_paper * B with
pi ∝ exp(epsilon_paper * rho / 2) is this mechanism with **s = s_paper / 2** and epsilon = 2 (1 + s) epsilon_paper
(the paper's optimum s_paper = 0.3 is ``bigram_weight=0.15``). Compare settings at equal exact loss per word.

References
----------
.. [WK18] Weggenmann & Kerschbaum, "SynTF: Synthetic and Differentially Private Term Frequency Vectors
   for Privacy-Preserving Text Mining", SIGIR 2018.
"""

from __future__ import annotations

import copy
import os
from collections import Counter
from collections.abc import Callable, Iterable

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from authorguard.base import VectorMechanism
from authorguard.data.io import read_word_list
from authorguard.embeddings.base import WordVectors
from authorguard.embeddings.loading import DEFAULT_EMBEDDINGS, load_word_vectors
from authorguard.exceptions import InputError
from authorguard.methods import syntf_defaults as defaults
from authorguard.methods.syntf_params import EMBEDDINGS_VOCABULARY, check_syntf_parameters
from authorguard.privacy.accounting import SynTFPrivacyReport
from authorguard.privacy.mechanism import ExponentialMechanism
from authorguard.text.analysis import TermAnalyzer, wordnet_synonyms
from authorguard.text.counting import PendingCounts, count_terms
from authorguard.utils.random import (
    GeneratorUniforms,
    RandomState,
    RecordUniforms,
    SecureUniforms,
    UniformSource,
    as_generator,
    uniform_source,
)
from authorguard.utils.validation import check_number, check_texts


class SynTF(VectorMechanism):
    """Differentially private synthetic term-frequency vectors [WK18] as a scikit-learn transformer.

    Parameters
    ----------
    epsilon : float, default=54.0
        Privacy parameter of the exponential mechanism, per sampled word. Must be in (0, inf).
        The release of one document costs at most ``epsilon * n_words`` (see :meth:`privacy_report` for the
        improved and the exact, tight bound). The default gives the paper's exact loss of about 25.4 per word
        with GloVe 6B 50d and s = 0 (see :mod:`authorguard.methods.syntf_defaults` for the measurements).
    n_words : int, default=150
        Words sampled per output vector (each output row sums to this). Must be >= 1.
    bigram_weight : float, default=0.0
        ``s``, weight of the letter-bigram penalty in the rating. Must be in [0, 1]. The paper's s is twice
        this (its optimum 0.3 is 0.15 here); s = 0 kept the most topic at equal loss in our measurements.
    morphology : {"lemma", "lower", "orth"}, default="lemma"
    synsets : bool, default=False
        Extend the vocabulary with WordNet synonyms of its words.
    embeddings : str, path or WordVectors, default="glove-6b-50d"
        Word vectors for the rating's cosine: a registered name, a GloVe text file, or vectors.
    vocabulary : None, "embeddings", path or iterable of str, default=None
        None fits V on the documents passed to ``fit``: convenient, but *V itself then leaks which words
        occur in the private input, which epsilon does not cover*. ``"embeddings"`` takes every word of the
        embeddings; a path names a public word-list file (one word per line); an iterable gives public words.
        Words are normalised like documents and kept when they have a vector.
    min_df : int, default=1
        With a fitted vocabulary, keep words in at least this many documents.
    max_features : int or None, default=None
        Keep only this many words that have a vector: the most frequent in the documents (fitted vocabulary),
        or the first in the public source's order (GloVe is ordered by frequency, so ``vocabulary="embeddings",
        max_features=30000`` is the 30k most frequent English words).
    random_state : int, numpy.random.Generator or None
        Seed of the sampler; resolved in ``fit`` (successive ``transform`` calls continue the stream).
    secure : bool, default=False
        Draw all randomness from the operating system's CSPRNG instead (production releases).
    n_jobs : int or None, default=None
        Processes for tokenising and counting large batches (scikit-learn's convention: None is 1, -1 every core;
        :func:`~authorguard.text.counting.count_terms`). The output does not depend on it; the pass over the
        mechanism uses numba's threads either way.

    Attributes
    ----------
    vocabulary_ : dict of str -> int
    mechanism_ : ExponentialMechanism
    vocabulary_source_ : {"fitted", "public"}
    embeddings_name_ : str
    """

    # Batch releases (``authorguard anonymize``) never fit on the private input: by default V is the 30,000 most
    # frequent GloVe words, a public vocabulary.
    batch_defaults = {"vocabulary": EMBEDDINGS_VOCABULARY, "max_features": defaults.PUBLIC_VOCABULARY_SIZE}

    def __init__(
        self,
        epsilon: float = defaults.EPSILON,
        n_words: int = defaults.N_WORDS,
        bigram_weight: float = defaults.BIGRAM_WEIGHT,
        morphology: str = defaults.MORPHOLOGY,
        synsets: bool = False,
        embeddings: str | WordVectors = DEFAULT_EMBEDDINGS,
        vocabulary=None,
        min_df: int = 1,
        max_features: int | None = None,
        random_state: RandomState = None,
        secure: bool = False,
        n_jobs: int | None = None,
    ):
        self.epsilon = epsilon
        self.n_words = n_words
        self.bigram_weight = bigram_weight
        self.morphology = morphology
        self.synsets = synsets
        self.embeddings = embeddings
        self.vocabulary = vocabulary
        self.min_df = min_df
        self.max_features = max_features
        self.random_state = random_state
        self.secure = secure
        self.n_jobs = n_jobs

    # -- fitting ---------------------------------------------------------------------------------------------

    def _validate_params(self) -> None:
        check_syntf_parameters(self.get_params(deep=False), type(self).__name__)

    def _candidate_words(self, analyzer: TermAnalyzer, document_terms) -> tuple[list[str], np.ndarray]:
        """Candidate vocabulary words with a ranking score (corpus counts, or the public source's order).

        ``document_terms``: (counts of shape (n_documents, n_terms), the n_terms words) of the documents, for a
        fitted vocabulary; None for a public one.
        """
        if self.vocabulary is None:
            counts, terms = document_terms
            frequent = np.diff(counts.tocsc().indptr) >= self.min_df  # document frequency
            if not frequent.any():
                raise InputError("no document has a vocabulary word (after removing stop words and numbers)")
            totals = np.asarray(counts.sum(axis=0)).ravel()
            return [w for w, keep in zip(terms, frequent) if keep], totals[frequent]
        if self.vocabulary == EMBEDDINGS_VOCABULARY:
            words: Iterable[str] = load_word_vectors(self.embeddings).words
        elif isinstance(self.vocabulary, (str, os.PathLike)):
            words = read_word_list(self.vocabulary)
        else:
            words = self.vocabulary
        # public sources keep their order (GloVe's is by corpus frequency): earlier words rank higher
        ordered: dict[str, None] = {}
        enough = None if self.max_features is None else 2 * self.max_features  # margin for words without vectors
        for word in words:
            normalized = analyzer.normalize_word(word)
            if normalized:
                ordered[normalized] = None
                if enough is not None and len(ordered) >= enough:
                    break  # normalising all 400k GloVe words would dominate fit time
        return list(ordered), np.arange(len(ordered), 0, -1, dtype=np.float64)

    def fit(self, raw_documents, y=None):
        """Build the vocabulary (from ``raw_documents`` unless a public one is given) and the mechanism.

        V = the candidate words that have an embedding vector; with ``max_features``, the top-ranked of them;
        with ``synsets``, extended by their WordNet synonyms that have vectors.

        Parameters
        ----------
        raw_documents : iterable of str
        """
        self._fit(raw_documents)
        return self

    def fit_term_counts(self, raw_documents, counted: PendingCounts | None = None) -> sp.csr_matrix:
        """``fit``, then the documents' :meth:`term_counts`, tokenising each document once (not once per step).

        ``counted``: the documents' own term counts, already started by
        :func:`~authorguard.text.counting.start_counting` with this model's analyzer (:meth:`build_analyzer`) and
        no vocabulary — so that a caller overlaps the counting with other work; the result is the same.
        """
        if counted is not None and (
            counted.vocabulary is not None or vars(counted.analyzer) != vars(self.build_analyzer())
        ):
            raise InputError(
                "counted must come from start_counting(texts, model.build_analyzer()) without a vocabulary"
            )
        terms = self._fit(raw_documents, counted)
        if terms is None:
            if counted is None:
                return self.term_counts(raw_documents)
            terms = counted.result()
        counts, words = terms
        if counted is not None and counts.shape[0] != len(raw_documents):
            raise InputError(f"counted has {counts.shape[0]} documents, raw_documents {len(raw_documents)}")
        # re-index the fitted counts by the vocabulary's columns; words outside V are dropped as term_counts does
        column_of_word = {w: j for j, w in enumerate(words)}
        columns = np.array([column_of_word.get(w, -1) for w in self.vocabulary_], dtype=np.int64)
        present = columns >= 0
        selector = sp.csr_matrix(
            (np.ones(int(present.sum()), dtype=np.int64), (columns[present], np.flatnonzero(present))),
            shape=(len(words), len(self.vocabulary_)),
        )
        matrix = (counts @ selector).astype(np.int64).tocsr()
        matrix.sort_indices()
        return matrix

    def fit_transform(self, raw_documents, y=None, **fit_params) -> sp.csr_matrix:
        """``fit(X).transform(X)`` with one tokenisation of X: csr_matrix of shape (n_documents, L)."""
        return self.synthesize(self.fit_term_counts(raw_documents))

    def build_analyzer(self) -> TermAnalyzer:
        """The callable that turns a document into its terms (tokens, morphology, no stop words or numbers)."""
        return TermAnalyzer(self.morphology)

    def _fit(self, raw_documents, counted: PendingCounts | None = None):
        """Fit; returns (document-term counts, their column words) when the vocabulary was fitted on the
        documents (their one tokenisation, or ``counted``'s), else None."""
        self._validate_params()
        analyzer = self.build_analyzer()
        document_terms = None
        if self.vocabulary is None:
            texts = check_texts(raw_documents, type(self).__name__)
            try:
                document_terms = counted.result() if counted else count_terms(texts, analyzer, n_jobs=self.n_jobs)
            except ValueError:
                raise InputError("no document has a vocabulary word (after removing stop words and numbers)") from None
        candidates, frequencies = self._candidate_words(analyzer, document_terms)
        vectors = load_word_vectors(self.embeddings, vocabulary=candidates)
        has_vector = np.array([w in vectors for w in candidates], dtype=bool)
        words = [w for w, keep in zip(candidates, has_vector) if keep]
        if self.max_features is not None and len(words) > self.max_features:
            kept = frequencies[has_vector]
            order = np.lexsort((np.arange(len(words)), -kept))[: self.max_features]  # most frequent, ties by name
            words = [words[i] for i in order]
        words = sorted(words)
        if self.synsets and words:
            normalized = (analyzer.normalize_word(syn) for word in words for syn in wordnet_synonyms(word.lower()))
            synonyms = sorted({w for w in normalized if w is not None} - set(words))
            extra = load_word_vectors(self.embeddings, vocabulary=synonyms)
            words = sorted(set(words) | {w for w in synonyms if w in extra})
            vectors = load_word_vectors(self.embeddings, vocabulary=words)
        if not words:
            raise InputError("no vocabulary word has an embedding vector: check the embeddings and the morphology")
        self.vocabulary_ = {w: i for i, w in enumerate(words)}
        self.vocabulary_source_ = "fitted" if self.vocabulary is None else "public"
        self.embeddings_name_ = vectors.name
        self.mechanism_ = ExponentialMechanism.from_words(words, vectors, self.epsilon, self.bigram_weight)
        self._analyzer = analyzer
        self._uniform_source: UniformSource = uniform_source(self.random_state, self.secure)
        self._loss_per_word: float | None = None
        return document_terms

    # -- releasing -------------------------------------------------------------------------------------------

    def term_counts(self, raw_documents) -> sp.csr_matrix:
        """Term counts over the vocabulary: csr_matrix of shape (n_documents, L), int64."""
        check_is_fitted(self, "mechanism_")
        texts = check_texts(raw_documents, type(self).__name__)
        return count_terms(texts, self._analyzer, vocabulary=self.vocabulary_, n_jobs=self.n_jobs)[0]

    def synthesize(
        self,
        term_counts: sp.csr_matrix,
        random_state: RandomState | UniformSource | None = None,
        on_progress: Callable[[int], None] | None = None,
    ) -> sp.csr_matrix:
        """Synthetic counts from term counts (step 3): csr_matrix of shape (n_documents, L), rows summing to n.

        One pass over the rows of the mechanism that the batch needs. When it needs at least a quarter of them
        and the exact loss is not known yet, the pass covers every row and caches the loss as well (the
        output is the same either way).

        Parameters
        ----------
        term_counts : sparse matrix of shape (n_documents, L)
            Non-negative counts; an all-zero row gets the uniform distribution over V.
        random_state : int, Generator, UniformSource or None
            Where the 2 * n uniforms per document come from; None continues the stream resolved in ``fit``.
        on_progress : callable, optional
            Called with the number of mechanism rows done after each streamed block.
        """
        check_is_fitted(self, "mechanism_")
        counts = sp.csr_matrix(term_counts, dtype=np.float64)
        counts.sum_duplicates()  # canonical form (sorted columns): draws must not depend on storage order
        n_documents, n_vocabulary = counts.shape
        if n_vocabulary != len(self.vocabulary_):
            raise InputError(
                f"term_counts has {n_vocabulary} columns, the vocabulary has {len(self.vocabulary_)} words"
            )
        if counts.nnz and counts.data.min() < 0:
            raise InputError("term_counts must be non-negative")
        source = self._resolve_uniforms(random_state)
        n = int(self.n_words)
        draws = source.uniforms(2 * n * n_documents).reshape(n_documents, 2, n)
        sources = self._sample_sources(counts, draws[:, 0, :]).ravel()
        uniforms = draws[:, 1, :].ravel()
        del draws
        needed_rows = np.count_nonzero(np.bincount(sources, minlength=n_vocabulary))  # bincount: 30x np.unique's speed
        with_loss = self._loss_per_word is None and 4 * needed_rows >= n_vocabulary
        replacements = self.mechanism_.sample(sources, uniforms, with_loss=with_loss, on_block=on_progress)
        if with_loss:
            replacements, self._loss_per_word = replacements
        rows = np.repeat(np.arange(n_documents), n)
        synthetic = sp.csr_matrix((np.ones(len(rows), dtype=np.int64), (rows, replacements)), shape=counts.shape)
        synthetic.sum_duplicates()
        return synthetic

    def reseed(self, random_state: RandomState) -> SynTF:
        """Restart the release's randomness from ``random_state`` without fitting again (the vocabulary and the
        mechanism stay)."""
        self.random_state = random_state
        if hasattr(self, "mechanism_"):
            self._uniform_source = uniform_source(random_state, self.secure)
        return self

    def _resolve_uniforms(self, random_state) -> UniformSource:
        if random_state is None:
            return self._uniform_source
        if hasattr(random_state, "uniforms"):
            return random_state
        return GeneratorUniforms(as_generator(random_state))

    @staticmethod
    def _sample_sources(counts: sp.csr_matrix, uniforms: np.ndarray) -> np.ndarray:
        """n draws per document from Cat(theta), theta = counts / row sum (uniform for empty rows): int64 array of
        the shape of ``uniforms`` (n_documents, n).

        Inverse CDF over a global cumulative sum of the counts, each document's targets offset into its own
        segment (a numba loop: the same positions as one numpy ``searchsorted`` over the batch, 3x faster).
        """
        from authorguard.privacy._kernels import sample_categorical_rows

        cumulative = np.concatenate([[0.0], np.cumsum(counts.data, dtype=np.float64)])  # sum(data[:k])
        sources = np.empty(uniforms.shape, dtype=np.int64)
        sample_categorical_rows(
            counts.indptr.astype(np.int64),
            counts.indices.astype(np.int64),
            cumulative,
            np.ascontiguousarray(uniforms, dtype=np.float64),
            counts.shape[1],
            sources,
        )
        return sources

    def transform(self, raw_documents) -> sp.csr_matrix:
        """Synthetic term-frequency vectors: csr_matrix of shape (n_documents, L), int64, rows summing to n."""
        return self.synthesize(self.term_counts(raw_documents))

    def release_term_counts(self, term_counts, record_ids, seed: int | None) -> sp.csr_matrix:
        """Synthetic vectors of term counts with per-record randomness from (``seed``, id), or the OS CSPRNG when
        seed is None: csr_matrix of shape (n_documents, L)."""
        record_ids = list(record_ids)
        if len(record_ids) != term_counts.shape[0]:
            raise InputError(f"{term_counts.shape[0]} documents but {len(record_ids)} record ids")
        source = SecureUniforms() if seed is None else RecordUniforms(seed, record_ids)
        return self.synthesize(term_counts, source)

    def fits_on_private_input(self) -> bool:
        """True with the default fitted vocabulary (V is learned from, and reveals, the documents)."""
        return self.vocabulary is None

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "mechanism_")
        return np.array(list(self.vocabulary_), dtype=object)

    # -- accounting ------------------------------------------------------------------------------------------

    def loss_per_word(self, on_progress: Callable[[int], None] | None = None) -> float:
        """Exact tight loss l of one sampled word (computed once, then cached); ``on_progress(rows)`` after each
        block of the mechanism's rows while it is computed."""
        check_is_fitted(self, "mechanism_")
        if self._loss_per_word is None:
            self._loss_per_word = self.mechanism_.loss_per_word(on_block=on_progress)
        elif on_progress is not None:
            on_progress(self.mechanism_.vocabulary_size)  # known already (the release's pass computed it)
        return self._loss_per_word

    def with_epsilon(self, epsilon: float) -> SynTF:
        """A fitted copy at another ``epsilon`` that shares this one's vocabulary, vectors and precomputed
        arrays (an epsilon grid costs one fit)."""
        check_is_fitted(self, "mechanism_")
        clone = copy.copy(self)
        clone.epsilon = check_number(epsilon, "epsilon", type(self).__name__, low=0.0)
        clone.mechanism_ = self.mechanism_.with_epsilon(clone.epsilon)
        clone._loss_per_word = None
        return clone

    def calibrate(self, target_loss: float) -> float:
        """Set ``epsilon`` so that the exact loss per word on the fitted vocabulary equals ``target_loss``.

        Compare methods at equal loss l, not equal epsilon: l depends on the embeddings, V and s. Returns the
        new epsilon (also stored as the ``epsilon`` parameter, so ``get_params`` and the report show it).
        """
        from authorguard.privacy.calibration import epsilon_for_loss

        check_is_fitted(self, "mechanism_")
        epsilon = epsilon_for_loss(self.mechanism_, target_loss)
        self.epsilon = epsilon
        self.mechanism_ = self.mechanism_.with_epsilon(epsilon)
        self._loss_per_word = None
        return epsilon

    def privacy_report(self, documents_without_vocabulary: int | None = None) -> SynTFPrivacyReport:
        """Standard, improved and tight loss of one released document, with the settings that produced it."""
        return SynTFPrivacyReport.compute(
            self.epsilon,
            self.n_words,
            len(self.vocabulary_),
            self.loss_per_word(),
            bigram_weight=float(self.bigram_weight),
            embeddings=self.embeddings_name_,
            morphology=self.morphology,
            synsets=bool(self.synsets),
            vocabulary_source=self.vocabulary_source_,
            documents_without_vocabulary=documents_without_vocabulary,
            secure_random=bool(self.secure),
        )

    def inverse_words(self, matrix: sp.spmatrix, row: int, top: int = 10) -> list[tuple[str, int]]:
        """The ``top`` most frequent words of one row of a count matrix, for display."""
        names = self.get_feature_names_out()
        data = sp.csr_matrix(matrix)[row]
        pairs = Counter({names[i]: int(c) for i, c in zip(data.indices, data.data)})
        return pairs.most_common(top)
