"""Chunking round trips, the chat prompt, cleaning the policy's answer."""

from __future__ import annotations

import re

import pytest

from authorguard.neural.tarot.prompts import chunk_documents, clean_rewrite, reassemble, render_prompt


def _words(tokenizer):
    return lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _normal(text: str) -> str:
    return "\n\n".join(" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip())


def test_chunks_round_trip_real_newsgroup_text(tokenizer):
    from authorguard import registry

    corpus = registry.datasets.get("20news")()
    texts = [t for t in corpus.texts[:40] if t.strip()]
    count = _words(tokenizer)
    chunks = chunk_documents(texts, count, 48)
    assert {c.document for c in chunks} == set(range(len(texts)))  # every document has a chunk
    back = reassemble(chunks, [c.text for c in chunks], len(texts))
    # the same characters in the same order, whitespace aside, and the same paragraphs
    assert ["".join(t.split()) for t in back] == ["".join(t.split()) for t in texts]
    assert [_normal(t).count("\n\n") for t in back] == [_normal(t).count("\n\n") for t in texts]
    for chunk in chunks:  # a chunk over the limit is a single word that cannot be cut
        assert count(chunk.text) <= 48 or len(chunk.text.split()) == 1


def test_an_overlong_sentence_is_cut_between_words_not_dropped(tokenizer):
    count = _words(tokenizer)
    sentence = " ".join(f"word{i}" for i in range(300)) + "."
    chunks = chunk_documents(["Short start. " + sentence + " End here."], count, 40)
    assert len(chunks) > 5
    assert " ".join(c.text for c in chunks).split() == ("Short start. " + sentence + " End here.").split()
    assert all(count(c.text) <= 40 for c in chunks)


def test_rewrites_are_reassembled_per_document_and_paragraph(tokenizer):
    chunks = chunk_documents(["One. Two.\n\nThree.", "Four."], _words(tokenizer), 2)
    out = reassemble(chunks, [f"<{c.text}>" for c in chunks], 2)
    assert out == ["<One.> <Two.>\n\n<Three.>", "<Four.>"]
    blank = chunk_documents(["", "Five.", " \n\n "], _words(tokenizer), 10)
    assert [c.document for c in blank] == [1]
    assert reassemble(blank, ["<5>"], 3) == ["", "<5>", ""]
    with pytest.raises(ValueError):
        reassemble(chunks, ["x"], 2)


def test_prompt_holds_the_instruction_and_the_text_and_asks_for_the_answer(tokenizer):
    prompt = render_prompt(tokenizer, "Rewrite this.", "The cat sat.")
    assert "Rewrite this.\n\nThe cat sat." in prompt
    assert prompt.rstrip().endswith("assistant")  # the generation prompt opens the assistant turn


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("Here is a rewritten version of the paragraph:\n\nThe cat sat.", "The cat sat."),
        ("Sure! Here's the obfuscated text: The cat sat.", "The cat sat."),
        ('"The cat sat."', "The cat sat."),
        ("Here comes the sun, he said.", "Here comes the sun, he said."),
        ("The cat sat: on the mat.", "The cat sat: on the mat."),
    ],
)
def test_clean_rewrite(raw, clean):
    assert clean_rewrite(raw) == clean
