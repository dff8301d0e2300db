"""A trained realiser writing text from views, chunk by chunk, through the batched engine and the view gate.

A view is cut at its sentence marks into chunks of at most ``max_view_words`` words (:func:`chunk_views`: the
chunking reads the view only). Each chunk is written once; outputs the :class:`~authorguard.text.views.gate.ViewGate`
refuses are sampled again with another seed (``retries`` rounds; only what failed); a chunk still without a valid
output gets the fallback: ``"view"`` releases the view itself (its words, sentence marks as full stops),
``"withhold"`` withholds the whole record. Either way the record is flagged and counted; the input text is
never released — the realiser never sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.neural.realiser.config import RealiserConfig
from authorguard.neural.realiser.trainer import read_record
from authorguard.text.atoms import ATOM_SPACE, OPTIONAL_MARK, ends_sentence, is_optional
from authorguard.text.views import view_sentences
from authorguard.text.views.reading import QUESTION_MARK, SENTENCE_MARK

#: the shipped realisers (folders of the models distribution): mixed levels, and the one trained on roles views in
#: the constraint's format (scripts/bottleneck/train_realiser.py --roles)
PACKAGED_MIXED = "realiser"
PACKAGED_ROLES = "realiser_roles"
#: what a chunk without a valid output gets: ``normalise``'s text of the chunk (needs the texts' roles sources), its
#: view's words, or the record is withheld
FALLBACKS = ("normalise", "view", "withhold")


def chunk_views(views: Sequence[str], max_words: int):
    """Every view's chunks (:class:`~authorguard.neural.tarot.prompts.Chunk`, paragraph 0), in order: whole view
    sentences grouped up to ``max_words`` words, a longer sentence cut between words. A view without words has none."""
    return chunk_views_with_edges(views, max_words)[0]


def _weight(token: str) -> int:
    """The words a view token stands for: a quotation (one view word) counts each of its words; an optional word
    (an article the realiser is not shown) none."""
    return 0 if token == QUESTION_MARK or is_optional(token) else token.count(ATOM_SPACE) + 1


def _cut(tokens: list[tuple[int, str]], max_words: int) -> list[list[tuple[int, str]]]:
    """A sentence's (position, token)s cut between words into pieces of at most ``max_words`` words (a quotation
    longer than that is a piece of its own); never after an optional word (an article stays with its word)."""
    pieces: list[list[tuple[int, str]]] = []
    for item in tokens:
        if pieces and (
            sum(_weight(t) for _, t in pieces[-1]) + _weight(item[1]) <= max_words or is_optional(pieces[-1][-1][1])
        ):
            pieces[-1].append(item)
        else:
            pieces.append([item])
    return pieces


def chunk_views_with_edges(views: Sequence[str], max_words: int, spans: bool = False):
    """(chunks as :func:`chunk_views`, per chunk (starts a sentence, ends a sentence, the view word before it)): a
    chunk cut out of a longer sentence neither starts nor ends one, so its constraint allows no capital first word
    or no final stop, and knows the word before its first (no "those | the principles" across the cut). With
    ``spans``, a third list: per chunk the (first, end) positions in ``view.split()`` it answers for (up to the next
    chunk's first token: the marks between them included)."""
    from authorguard.neural.tarot.prompts import Chunk

    chunks: list[Chunk] = []
    edges: list[tuple[bool, bool, str]] = []
    starts_at: list[int] = []
    ranges: list[tuple[int, int]] = []

    def emit(group: list, index: int, starts: bool, ends: bool, previous: str) -> None:
        chunks.append(Chunk(f" {SENTENCE_MARK} ".join(" ".join(t for _, t in g) for g in group), index, 0))
        edges.append((starts, ends, "" if starts else previous))
        starts_at.append(group[0][0][0])

    for index, view in enumerate(views):
        tokens = view.split()
        sentences: list[list[tuple[int, str]]] = [[]]
        for position, token in enumerate(tokens):
            if token == SENTENCE_MARK:
                sentences.append([])
            else:
                sentences[-1].append((position, token))
        group: list[list[tuple[int, str]]] = []
        starts = True
        first = len(chunks)
        before = ""  # the last view word of the chunk before the group

        for sentence in (s for s in sentences if any(t != QUESTION_MARK for _, t in s)):
            question = sentence[-1][1] == QUESTION_MARK  # stays with the sentence's last piece, counts as no word
            pieces = _cut(sentence[:-1] if question else sentence, max_words)
            if question:
                pieces[-1] = pieces[-1] + [sentence[-1]]
            for number, piece in enumerate(pieces):
                in_group = sum(_weight(t) for g in group for _, t in g)
                if group and in_group + sum(_weight(t) for _, t in piece) > max_words:
                    emit(group, index, starts, number == 0, before)
                    before = group[-1][-1][1]
                    group, starts = [], number == 0
                group.append(piece)
        if group:
            emit(group, index, starts, True, before)
        ranges.extend(zip(starts_at[first:], [*starts_at[first + 1 :], len(tokens)]))
    return (chunks, edges, ranges) if spans else (chunks, edges)


def view_as_text(view: str) -> str:
    """A view released as it is: its sentences, each ended by a full stop (a question by its question mark; none
    after a word that ends with its own, a quotation or "U.S."), its optional words (the articles) written."""
    return " ".join(
        _ended(sentence) for sentence in view_sentences(view.replace(ATOM_SPACE, " ").replace(OPTIONAL_MARK, ""))
    )


def _ended(sentence: str) -> str:
    """A view sentence with its stop: "?" for a question unless its last word asks already (a quotation,
    ``"What are they doing?"``, is not asked twice), else "." unless its last word ends with its own stop."""
    if sentence.endswith(f" {QUESTION_MARK}"):
        words = sentence[:-2]
        return words + ("" if words.split()[-1].rstrip("\"')]").endswith("?") else "?")
    return sentence + ("" if ends_sentence(sentence.split()[-1]) else ".")


def resolve_folder(model: str | Path | None) -> Path:
    """A realiser folder: ``model``, or the shipped mixed-level realiser (checksum-checked) when None."""
    from authorguard.utils.weights import packaged_folder

    if model is None:
        return packaged_folder(PACKAGED_MIXED)
    folder = Path(model)
    if not (folder / "adapter" / "adapter_config.json").is_file():
        raise InputError(f"realiser folder {folder} has no trained adapter (adapter/adapter_config.json)")
    return folder


class Realiser:
    """``realise(views, kind, view_of, seed)`` -> one text per view; ``stats`` after each call."""

    def __init__(
        self, model: str | Path | None = None, engine: str = "batched", base_factory: Callable | None = None
    ) -> None:
        from authorguard.neural.tarot.policy import PolicyLoader, tokenizer_signature

        folder = resolve_folder(model)
        record = read_record(folder)
        self.config = RealiserConfig.from_dict(record.get("realiser", {}))
        self.loader = PolicyLoader([folder / "adapter"], base_factory)
        expected = record.get("tokenizer")
        if expected and expected != tokenizer_signature(self.loader.tokenizer):
            raise InputError(f"realiser {folder} was trained with another tokenizer ({expected})")
        self.engine = engine
        self.stats: dict = {}

    def realise(
        self,
        views: Sequence[str],
        kind: str,
        view_of: Callable[[str], str],
        seed: int | None,
        *,
        temperature: float = 0.7,
        top_p: float = 0.95,
        batch_size: int = 64,
        retries: int = 2,
        fallback: str = "view",
        max_new_tokens: int | None = None,
        constrained: str | None = None,
        sources: Sequence[Sequence[str]] | None = None,
    ) -> list[str]:
        """One text per view ("" for a view without words, and for a withheld record). ``constrained``: the name of
        the view (``roles``) whose constraint every chunk is written under (:mod:`.constrained`), or None.
        ``sources``: per view, the normalised text each of its tokens stands for
        (:func:`~authorguard.text.views.roles.roles_sources`); needed by the ``normalise`` fallback, which releases a
        chunk
        nothing valid was written for as that text."""
        from authorguard.neural.tarot.prompts import reassemble
        from authorguard.neural.tarot.selection import LimitedSampler, SelectionConfig, release_stats, select_rewrites

        self.config.instruction(kind)  # an unknown kind fails here, before the policy is loaded
        if fallback not in FALLBACKS:
            raise InputError(f"realiser: unknown fallback {fallback!r} (fallbacks: {', '.join(FALLBACKS)})")
        if fallback == "normalise" and (sources is None or len(sources) != len(views)):
            raise InputError("realiser: the normalise fallback needs each view's sources (one list per view)")
        chunks, edges, spans = chunk_views_with_edges(views, self.config.max_view_words, spans=True)
        tokenizer = self.loader.tokenizer if chunks else None  # no chunks: the policy is not even loaded
        # a chunk holding a long quotation writes more than the configured limit: about 2 tokens a word and room
        longest = max((sum(_weight(t) for t in c.text.split()) for c in chunks), default=0)
        limit = max_new_tokens or max(self.config.max_new_tokens, 2 * longest + 24)
        plans = None
        if constrained is not None and chunks:
            from authorguard.neural.realiser.constrained import ViewPlans

            plans = ViewPlans(constrained, tokenizer, {c.text: edge for c, edge in zip(chunks, edges)})
        sample = self._sampler(kind, chunks, tokenizer, plans, limit, temperature, top_p, batch_size)
        # the selection's "keep" gives a chunk its input — here the view chunk, never the original text
        selection = SelectionConfig(
            candidates=1, retries=retries, min_utility=-1, fallback="withhold" if fallback == "withhold" else "keep"
        )
        gate = self._gate(plans, view_of, kind)
        chosen = select_rewrites(
            [c.text for c in chunks], LimitedSampler(sample, limit), gate, None, selection, 0 if seed is None else seed
        )
        texts = [
            _fallen(c, span, fallback, sources) if fell and fallback != "withhold" else t
            for c, span, t, fell in zip(chunks, spans, chosen.texts, chosen.fell_back)
        ]
        self.stats = release_stats([c.document for c in chunks], chosen, len(views), fallback, self.engine)
        outputs = reassemble(chunks, texts, len(views))
        if fallback == "withhold":
            for document in self.stats["flagged_records"]:
                outputs[document] = ""
        return outputs

    def _sampler(self, kind: str, chunks, tokenizer, plans, limit: int, temperature, top_p, batch_size) -> Callable:
        """``sample(indices, repeats, seed)``: REPEATS rewrites of each chunk in INDICES, written under its
        constraint (PLANS) or cleaned of the chat's decoration."""
        from authorguard.neural.tarot.policy import generate
        from authorguard.neural.tarot.prompts import clean_rewrite

        prompts = (
            []
            if tokenizer is None
            else [
                tokenizer.apply_chat_template(
                    self.config.messages(kind, c.text), tokenize=False, add_generation_prompt=True
                )
                for c in chunks
            ]
        )

        def sample(indices, repeats, round_seed):
            repeated = [prompts[i] for i in indices for _ in range(repeats)]
            constraints = (
                None if plans is None else plans.constraints([chunks[i].text for i in indices for _ in range(repeats)])
            )
            out = generate(
                None,
                tokenizer,
                repeated,
                max_new_tokens=limit,
                seed=round_seed,
                temperature=temperature,
                top_p=top_p,
                batch_size=batch_size,
                engine=self.loader.engine(self.engine),
                constraints=constraints,
            )
            if plans is not None:  # the constraint wrote the text: nothing to clean
                return replace(out, texts=[t.strip() for t in out.texts])
            return replace(out, texts=[" ".join(clean_rewrite(t).split()) for t in out.texts])

        return sample

    def _gate(self, plans, view_of: Callable[[str], str], kind: str):
        """The check a written chunk must pass: its constraint's (PLANS), or that it reads back as its view."""
        if plans is not None:
            from authorguard.neural.realiser.constrained import ConstrainedGate

            return ConstrainedGate(plans)
        from authorguard.text.views.gate import ViewGate

        return ViewGate(view_of, instruction=self.config.instruction(kind))


def _fallen(chunk, span: tuple[int, int], fallback: str, sources: Sequence[Sequence[str]] | None) -> str:
    """What a chunk nothing valid was written for releases: the normalised text its tokens stand for (fallback
    ``normalise``) or the view as text."""
    if fallback == "normalise":
        if sources is None:
            raise InputError("realiser: the normalise fallback needs each view's sources")
        return " ".join(part for part in sources[chunk.document][span[0] : span[1]] if part)
    return view_as_text(chunk.text)
