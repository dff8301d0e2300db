"""A trained A⁴NT model folder, rewriting documents sentence by sentence (paper, Section 6.1.1).

Each sentence of a document goes through the generator of its document's direction (source attribute -> the
other class); the rewrites are detokenised and joined by single spaces. With ``samples`` K > 1, K rewrites are
sampled per sentence and one kept by ``select``: ``random``, ``max-meteor`` or ``min-meteor`` against the input
sentence (the operating points of the paper's Figure 6). One greedy rewrite (K = 1) is deterministic.

The networks write ``<unk>`` for a word outside the vocabulary and ``NUM`` for a number; ``placeholders`` says what
the user gets for them (:func:`~authorguard.neural.a4nt.text.fill_placeholders`): ``copy`` the input sentence's
own unknown words and numbers into them in order (the default), ``drop`` them, or ``keep`` them (the paper's output,
and what :mod:`~authorguard.neural.a4nt.evaluation` scores). A document whose whole rewrite would vanish (placeholders
alone, none fillable) keeps its placeholders: a document with words never comes back empty.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.config import AUTOENCODERS, generator_file, is_neutral
from authorguard.neural.a4nt.data import Preprocessor, pad_batch
from authorguard.neural.a4nt.text import PLACEHOLDER_MODES, Vocabulary, detokenize, fill_placeholders

SELECTIONS = ("random", "max-meteor", "min-meteor")


def document_seed(seed: int | None, key) -> int | None:
    """A document's own seed from (``seed``, its id or position): rewrites do not depend on batching."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([int(seed), *map(ord, str(key))]).generate_state(1)[0])


class A4NTModel:
    """The generators of one variant (``cycml-lang``, ``cycml``, ``fbsem``, ... or ``autoencoder``: the
    pre-trained decoders, the paper's autoencoder baseline; ``neutral-cycml-lang``, ... or
    ``neutral-autoencoder``: the neutral objective's one generator) and the folder's pre-processing and
    classifier."""

    def __init__(self, folder: str | Path, variant: str = "cycml-lang") -> None:
        from authorguard.neural.a4nt.folder import load_network, load_splitter

        self.folder = Path(folder)
        if not (self.folder / "config.json").is_file():
            raise InputError(
                f"{self.folder} is not an A4NT model folder (no config.json): train one with authorguard a4nt train"
            )
        try:
            stored = json.loads((self.folder / "config.json").read_text(encoding="utf-8"))
            self.classes: list[str] = list(stored["classes"])
            shared = stored["shared"]
            self.vocabulary = Vocabulary.load(self.folder / "vocabulary.json")
            splitter = load_splitter(self.folder)
        except (OSError, KeyError, ValueError) as error:
            raise InputError(f"A4NT model folder {self.folder} is incomplete or corrupt: {error}") from None
        self.setting = shared["setting"]
        self.max_tokens = int(shared["max_tokens"])
        masks = shared.get("entities_to_labels")
        self.preprocessor = Preprocessor(
            splitter, self.max_tokens, self.setting.startswith("speech") if masks is None else bool(masks)
        )
        self.variant = variant
        #: one generator for every source class (no direction): the neutral objective and its autoencoder
        self.neutral = is_neutral(variant)
        path = self.folder / generator_file(variant)
        if not path.is_file():
            trained = sorted(p.parent.name for p in self.folder.glob("*/generator.pt"))
            trained += [name for name in AUTOENCODERS if (self.folder / generator_file(name)).exists()]
            raise InputError(
                f"A4NT model folder {self.folder} has no {variant!r} generator (trained: "
                f"{', '.join(trained) or 'none'})"
            )
        self.generator = load_network(path, "generator")
        if self.generator.vocab_size != len(self.vocabulary):
            raise InputError(f"{path} was trained with another vocabulary than {self.folder / 'vocabulary.json'}")
        self._classifier = None

    @property
    def classifier(self):
        """The attribute classifier trained on real sentences (frozen; never the GAN's discriminator)."""
        if self._classifier is None:
            from authorguard.neural.a4nt.folder import load_network

            self._classifier = load_network(self.folder / "classifier.pt", "classifier")
        return self._classifier

    def encode_documents(self, texts: list[str]) -> list[list[list[int]]]:
        """Per document, its sentences as token ids (see :class:`~authorguard.neural.a4nt.data.Preprocessor`)."""
        return self._encode(self.preprocessor.sentences_with_numbers(texts))

    def _encode(self, pieces: list[list[tuple[list[str], list[str]]]]) -> list[list[list[int]]]:
        """:meth:`Preprocessor.sentences_with_numbers`'s output as token ids."""
        return [[self.vocabulary.encode(tokens) for tokens, _ in document] for document in pieces]

    def class_index(self, attribute) -> int:
        if str(attribute) not in self.classes:
            raise InputError(
                f"attribute {attribute!r} is unknown to the A4NT model in {self.folder} (classes: "
                f"{', '.join(self.classes)})"
            )
        return self.classes.index(str(attribute))

    def predict_classes(self, documents: list[list[list[int]]]) -> list[int]:
        """The classifier's class of each document: the sum of its sentences' log-probabilities (paper, Sec. 6.1)."""
        from authorguard.neural.a4nt.classifiers import sentence_scores

        out = []
        for sentences in documents:
            scores = sentence_scores(self.classifier, sentences or [[Vocabulary.unk]])
            out.append(int(scores.sum(0).argmax()))
        return out

    def target_of(self, source: int) -> int:
        """The decoder a source class's sentences go through: the other class (binary settings; otherwise the next
        one), or the one decoder of a neutral generator."""
        return 0 if self.neutral else (source + 1) % len(self.classes)

    def rewrite(
        self,
        sentences: list[list[int]],
        source: int,
        samples: int = 1,
        select: str = "random",
        seed: int | None = None,
        batch_size: int = 256,
    ) -> list[list[str]]:
        """Rewrite one document's sentences (token ids) from class ``source``; returns token lists."""
        import torch

        from authorguard.metrics.content import meteor
        from authorguard.utils.weights import torch_generator

        if select not in SELECTIONS:
            raise InputError(f"unknown A4NT selection {select!r} (known: {', '.join(SELECTIONS)})")
        generator = torch_generator(seed)
        rng = np.random.default_rng(seed)
        target = self.target_of(source)
        out: list[list[str]] = []
        with torch.no_grad():
            for start in range(0, len(sentences), batch_size):
                chunk = sentences[start : start + batch_size]
                ids, mask = pad_batch([s or [Vocabulary.unk] for s in chunk])
                candidates = []
                for _ in range(samples):
                    result = self.generator.generate(
                        ids, mask, target, self.max_tokens + 5, "greedy" if samples == 1 else "sample", 1.0, generator
                    )
                    candidates.append([self.vocabulary.decode(row) for row in result["tokens"].tolist()])
                for i, original in enumerate(chunk):
                    options = [c[i] for c in candidates]
                    if samples == 1 or select == "random":
                        out.append(options[int(rng.integers(len(options)))] if samples > 1 else options[0])
                        continue
                    reference = detokenize(self.vocabulary.decode(original))
                    scores = [meteor(reference, detokenize(o)) for o in options]
                    pick = int(np.argmax(scores) if select == "max-meteor" else np.argmin(scores))
                    out.append(options[pick])
        return out

    def obfuscate(
        self,
        texts: list[str],
        attributes=None,
        samples: int = 1,
        select: str = "random",
        seed: int | None = None,
        keys=None,
        placeholders: str = "copy",
    ) -> list[str]:
        """Rewrite each document; ``attributes`` (one per document) name its source class — None: the model's
        classifier decides. ``keys`` (ids) derive each document's seed; positions by default. ``placeholders``:
        what ``<unk>`` and ``NUM`` in a rewrite become (``keep``, ``drop``, ``copy``; module docstring)."""
        if placeholders not in PLACEHOLDER_MODES:
            raise InputError(f"unknown A4NT placeholders {placeholders!r} (known: {', '.join(PLACEHOLDER_MODES)})")
        pieces = self.preprocessor.sentences_with_numbers(list(texts))
        documents = self._encode(pieces)
        if self.neutral:  # no direction: every document goes through the same generator
            sources = [0] * len(documents)
        elif attributes is None:
            sources = self.predict_classes(documents)
        else:
            attributes = list(attributes)
            if len(attributes) != len(documents):
                raise InputError(f"{len(documents)} documents but {len(attributes)} attributes")
            sources = [self.class_index(a) for a in attributes]
        keys = list(range(len(documents))) if keys is None else list(keys)
        out = []
        for sentences, inputs, source, key in zip(documents, pieces, sources, keys):
            rewritten = self.rewrite(sentences, source, samples, select, document_seed(seed, key)) if sentences else []
            filled = [
                fill_placeholders(r, tokens, numbers, self.vocabulary, placeholders)
                for r, (tokens, numbers) in zip(rewritten, inputs)
            ]
            if not any(filled):  # a rewrite of placeholders alone: the user gets it as written, never an empty text
                filled = rewritten
            # a sentence emptied by dropping its placeholders leaves no gap; ``keep`` joins exactly as before
            out.append(" ".join(detokenize(s) for s in filled if s or placeholders == "keep"))
        return out
