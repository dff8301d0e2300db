"""The Python API: each use case of the command line as one function, with the same meaning.

``import authorguard`` exposes :func:`obfuscate`, :func:`check`, :func:`assess`, :class:`RecordOutcome` and
:class:`SynTF` (loaded on first use, so the import itself stays light: no torch, no spaCy). The CLI's
``obfuscate`` and ``check`` commands call the same code.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authorguard.batch.obfuscation import RECORDS_PER_BATCH as _RECORDS_PER_BATCH
from authorguard.exceptions import InputError

if TYPE_CHECKING:  # the heavy modules are imported inside the functions
    from authorguard.base import TextObfuscator


@dataclass(frozen=True)
class RecordOutcome:
    """What became of one record: ``text`` (None when withheld); ``status``: ``rewritten``, ``normalised`` (the
    bottleneck released ``normalise``'s text of chunks it could not write), ``view`` (the bottleneck released its
    style-free view), ``kept`` (as written) or ``withheld``; ``reason``: why, when it was not simply rewritten;
    ``fidelity``: the fidelity meter's verdict on (input, text) — ``faithful``, ``generalised`` (true, less
    specific: a name by what it is, a noun by a broader one), ``partial``, ``unsure`` (the meter cannot settle it:
    never counted as faithful) or ``changed``; None when not scored (withheld, or ``fidelity=False``);
    ``fidelity_reason``: the meter's reason
    when not faithful."""

    text: str | None
    status: str
    reason: str | None = None
    fidelity: str | None = None
    fidelity_reason: str | None = None


def build_method(
    method: str,
    *,
    params: Mapping[str, Any] | None = None,
    seed: int | None = None,
    epsilon: float | None = None,
    fallback: str | None = None,
    model: str | os.PathLike | None = None,
) -> TextObfuscator:
    """The registered text method ``method`` built as ``authorguard obfuscate`` builds it: ``params`` checked
    against the method's parameters, ``epsilon`` (a DP method's document ε) and ``fallback`` (``withhold``, ``keep``
    or ``view``; default: the method's own when it never releases the input, else ``withhold``) set, seeded."""
    from authorguard.methods.build import build_text_method

    return build_text_method(
        method, dict(params or {}), seed, None if model is None else str(model), epsilon=epsilon, fallback=fallback
    )


#: records rewritten per call of the method (the pipeline's, :mod:`authorguard.batch.obfuscation`)
RECORDS_PER_BATCH = _RECORDS_PER_BATCH


def _texts(texts: Iterable[str], what: str) -> list[str]:
    if isinstance(texts, str):
        raise InputError(f"{what}: give a list of texts, not one string (wrap it: [text])")
    texts = list(texts)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputError(f"{what}: text {index} is a {type(text).__name__}, not a string")
        if not text.strip():
            raise InputError(f"{what}: text {index} is empty")
    return texts


def obfuscate(
    texts: Iterable[str],
    method: str = "normalise",
    *,
    seed: int | None = None,
    params: Mapping[str, Any] | None = None,
    epsilon: float | None = None,
    fallback: str | None = None,
    model: str | os.PathLike | None = None,
    attributes: Sequence | None = None,
    fidelity: bool = True,
    meter: str = "rules",
    progress: Callable[[int], object] | None = None,
) -> list[RecordOutcome]:
    """Rewrite each text with the registered text ``method`` (``authorguard methods`` lists them) — the Python side
    of ``authorguard obfuscate``: one :class:`RecordOutcome` per text, in order, saying what became of it and (with
    ``fidelity``) whether the released text says what the input says.

    ``seed``: a random method's seed (None: fresh randomness); ``params``: the method's parameters (unknown keys
    fail naming the key); ``epsilon``: a DP method's document ε; ``fallback``: what a record the method could not
    protect gets (``withhold``, ``keep``, ``view``); ``model``: a trained model folder (a4nt, tarot);
    ``attributes``: each text's attribute class (A⁴NT); ``meter``: the fidelity meter (``rules``, ``judge``,
    ``cross-encoder``: docs/concepts/fidelity.md); ``progress(n)``: called after every batch of n texts.

    ```pycon
    >>> import authorguard
    >>> released = authorguard.obfuscate(["i dont think its fair!!!", "The meeting is on Monday."],
    ...                                  method="normalise")
    >>> [r.text for r in released]
    ['I do not think its fair!', 'The meeting is on Monday.']
    >>> [(r.status, r.fidelity) for r in released]
    [('rewritten', 'faithful'), ('kept', 'faithful')]

    ```
    """
    from authorguard.batch.obfuscation import obfuscate_texts
    from authorguard.metrics.fidelity import check_meter, require_meter

    texts = _texts(texts, "obfuscate")
    if attributes is not None and len(attributes) != len(texts):
        raise InputError(f"obfuscate: {len(attributes)} attributes for {len(texts)} texts")
    check_meter(meter)
    text_method = build_method(method, params=params, seed=seed, epsilon=epsilon, fallback=fallback, model=model)
    if fidelity:  # a missing parser (or judge) fails now, not after the rewriting
        require_meter(meter)
    result = obfuscate_texts(
        text_method,
        texts,
        attributes=attributes,
        seed=seed,
        meter=meter if fidelity else None,
        advance=progress or (lambda n: None),
    )
    released, statuses, scores = result.texts, result.statuses, result.scores or [None] * len(texts)
    return [
        RecordOutcome(
            text,
            status["status"],
            status["reason"],
            None if score is None else score.verdict,
            None if score is None or score.verdict == "faithful" else score.reason,
        )
        for text, status, score in zip(released, statuses, scores)
    ]


@dataclass(frozen=True)
class SyntheticCorpus:
    """An author-level DP release: ``labels[i]`` and ``counts`` row i (a csr matrix, documents x ``vocabulary``
    terms) describe synthetic document i; ``privacy``: ε, δ, the unit (``"author"``), the bound, the library;
    ``bounded``: the authors and documents counted and dropped."""

    labels: list[str]
    counts: Any
    vocabulary: list[str]
    privacy: dict
    bounded: dict


def synthesise(
    texts: Sequence[str],
    authors: Sequence[object],
    labels: Sequence[object],
    *,
    epsilon: float,
    delta: float = 1e-5,
    n_documents: int | None = None,
    random_state: int | None = None,
    secure: bool = False,
    **options: Any,
) -> SyntheticCorpus:
    """A synthetic labelled corpus of bags of words with (``epsilon``, ``delta``)-DP per author — the Python side
    of ``authorguard synth``: each author's contribution bounded, noisy class-conditional statistics (OpenDP's
    accounting), ``n_documents`` documents sampled from them (default: the noisy number counted). ``options``:
    :class:`~authorguard.methods.author_synth.AuthorLevelSynthesiser`'s (``max_documents``, ``max_words``, ``clip``,
    ``vocabulary_size``, ``morphology``, ...); ``secure``: noise from a CSPRNG, for real releases.

    ```pycon
    >>> import authorguard
    >>> news = authorguard.load_dataset("20news").split("train")
    >>> rows = [i for i, a in enumerate(news.authors) if a][:600]
    >>> release = authorguard.synthesise([news.texts[i] for i in rows], [news.authors[i] for i in rows],
    ...                                  [news.labels[i] for i in rows], epsilon=4.0, random_state=0)
    >>> release.privacy["unit"], release.privacy["epsilon"] <= 4.0
    ('author', True)

    ```
    """
    from authorguard.methods.author_synth import AuthorLevelSynthesiser

    model = AuthorLevelSynthesiser(epsilon, delta, random_state=random_state, secure=secure, **options)
    model.fit(texts, authors, labels)
    sampled_labels, counts = model.sample(n_documents)
    vocabulary = sorted(model.vocabulary_, key=lambda term: model.vocabulary_[term])
    return SyntheticCorpus(sampled_labels, counts, vocabulary, model.privacy_report().to_dict(), model.bounded_)
