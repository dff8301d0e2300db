"""Shared fixtures: real data from ../shared/data (20 Newsgroups, GloVe, NLTK), a global seed, and SmolLM2's real
tokenizer with a tiny randomly initialised Llama over it (the generation and neural tests)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
#: the corpora's local copies: $AUTHORGUARD_DATA when set (as scripts/test does), else ../shared/data
SHARED_DATA = Path(os.environ.get("AUTHORGUARD_DATA") or REPO_ROOT.parent / "shared" / "data")

# Tests and CI read local copies of the corpora: point the data directory (and NLTK) at ../shared/data.
os.environ.setdefault("AUTHORGUARD_DATA", str(SHARED_DATA))
os.environ.setdefault("NLTK_DATA", str(SHARED_DATA / "nltk_data"))
# `authorguard check` checks in its own process in the tests; tests/cli/test_check_server.py runs the resident server
os.environ.setdefault("AUTHORGUARD_CHECK_SERVER", "0")
GLOVE_TOP100K = Path(os.environ["AUTHORGUARD_DATA"]) / "glove" / "glove.6B.50d.top100k.txt.gz"

SMALL_WORDS = [
    "a",
    "i",
    "cat",
    "cats",
    "dog",
    "kitten",
    "puppy",
    "car",
    "truck",
    "catalog",
    "democracy",
    "election",
    "vote",
    "banana",
    "apple",
    "orange",
    "running",
    "run",
    "god",
    "atheist",
    "hockey",
    "game",
    "computer",
    "disk",
]


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("AUTHORGUARD_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="session")
def rng() -> np.random.Generator:
    return np.random.default_rng(20181)


@pytest.fixture(scope="session")
def small_vectors():
    """Real GloVe 6B 50d vectors of ~24 words (from the staged top-100k file)."""
    from authorguard.embeddings.glove import load_glove_text

    return load_glove_text(GLOVE_TOP100K, vocabulary=SMALL_WORDS)


@pytest.fixture(scope="session")
def newsgroups():
    from authorguard.data.newsgroups import load_20newsgroups

    return load_20newsgroups()


@pytest.fixture(scope="session")
def newsgroups_sample(newsgroups):
    """300 training messages from three newsgroups (seeded)."""
    groups = {"rec.sport.hockey", "sci.space", "talk.religion.misc"}
    positions = [
        i for i, (g, s) in enumerate(zip(newsgroups.labels, newsgroups.splits)) if g in groups and s == "train"
    ]
    chosen = np.sort(np.random.default_rng(7).choice(positions, size=300, replace=False))
    return newsgroups.subset(chosen)


@pytest.fixture(scope="session")
def tokenizer():
    """SmolLM2-135M-Instruct's real tokenizer, padding on the left (generation continues the prompt)."""
    pytest.importorskip("transformers")
    from authorguard.generation.reference_lm import load_reference_tokenizer

    tokenizer = load_reference_tokenizer()
    tokenizer.padding_side = "left"
    return tokenizer


@pytest.fixture(scope="session")
def tiny_factory(tokenizer):
    """() -> (a fresh tiny Llama with SmolLM2's vocabulary, the tokenizer); the same weights every call."""
    import copy

    pytest.importorskip("transformers")

    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    weights = LlamaForCausalLM(config).state_dict()

    def factory():
        model = LlamaForCausalLM(config)
        model.load_state_dict(copy.deepcopy(weights))
        model.eval()
        return model, copy.deepcopy(tokenizer)

    return factory


# -- a tiny realiser (the style bottleneck): the tiny Llama with a LoRA adapter trained a few steps on real views
REALISER_TEXTS = [
    "I didn't like the movie, honestly. It was way too long!",
    "We met Anna in Paris on 3 May. The weather was lovely.",
    "The kids can't go to school today; they'll stay home.",
    "My new bike is fast. I ride it to work every morning.",
    "She never answers my emails. Maybe she is busy with the project.",
    "Our team won the final game last night. Everyone was so happy.",
    "Prices went up again this month. We should buy less coffee.",
    "The garden needs water. Nobody remembered to turn on the sprinkler.",
]


def write_pairs(folder, levels=("content", "lemma", "canonical", "bag")) -> None:
    from authorguard.neural.realiser.data import chunk_view

    rows = [
        {
            "level": levels[i % len(levels)],
            "view": chunk_view(levels[i % len(levels)], t),
            "text": t,
            "author": f"test:{i}",
        }
        for i, t in enumerate(REALISER_TEXTS * 2)
    ]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture(scope="session")
def tiny_realiser_configs():
    pytest.importorskip("trl")
    from authorguard.neural.realiser.config import RealiserConfig, TrainingConfig

    return (
        RealiserConfig(
            max_view_words=12,
            max_new_tokens=12,
            lora_rank=4,
            lora_alpha=8,
            lora_dropout=0.0,
            lora_targets=("q_proj", "v_proj"),
        ),
        TrainingConfig(pairs=12, held_out=4, epochs=3, batch_size=4, learning_rate=5e-3, checkpoint_every=3),
    )


@pytest.fixture(scope="session")
def tiny_realiser(tmp_path_factory, tiny_factory, tiny_realiser_configs):
    """(folder, record) of a tiny realiser trained to the end."""
    from authorguard.neural.realiser.trainer import train_realiser

    folder = tmp_path_factory.mktemp("realiser")
    write_pairs(folder)
    record = train_realiser(folder, *tiny_realiser_configs, base=tiny_factory())
    return folder, record


# The writer's check (tests/check, tests/cli/test_check.py, tests/check/web): a tiny synthetic world where the answer is
# known — authors who differ only in their habits.
HABITS_COMMON = [
    "the",
    "day",
    "was",
    "long",
    "and",
    "we",
    "went",
    "to",
    "the",
    "shop",
    "then",
    "came",
    "back",
    "home",
    "to",
    "rest",
    "before",
    "the",
    "evening",
    "meal",
    "with",
    "friends",
    "who",
    "talked",
    "about",
    "work",
    "school",
    "weather",
    "music",
    "films",
    "and",
    "the",
    "news",
    "of",
    "the",
    "week",
]
HABITS = ["!!", "...", " ;", " :)", ",,", " -", "?!", " ~", " lol", " haha", " ok", " hmm", " meh", " yay"]
FAVOURITES = [
    "basically",
    "literally",
    "honestly",
    "totally",
    "anyway",
    "actually",
    "really",
    "seriously",
    "obviously",
    "definitely",
    "probably",
    "certainly",
    "simply",
    "clearly",
]


def author_text(author: int, words: int, rng: np.random.Generator) -> str:
    """``words`` words of common vocabulary with author ``author``'s favourite word and sentence ending."""
    out, sentence = [], []
    for _ in range(words):
        sentence.append(FAVOURITES[author] if rng.random() < 0.08 else str(rng.choice(HABITS_COMMON)))
        if len(sentence) >= rng.integers(8, 14):
            out.append(" ".join(sentence).capitalize() + HABITS[author])
            sentence = []
    if sentence:
        out.append(" ".join(sentence).capitalize() + HABITS[author])
    return " ".join(out)


@pytest.fixture(scope="module")
def habits_world():
    """(known writing of author 0, a new text of author 0, a text of author 3, a 13-author background)."""
    from authorguard.check.background import Background

    rng = np.random.default_rng(0)
    known = [author_text(0, 250, rng) for _ in range(8)]
    background = Background(
        {f"author-{a}": [author_text(a, 250, rng) for _ in range(10)] for a in range(1, 14)}, "own", "synthetic habits"
    )
    return known, author_text(0, 200, rng), author_text(3, 200, rng), background
