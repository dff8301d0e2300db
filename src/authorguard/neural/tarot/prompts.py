"""Documents -> policy prompts -> documents: chunking, the chat prompt, cleaning what the policy writes.

A document is cut into paragraphs (blank lines), each paragraph into sentences (:class:`SentenceSplitter`,
Punkt without training: it splits at ``.``/``!``/``?`` before a space), and consecutive sentences are grouped
into chunks of at most ``max_tokens`` policy tokens. A sentence longer than that is cut between words into pieces
that fit; nothing is dropped or truncated. :func:`reassemble` joins rewritten chunks back: chunks of one paragraph
with a space, paragraphs with a blank line — so ``reassemble`` of the *unrewritten* chunks gives the document's
characters back in order, only whitespace inside a paragraph may differ.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from authorguard.text.sentences import SentenceSplitter

_PARAGRAPHS = re.compile(r"\n\s*\n")
# a first line that announces the rewrite instead of being part of it ("Here's a rewritten version of ...:")
_PREAMBLE = re.compile(
    r"^\s*(?:sure[,!.]?\s*)?(?:here(?:'s| is| are)|below is|this is)\b[^\n]{0,160}?"
    r"(?:rewrit|version|paraphras|obfuscat|revised|text|paragraph)[^\n]{0,80}?:\s*",
    re.IGNORECASE,
)
_QUOTES = ('"', "\u201c", "\u201d", "'")


@dataclass(frozen=True)
class Chunk:
    """One piece of a document: its ``text``, the ``document`` and ``paragraph`` index it came from."""

    text: str
    document: int
    paragraph: int


def chunk_documents(texts: Sequence[str], count_tokens: Callable[[str], int], max_tokens: int) -> list[Chunk]:
    """Every document's chunks, in document order; a blank document has none (it is rewritten as ""), every other
    document at least one. ``count_tokens(text)`` is the policy tokenizer's length of ``text``."""
    splitter = SentenceSplitter()
    chunks: list[Chunk] = []
    for index, text in enumerate(texts):
        for number, paragraph in enumerate(p for p in _PARAGRAPHS.split(text) if p.strip()):
            pieces: list[str] = []
            for sentence in splitter.split(paragraph) or [paragraph.strip()]:
                pieces.extend(_fit(sentence, count_tokens, max_tokens))
            group: list[str] = []
            for piece in pieces:
                if group and count_tokens(" ".join(group + [piece])) > max_tokens:
                    chunks.append(Chunk(" ".join(group), index, number))
                    group = []
                group.append(piece)
            if group:
                chunks.append(Chunk(" ".join(group), index, number))
    return chunks


def _fit(sentence: str, count_tokens: Callable[[str], int], max_tokens: int) -> list[str]:
    """``sentence`` cut between words into pieces of at most ``max_tokens`` tokens (a single word longer than that
    stays whole: cutting inside a word would change the text)."""
    if count_tokens(sentence) <= max_tokens:
        return [sentence]
    pieces: list[str] = []
    current: list[str] = []
    for word in sentence.split():
        if current and count_tokens(" ".join(current + [word])) > max_tokens:
            pieces.append(" ".join(current))
            current = []
        current.append(word)
    if current:
        pieces.append(" ".join(current))
    return pieces


def reassemble(chunks: Sequence[Chunk], rewrites: Sequence[str], n_documents: int) -> list[str]:
    """The rewritten documents: ``rewrites[i]`` replaces ``chunks[i]``; chunks of a paragraph joined by a space,
    paragraphs by a blank line. One output per document, in order ("" for a document without chunks)."""
    if len(chunks) != len(rewrites):
        raise ValueError(f"{len(chunks)} chunks but {len(rewrites)} rewrites")
    paragraphs: list[dict[int, list[str]]] = [{} for _ in range(n_documents)]
    for chunk, rewrite in zip(chunks, rewrites):
        paragraphs[chunk.document].setdefault(chunk.paragraph, []).append(rewrite.strip())
    return ["\n\n".join(" ".join(p) for _, p in sorted(doc.items())) for doc in paragraphs]


def render_prompt(tokenizer, instruction: str, text: str) -> str:
    """The chat-formatted prompt (the tokenizer's chat template, generation prompt appended) asking to rewrite
    ``text``: one user turn, ``instruction``, a blank line, the text."""
    return tokenizer.apply_chat_template(
        [{"role": "user", "content": f"{instruction}\n\n{text}"}], tokenize=False, add_generation_prompt=True
    )


def clean_rewrite(text: str) -> str:
    """What the policy wrote, minus an announcing first line ("Here is the rewritten paragraph:") and quotes
    wrapped around the whole answer."""
    text = _PREAMBLE.sub("", text, count=1).strip()
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text
