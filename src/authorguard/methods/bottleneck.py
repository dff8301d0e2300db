"""The style bottleneck: text written from a style-free view of the input, never from the input itself.

``bottleneck`` computes a view of each document (:mod:`authorguard.text.views`: ``content`` | ``lemma`` |
``canonical``, or ``syntf``: SynTF's ε-DP bag of words of the document) and a realiser (SmolLM2-135M-Instruct +
LoRA, :mod:`authorguard.neural.realiser`) writes fluent text from the view alone. Every output is a function of
(view, randomness), so no attacker — static, augmented, adversarial, present or future — learns more about the
author from the output than from the view (data processing); the levels are ordered by construction (each view is
a function of the one before), and the ``syntf`` level is ε-DP per document (post-processing of SynTF).

What the guarantee does *not* cover: what the view itself leaks (the content words and their order, the sentence
count; docs/results/bottleneck.md measures it as each view's floor), and the realiser's training data (authors
outside every evaluation scenario, not the user's).

The validity gate (:class:`~authorguard.text.views.gate.ViewGate`) reads the view only. Outputs it refuses are sampled
again (``retries`` rounds); a chunk still refused gets the ``fallback``: ``"view"`` releases the view's words,
``"withhold"`` withholds the record. The input is never released as written. A document whose view has no words
(nothing but function words) is withheld and counted.

``view:content``, ``view:lemma``, ``view:canonical``, ``view:content-minimal`` release the view itself: the floor a
method that keeps what the view keeps cannot go below.
"""

from __future__ import annotations

import functools

from authorguard.base import TextObfuscator
from authorguard.methods import syntf_defaults
from authorguard.utils.random import int_seed
from authorguard.utils.validation import check_number, check_option, check_texts

LEVELS = ("roles", "content", "lemma", "canonical", "syntf")
#: the level ``bottleneck`` uses when none is given (docs/results/faithful.md#constrained-realisation)
DEFAULT_LEVEL = "roles"
#: the levels written under their view's constraint when ``constrained="auto"``
AUTO_CONSTRAINED = ("roles",)
#: words of the ``syntf`` level's bag: about the content view of a blog post (118 words, ~45 content words)
BAG_WORDS = 40
#: who writes the text from the view: the language model, or a rule (the roles level only); "auto" = the rule at
#: ``roles`` (it matches the model there within the noise, docs/results/bottleneck-rule.md), the model elsewhere
REALISERS = ("auto", "model", "rule")


def resolved_realiser(level: str, realiser: str) -> str:
    """``model`` or ``rule``: what writes a level's text under the ``realiser`` setting."""
    if realiser == "auto":
        return "rule" if level == "roles" else "model"
    return realiser


class ViewRelease(TextObfuscator):
    """Each document's view, released as text (sentences ended by full stops): a floor row of the benchmark."""

    view = "content"

    def obfuscate(self, raw_documents) -> list[str]:
        from authorguard.neural.realiser.model import view_as_text
        from authorguard.text.views import get_view

        view = get_view(self.view)
        return [view_as_text(view(text)) for text in check_texts(raw_documents, type(self).__name__)]


class RolesView(ViewRelease):
    """Every word (the articles written as the text had them), contractions read out, after the normaliser."""

    view = "roles"


class ContentView(ViewRelease):
    """The content words in order, names and numbers as written, sentence ends kept."""

    view = "content"


class ContentMinimalView(ViewRelease):
    """The words outside the stop-word list, lower-cased, in order (the issue's first floor table)."""

    view = "content-minimal"


class LemmaView(ViewRelease):
    """The content view lemmatised and lower-cased."""

    view = "lemma"


class CanonicalView(ViewRelease):
    """The lemma view with each word replaced by its WordNet synonym-cluster representative."""

    view = "canonical"


def written_by_rule(view: str) -> str:
    """A roles view written without a model: its words in order, every optional article left out, each sentence's
    first letter capitalised, sentence ends as :func:`~authorguard.neural.realiser.model.view_as_text` writes
    them."""
    from authorguard.neural.realiser.model import view_as_text
    from authorguard.text.atoms import is_optional
    from authorguard.text.views import SENTENCE_MARK, view_sentences

    sentences = []
    for sentence in view_sentences(view):
        words = [word for word in sentence.split() if not is_optional(word)]
        if words:
            words[0] = words[0][:1].upper() + words[0][1:]
            sentences.append(" ".join(words))
    return view_as_text(f" {SENTENCE_MARK} ".join(sentences))


@functools.lru_cache(maxsize=2)
def _load(model: str | None, engine: str):
    from authorguard.neural.realiser.model import Realiser

    return Realiser(model, engine=engine)


def packaged_model(level: str) -> str | None:
    """The packaged realiser of ``level``: the roles realiser (trained on roles views in the constraint's format)
    for ``roles``, the shipped mixed-level realiser (None) for the others."""
    if level == "roles":
        from authorguard.neural.realiser.model import PACKAGED_ROLES
        from authorguard.utils.weights import packaged_folder

        return str(packaged_folder(PACKAGED_ROLES))
    return None


class Bottleneck(TextObfuscator):
    """Parameters
    ----------
    level : {"roles", "content", "lemma", "canonical", "syntf"}, default=DEFAULT_LEVEL
        The view the realiser writes from (coarser = more private, less faithful); ``roles`` keeps who does what
        (pronouns, prepositions, auxiliaries), the others keep the content words only.
    model : str or None
        A realiser folder (scripts/bottleneck/train_realiser.py); None = the packaged realiser of the level.
    constrained : {"auto", True, False}, default="auto"
        Write every chunk under its view's constraint (the view's words in order, only free or optional words
        between them — at ``roles`` the text's own articles, each kept or left out;
        :mod:`authorguard.generation.constraints`): "auto" = at the ``roles`` level; True at ``content`` is the
        issue-56 probe (pronouns free); the lemma, canonical and syntf levels cannot be constrained.
    temperature, top_p : float
        Nucleus sampling of the realiser.
    batch_size : int, default=64
        Chunks generated together.
    retries : int, default=2
        Further rounds (other seeds) for chunks whose output the view gate refuses.
    fallback : {"auto", "normalise", "view", "withhold"}, default="auto"
        What a chunk still refused gets: ``normalise``'s text of the chunk (faithful; the chunk is not protected
        beyond ``normalise``, and the record's status says so), its view's words, or the record is withheld. "auto"
        = ``normalise`` at the ``roles`` level (the only view whose words map back to the text), ``view`` at the
        others. Never the input as written.
    engine : {"batched", "torch"}, default="batched"
    realiser : {"auto", "model", "rule"}, default="auto"
        Who writes the text from the view: the language model, or (``roles`` level only) a rule that writes the
        view's words as they stand, each sentence capitalised, every optional article left out — no model, no
        sampling, no extra. "auto" = the rule at ``roles``, the model at the other levels.
    epsilon, n_words : float, int
        The ``syntf`` level's SynTF ε per sampled word (SynTF's default) and words per bag (40: about a blog post's
        content view); a document's release costs SynTF's tight loss, reported as ``epsilon_per_document``.
    random_state : int, numpy Generator or None
    """

    deterministic = False

    def __init__(
        self,
        level: str = DEFAULT_LEVEL,
        model: str | None = None,
        constrained="auto",
        temperature: float = 0.7,
        top_p: float = 0.95,
        batch_size: int = 64,
        retries: int = 2,
        fallback: str = "auto",
        engine: str = "batched",
        realiser: str = "auto",
        epsilon: float = syntf_defaults.EPSILON,
        n_words: int = BAG_WORDS,
        random_state=None,
    ) -> None:
        self.level = level
        self.model = model
        self.constrained = constrained
        self.temperature = temperature
        self.top_p = top_p
        self.batch_size = batch_size
        self.retries = retries
        self.fallback = fallback
        self.engine = engine
        self.realiser = realiser
        self.epsilon = epsilon
        self.n_words = n_words
        self.random_state = random_state

    def fit(self, raw_documents=None, y=None):
        """Check the parameters and load the realiser (and, at level ``syntf``, SynTF over its public vocabulary);
        nothing is learned from ``raw_documents``."""
        name = type(self).__name__
        check_option(self.level, "level", name, LEVELS)
        check_option(self.fallback, "fallback", name, ("auto", "normalise", "view", "withhold"))
        check_number(self.temperature, "temperature", name, low=0, closed="neither")
        check_number(self.top_p, "top_p", name, low=0, high=1, closed="right")
        check_number(self.batch_size, "batch_size", name, kind=int, low=1, closed="left")
        check_number(self.retries, "retries", name, kind=int, low=0, closed="left")
        from authorguard.generation.base import engine_names

        check_option(self.engine, "engine", name, engine_names())
        from authorguard.exceptions import InputError
        from authorguard.text.views.constraints import CONSTRAINED_VIEWS

        if not (self.constrained == "auto" or isinstance(self.constrained, bool)):
            raise InputError(f"{name}: constrained must be 'auto', True or False, got {self.constrained!r}")

        self.constraint_view_ = (
            self.level if (self.level in AUTO_CONSTRAINED if self.constrained == "auto" else self.constrained) else None
        )
        if self.constraint_view_ is not None and self.constraint_view_ not in CONSTRAINED_VIEWS:
            raise InputError(
                f"{name}: level {self.level!r} cannot be written under a constraint "
                f"(levels that can: {', '.join(CONSTRAINED_VIEWS)})"
            )
        self.fallback_ = (
            ("normalise" if self.level == "roles" else "view") if self.fallback == "auto" else self.fallback
        )
        if self.fallback_ == "normalise" and self.level != "roles":
            raise InputError(
                f"{name}: the normalise fallback needs the roles level (its view's words map back to the text); "
                f"level {self.level!r} can fall back to 'view' or 'withhold'"
            )
        check_option(self.realiser, "realiser", name, REALISERS)
        if resolved_realiser(self.level, self.realiser) == "rule":
            if self.level != "roles":
                raise InputError(
                    f"{name}: the rule realiser writes the roles view only (its words are the text's); level "
                    f"{self.level!r} needs realiser='model'"
                )
            self.realiser_ = None
            return self
        if self.level == "syntf":
            from authorguard.methods.syntf_text import SynTFText

            self.syntf_ = SynTFText(epsilon=self.epsilon, n_words=self.n_words, random_state=self.random_state).fit()
        self.realiser_ = _load(packaged_model(self.level) if self.model is None else str(self.model), self.engine)
        return self

    @classmethod
    def uses_model(cls, params: dict) -> bool:
        """Whether ``Bottleneck(**params)`` writes with the language model (and so needs the neural extra, its
        trained realiser and SmolLM2's weights); read before anything heavy is imported."""
        return resolved_realiser(params.get("level", DEFAULT_LEVEL), params.get("realiser", "auto")) == "model"

    def reseed(self, random_state) -> Bottleneck:
        """Restart the randomness (the realiser's seed and SynTF's stream), keeping what is loaded."""
        self.random_state = random_state
        if hasattr(self, "syntf_"):
            self.syntf_.reseed(random_state)
        return self

    def views(self, raw_documents) -> list[str]:
        """Each document's view at this level (``syntf``: its SynTF bag, words sorted)."""
        texts = check_texts(raw_documents, type(self).__name__)
        if self.level == "syntf":
            if not hasattr(self, "syntf_"):
                self.fit()
            bags = self.syntf_.obfuscate(texts)
            return [" ".join(sorted(bag.split())) if text.strip() else "" for text, bag in zip(texts, bags)]
        from authorguard.text.views import get_view

        view = get_view(self.level)
        return [view(text) for text in texts]

    def _view_of(self):
        from authorguard.text.views import get_view

        return get_view("lemma" if self.level == "syntf" else self.level)

    def obfuscate(self, raw_documents) -> list[str]:
        if not hasattr(self, "realiser_"):
            self.fit()
        texts = check_texts(raw_documents, type(self).__name__)
        if self.realiser_ is None:
            return self._written_by_rule(texts)
        sources = None
        if self.fallback_ == "normalise":  # the roles view and, from the same reading, what each word stands for
            from authorguard.text.views.roles import roles_view_and_sources

            readings = [roles_view_and_sources(text) for text in texts]
            views, sources = [view for view, _ in readings], [words for _, words in readings]
        else:
            views = self.views(texts)
        kind = "bag" if self.level == "syntf" else "ordered"
        out = self.realiser_.realise(
            views,
            kind,
            self._view_of(),
            int_seed(self.random_state),
            temperature=self.temperature,
            top_p=self.top_p,
            batch_size=self.batch_size,
            retries=self.retries,
            fallback=self.fallback_,
            constrained=self.constraint_view_,
            sources=sources,
        )
        from authorguard.text.views import view_words

        self._report = dict(
            self.realiser_.stats,
            level=self.level,
            records_no_content=[i for i, (t, v) in enumerate(zip(texts, views)) if t.strip() and not view_words(v)],
        )
        if self.level == "syntf":  # SynTF's accounting: the tight loss of one released document (pure ε-DP)
            report = self.syntf_.syntf_.privacy_report()
            self._report.update(
                epsilon_per_document=report.tight_epsilon
                if report.tight_epsilon is not None
                else report.improved_epsilon,
                epsilon_per_word=self.epsilon,
                words_per_bag=self.n_words,
                epsilon_bound="tight" if report.tight_epsilon is not None else "improved",
            )
        return out

    def _written_by_rule(self, texts: list[str]) -> list[str]:
        from authorguard.text.views import view_words

        views = self.views(texts)
        self._report = {
            "documents": len(texts),
            "level": self.level,
            "realiser": "rule",
            "records_no_content": [i for i, (t, v) in enumerate(zip(texts, views)) if t.strip() and not view_words(v)],
        }
        return [written_by_rule(view) if view_words(view) else "" for view in views]

    def release_report(self) -> dict:
        """The last call's counts: documents, chunks, outputs sampled and refused (by reason), chunks that got the
        fallback, flagged records (positions), records without content words (withheld), tokens/s; at level
        ``syntf`` the ε each document's release spent."""
        return dict(getattr(self, "_report", {}))

    def record_statuses(self, raw_documents, outputs) -> list[dict]:
        statuses = super().record_statuses(raw_documents, outputs)
        for index in self.release_report().get("records_no_content", ()):
            statuses[index] = {
                "status": "withheld",
                "reason": "no content words: the view is empty, nothing to write from",
            }
        return statuses
