"""Text-benchmark scenarios: which documents, and how they are split into train / validation / test.

- :class:`TopAuthors` — TAROT's Top-k authorship scenarios (BAC-10/20: the k bloggers with most posts; AMT-10/20:
  the first k authors): every document of those authors, split 80/10/10 *within each author* (stratified by
  author), so every author the attacker must name was seen in training.
- :class:`AttributeSplit` — A⁴NT's attribute scenarios (blog-age, blog-gender): split *by author*, no author in
  two splits, so a classifier cannot win by recognising the writer instead of the attribute; the speech setting
  (one author per class) splits by speech.
- :class:`DatasetAuthors` — the SynTF paper's Top-k authors of 20 Newsgroups with the dataset's own split by date.

Both are deterministic given their ``seed`` (recorded with every result) and return the selected documents as a
:class:`~authorguard.data.corpus.Corpus` whose ``splits`` are ``train`` / ``validation`` / ``test``. A scenario
that cannot be built (too few authors, an author with fewer documents than the split needs, an unknown column)
is a one-line error, never a silent drop.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from authorguard.data.corpus import Corpus
from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number, check_option

SPLIT_NAMES = ("train", "validation", "test")
# TAROT (Loiseau et al.), Table 1: texts and mean words per text of its Top-k subsets.
TAROT_TABLE_1 = {"BAC-10": (23_534, 118), "BAC-20": (39_379, 118), "AMT-10": (196, 497), "AMT-20": (362, 502)}


def _split_sizes(n: int, fractions: tuple[float, float, float], owner: str) -> tuple[int, int, int]:
    """Documents (or authors) per split: rounded shares, each split at least one."""
    n_validation = max(1, int(round(fractions[1] * n)))
    n_test = max(1, int(round(fractions[2] * n)))
    n_train = n - n_validation - n_test
    if n_train < 1:
        raise InputError(
            f"{owner} has {n}; the {'/'.join(str(round(f * 100)) for f in fractions)} split needs at least 3"
        )
    return n_train, n_validation, n_test


def _split_units(units: list, fractions: tuple[float, float, float], rng: np.random.Generator, owner: str) -> dict:
    """unit -> train / validation / test: the sorted units shuffled by ``rng``, then cut by :func:`_split_sizes`."""
    members = sorted(units)
    sizes = _split_sizes(len(members), fractions, owner)
    shuffled = [members[i] for i in rng.permutation(len(members))]
    bounds = np.cumsum((0,) + sizes)
    return {unit: split for split, lo, hi in zip(SPLIT_NAMES, bounds[:-1], bounds[1:]) for unit in shuffled[lo:hi]}


def _check_fractions(fractions, name: str) -> tuple[float, float, float]:
    fractions = tuple(float(f) for f in fractions)
    if len(fractions) != 3 or min(fractions) <= 0 or abs(sum(fractions) - 1.0) > 1e-9:
        raise InputError(
            f"the 'fractions' parameter of {name} must be three positive shares summing to 1; got {fractions}"
        )
    return fractions


def _filtered(corpus: Corpus, where: dict[str, tuple[str, ...]]) -> np.ndarray:
    keep = np.array([a is not None for a in corpus.authors], dtype=bool)
    for column, values in where.items():
        keep &= np.array([v in values for v in corpus.column(column)], dtype=bool)
    return keep


@dataclass(frozen=True)
class TopAuthors:
    """The ``top_k`` authors (``rank="count"``: most documents, ties by id; ``"first"``: first in sorted id
    order), every document of theirs that passes ``where`` (column -> allowed values), split within each author.

    Parameters
    ----------
    top_k : int
    rank : {"count", "first"}
    where : dict of str -> tuple of str
        E.g. ``{"kind": ("regular",)}`` keeps AMT's writing samples and leaves its attack documents out.
    fractions : (train, validation, test)
    seed : int
    name : str
    """

    top_k: int
    rank: str = "count"
    where: dict = field(default_factory=dict)
    fractions: tuple = (0.8, 0.1, 0.1)
    seed: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        check_number(self.top_k, "top_k", "TopAuthors", kind=int, low=2, closed="left")
        check_option(self.rank, "rank", "TopAuthors", ("count", "first"))
        object.__setattr__(self, "fractions", _check_fractions(self.fractions, "TopAuthors"))
        object.__setattr__(self, "where", {k: tuple(v) for k, v in dict(self.where).items()})
        object.__setattr__(self, "name", self.name or f"Top{self.top_k}")

    def authors(self, corpus: Corpus) -> list[str]:
        """The chosen authors, in rank order."""
        counts = Counter(a for a, keep in zip(corpus.authors, _filtered(corpus, self.where)) if keep and a is not None)
        if len(counts) < self.top_k:
            raise InputError(
                f"scenario {self.name}: only {len(counts)} authors in {corpus.name!r}, {self.top_k} needed"
            )
        order = sorted(counts, key=(lambda a: (-counts[a], a)) if self.rank == "count" else (lambda a: a))
        return order[: self.top_k]

    def select(self, corpus: Corpus) -> Corpus:
        """The scenario's documents, in corpus order, with ``splits`` = train / validation / test."""
        chosen = set(self.authors(corpus))
        keep = _filtered(corpus, self.where) & np.array([a in chosen for a in corpus.authors], dtype=bool)
        positions = np.flatnonzero(keep)
        rng = np.random.default_rng(self.seed)
        split_of: dict[int, str] = {}
        for author in sorted(chosen):
            mine = [int(i) for i in positions if corpus.authors[i] == author]
            split_of.update(_split_units(mine, self.fractions, rng, f"scenario {self.name}: author {author!r}"))
        return _selected(corpus, positions, None, [split_of[int(i)] for i in positions], self.name, self.seed)


@dataclass(frozen=True)
class AttributeSplit:
    """Documents labelled by an attribute column, split by author.

    Parameters
    ----------
    column : str
        The attribute (e.g. ``age_group``, ``gender``, ``labels``).
    groups : dict of str -> str
        Attribute value -> class name; values not listed are left out (e.g. blog-age: ``{"13-17": "13-17",
        "23-27": "23-48", "33-48": "23-48"}``). Empty: every value is its own class.
    where : dict of str -> tuple of str
    unit : {"author", "document"}
        What is split: each class's *authors* (no author in two splits), or, where a class is one author (Obama
        vs Trump), each class's documents (whole speeches: A⁴NT's "split by speech").
    fractions : (train, validation, test) shares of each class's units
    per_author : bool
        One document per author: their documents joined in corpus order (A⁴NT's blog "documents" are bloggers:
        its blog-age validation split holds 2,799 documents of 518,268 sentences); id = the author.
    max_authors : int or None
        Per class, a seeded sample of at most this many authors (keeps the benchmark's cost bounded; A⁴NT used
        every blogger of its 19,320).
    max_words : int or None
        Each document cut to its first ``max_words`` whitespace-separated words.
    seed : int
    name : str
    """

    column: str
    groups: dict = field(default_factory=dict)
    where: dict = field(default_factory=dict)
    unit: str = "author"
    fractions: tuple = (0.8, 0.1, 0.1)
    per_author: bool = False
    max_authors: int | None = None
    max_words: int | None = None
    seed: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        check_option(self.unit, "unit", "AttributeSplit", ("author", "document"))
        for limit in ("max_authors", "max_words"):
            if getattr(self, limit) is not None:
                check_number(getattr(self, limit), limit, "AttributeSplit", kind=int, low=1, closed="left")
        if self.per_author and self.unit != "author":
            raise InputError("AttributeSplit: per_author needs unit='author'")
        object.__setattr__(self, "fractions", _check_fractions(self.fractions, "AttributeSplit"))
        object.__setattr__(self, "where", {k: tuple(v) for k, v in dict(self.where).items()})
        object.__setattr__(self, "name", self.name or self.column)

    def select(self, corpus: Corpus) -> Corpus:
        """The documents whose attribute maps to a class; ``labels`` = the class, ``splits`` by author."""
        values = corpus.column(self.column)
        classes = [self.groups.get(v) if self.groups else v for v in values]
        keep = _filtered(corpus, self.where) & np.array([c is not None for c in classes], dtype=bool)
        positions = np.flatnonzero(keep)
        class_of_author: dict[str, str] = {}
        for i in positions:
            author, label = corpus.authors[i], classes[i]
            assert author is not None and label is not None  # `keep` holds documents with an author and a class
            if class_of_author.setdefault(author, label) != label and self.unit == "author":
                raise InputError(
                    f"scenario {self.name}: author {author!r} has documents of two classes "
                    f"({class_of_author[author]!r}, {label!r}); an author-level split needs one"
                )
        if len({classes[i] for i in positions}) < 2:
            raise InputError(f"scenario {self.name}: fewer than two classes in {corpus.name!r}")
        rng = np.random.default_rng(self.seed)
        if self.max_authors is not None:
            sampled: set = set()
            for label in sorted(set(class_of_author.values())):
                members = sorted(a for a, c in class_of_author.items() if c == label)
                take = min(self.max_authors, len(members))
                sampled.update(members[i] for i in np.sort(rng.choice(len(members), take, replace=False)))
            positions = np.array([i for i in positions if corpus.authors[i] in sampled], dtype=np.int64)
        # the unit of each kept document: its author, or the document itself
        units: list[str] = []
        unit_classes: list[str] = []
        for i in positions:
            unit, label = corpus.authors[i] if self.unit == "author" else corpus.ids[i], classes[i]
            assert unit is not None and label is not None  # `keep` holds documents with an author and a class
            units.append(unit)
            unit_classes.append(label)
        class_of_unit = dict(zip(units, unit_classes))
        split_of_unit: dict[str, str] = {}
        for label in sorted(set(class_of_unit.values())):
            members = [u for u, c in class_of_unit.items() if c == label]
            split_of_unit.update(
                _split_units(members, self.fractions, rng, f"scenario {self.name}: class {label!r} ({self.unit}s)")
            )
        selected = _selected(corpus, positions, unit_classes, [split_of_unit[u] for u in units], self.name, self.seed)
        if self.per_author:
            selected = _joined_by_author(selected)
        if self.max_words is not None:
            selected = Corpus(
                selected.ids,
                tuple(" ".join(t.split()[: self.max_words]) for t in selected.texts),
                selected.authors,
                selected.labels,
                selected.splits,
                selected.name,
                selected.metadata,
                selected.attributes,
            )
        return selected


@dataclass(frozen=True)
class DatasetAuthors:
    """The SynTF paper's Top-k authorship scenarios on a dataset with its own train / test split (20 Newsgroups
    by date): the authors chosen by :class:`~authorguard.data.scenarios.AuthorshipScenario`, every document
    of theirs, the dataset's split kept (no validation split). Deterministic: ``seed`` is recorded, not used.

    Parameters
    ----------
    top_k : int
    multi : bool
        Only authors active in at least two groups (the paper's "Multi").
    seed : int
    name : str
    """

    top_k: int
    multi: bool = False
    seed: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        check_number(self.top_k, "top_k", "DatasetAuthors", kind=int, low=2, closed="left")
        object.__setattr__(self, "name", self.name or f"Top{self.top_k}-{'Multi' if self.multi else 'Any'}")

    def select(self, corpus: Corpus) -> Corpus:
        """The scenario's documents, in corpus order, with the dataset's own ``splits``."""
        from authorguard.data.scenarios import AuthorshipScenario

        chosen = set(AuthorshipScenario(self.top_k, self.multi).authors(corpus))
        positions = np.flatnonzero(np.array([a in chosen for a in corpus.authors], dtype=bool))
        return _selected(corpus, positions, None, [corpus.splits[i] for i in positions], self.name, self.seed)


def _joined_by_author(corpus: Corpus) -> Corpus:
    """One document per author (their texts joined by blank lines, in corpus order); the label, split and each
    attribute are those of the author's first document (labels and splits are per author here)."""
    first: dict[str, int] = {}
    texts: dict[str, list[str]] = {}
    for i, author in enumerate(corpus.authors):
        assert author is not None  # a scenario keeps documents of known authors only (_filtered)
        first.setdefault(author, i)
        texts.setdefault(author, []).append(corpus.texts[i])
    authors = tuple(first)
    pick = lambda values: tuple(values[first[a]] for a in authors)  # noqa: E731
    return Corpus(
        authors,
        tuple("\n\n".join(texts[a]) for a in authors),
        authors,
        pick(corpus.labels),
        pick(corpus.splits),
        corpus.name,
        {**corpus.metadata, "per_author": True},
        {k: pick(v) for k, v in corpus.attributes.items()},
    )


def _selected(
    corpus: Corpus, positions: np.ndarray, labels: list[str] | None, splits: list[str], name: str, seed: int
) -> Corpus:
    """The documents at ``positions`` with their new splits (and labels, when given); the scenario is recorded."""
    chosen = corpus.subset(positions)
    return Corpus(
        chosen.ids,
        chosen.texts,
        chosen.authors,
        chosen.labels if labels is None else tuple(labels),
        tuple(splits),
        chosen.name,
        {**chosen.metadata, "scenario": name, "seed": seed},
        chosen.attributes,
    )


def split_counts(selected: Corpus) -> dict:
    """Authors, documents, mean words per document and per-split documents / authors of a selected scenario."""
    words = [len(t.split()) for t in selected.texts]
    per_split = {
        s: {
            "documents": sum(x == s for x in selected.splits),
            "authors": len({a for a, x in zip(selected.authors, selected.splits) if x == s}),
        }
        for s in SPLIT_NAMES
    }
    name = selected.metadata.get("scenario")
    tarot = None if name is None else TAROT_TABLE_1.get(name)
    return {
        "scenario": name,
        "seed": selected.metadata.get("seed"),
        "authors": len(set(selected.authors)),
        "documents": len(selected),
        "words_mean": float(np.mean(words)) if words else 0.0,
        "classes": dict(Counter(selected.labels)),
        "splits": per_split,
        "tarot_documents": None if tarot is None else tarot[0],
        "tarot_words_mean": None if tarot is None else tarot[1],
    }


@dataclass(frozen=True)
class BenchmarkScenario:
    """A named scenario of the text benchmark: which dataset, which documents and split, what is attacked and
    which utility task is scored.

    Attributes
    ----------
    dataset : str
        A registered dataset.
    selection : TopAuthors or AttributeSplit
        Picks the documents and their train / validation / test split (``select``).
    target : {"authors", "labels"}
        What the attackers predict: the writer (authorship) or the attribute class of the selection (A⁴NT's
        attribute classifiers).
    tasks : tuple of str
        Registered utility tasks scored on the selection's ``labels`` (empty: utility is content preservation).
    """

    dataset: str
    selection: TopAuthors | AttributeSplit | DatasetAuthors
    target: str = "authors"
    tasks: tuple = ()

    def __post_init__(self) -> None:
        check_option(self.target, "target", "BenchmarkScenario", ("authors", "labels"))

    @property
    def name(self) -> str:
        return self.selection.name

    def with_seed(self, seed: int) -> BenchmarkScenario:
        import dataclasses

        return dataclasses.replace(self, selection=dataclasses.replace(self.selection, seed=seed))


# The benchmark's scenarios, by the names the issue uses (split seed 0; ``with_seed`` for another).
# BAC's utility label is the blogger's industry: one label per author, so topic and authorship are entangled
# (a classifier may learn the writer to get the topic); AMT's is the binary background (see data/amt.py).
SCENARIOS = {
    "BAC-10": BenchmarkScenario("blogs", TopAuthors(10, name="BAC-10"), tasks=("topic",)),
    "BAC-20": BenchmarkScenario("blogs", TopAuthors(20, name="BAC-20"), tasks=("topic",)),
    "AMT-10": BenchmarkScenario(
        "amt", TopAuthors(10, rank="first", where={"kind": ("regular",)}, name="AMT-10"), tasks=("background",)
    ),
    "AMT-20": BenchmarkScenario(
        "amt", TopAuthors(20, rank="first", where={"kind": ("regular",)}, name="AMT-20"), tasks=("background",)
    ),
    # A⁴NT's blog documents are bloggers; 300 bloggers per class, first 2,000 words each, keep the cost bounded
    "blog-age": BenchmarkScenario(
        "blogs",
        AttributeSplit(
            "age_group",
            {"13-17": "13-17", "23-27": "23-48", "33-48": "23-48"},
            per_author=True,
            max_authors=300,
            max_words=2000,
            name="blog-age",
        ),
        target="labels",
    ),
    "blog-gender": BenchmarkScenario(
        "blogs",
        AttributeSplit("gender", per_author=True, max_authors=300, max_words=2000, name="blog-gender"),
        target="labels",
    ),
    # the SynTF paper's Top10-Any on 20 Newsgroups (its split by date) as a text-benchmark scenario, so that text
    # methods are judged where SynTF's numbers live; utility = the newsgroup (mostly one per author: entangled too)
    "20news-Top10-Any": BenchmarkScenario("20news", DatasetAuthors(10, name="20news-Top10-Any"), tasks=("topic",)),
    "speech": BenchmarkScenario(
        "speeches",
        AttributeSplit("labels", where={"set": ("obama", "trump-campaign")}, unit="document", name="speech"),
        target="labels",
    ),
    "speech-millercenter": BenchmarkScenario(
        "speeches",
        AttributeSplit(
            "labels", where={"set": ("obama", "trump-millercenter")}, unit="document", name="speech-millercenter"
        ),
        target="labels",
    ),
}
