"""Author-level DP-SGD text synthesis on a tiny Llama with a character tokenizer: the contribution bound, each
author's gradient against plain autograd, the Poisson draws of authors, a loss that falls, the sampled posts'
format, the privacy report and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")
pytest.importorskip("opacus")

from authorguard.exceptions import InputError  # noqa: E402
from authorguard.neural.dp_text.config import DPTextConfig  # noqa: E402
from authorguard.neural.dp_text.data import author_examples, format_post, label_prompt, padded  # noqa: E402
from authorguard.neural.dp_text.synthesiser import AuthorLevelTextSynthesiser  # noqa: E402
from authorguard.neural.dp_text.trainer import author_gradients, post_losses, train, with_lora  # noqa: E402

CHARACTERS = "".join(chr(c) for c in range(32, 127)) + "\n"


class CharacterTokenizer:
    """One id a character (0 = end of text, also the padding), enough of a tokenizer's interface for these tests."""

    eos_token, eos_token_id, pad_token_id = "\x00", 0, 0

    def __call__(self, text, add_special_tokens=False, return_tensors=None):
        ids = [0 if c == "\x00" else CHARACTERS.index(c) + 1 for c in text if c == "\x00" or c in CHARACTERS]
        return {"input_ids": torch.tensor([ids]) if return_tensors == "pt" else ids}

    def batch_decode(self, rows, skip_special_tokens=True):
        return ["".join(CHARACTERS[i - 1] for i in row.tolist() if i > 0).split("\x00")[0] for row in rows]


def tiny_base():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(CHARACTERS) + 1,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        eos_token_id=0,
        pad_token_id=0,
    )
    return LlamaForCausalLM(config), CharacterTokenizer()


def corpus(authors=12, posts=6):
    texts, who, labels = [], [], []
    for a in range(authors):
        for p in range(posts):
            label = "sports" if a % 2 else "cooking"
            texts.append(f"the {label} post {p} of writer {a} is here")
            who.append(f"writer-{a}")
            labels.append(label)
    return texts, who, labels


TINY = DPTextConfig(
    epsilon=8.0, posts_per_author=3, max_tokens=48, steps=4, authors_per_step=6, micro_batch=4, lora_rank=4,
    lora_targets=("q_proj", "v_proj"), max_new_tokens=40, sample_batch=8,
)  # fmt: skip


def test_each_author_counts_at_most_the_bound_chosen_the_same_in_any_order():
    texts, authors, labels = corpus()
    texts, authors, labels = (
        [*texts, *["one more prolific post"] * 40],
        [*authors, *["writer-0"] * 40],
        labels + ["cooking"] * 40,
    )
    tokenizer = CharacterTokenizer()
    ids = [f"post-{i}" for i in range(len(texts))]
    examples = author_examples(texts, authors, labels, tokenizer, TINY, seed=3, ids=ids)
    assert np.bincount(examples.author_of).max() == TINY.posts_per_author and examples.n_authors == 12
    assert examples.posts_dropped == len(texts) - 12 * TINY.posts_per_author
    assert all(len(ids) <= TINY.max_tokens for ids in examples.token_ids)
    order = np.random.default_rng(0).permutation(len(texts))
    again = author_examples([texts[i] for i in order], [authors[i] for i in order], [labels[i] for i in order],
                            tokenizer, TINY, seed=3, ids=[ids[i] for i in order])  # fmt: skip
    assert sorted(map(tuple, again.token_ids)) == sorted(map(tuple, examples.token_ids))


def test_an_authors_gradient_is_the_mean_over_their_posts_whatever_the_micro_batches():
    from opacus import GradSampleModule

    texts, authors, labels = corpus()
    model, tokenizer = tiny_base()
    model = with_lora(model, TINY, seed=0)
    with torch.no_grad():  # a non-zero B, so that every adapter matrix has a gradient
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.1)
    examples = author_examples(texts, authors, labels, tokenizer, TINY, seed=0)
    params = [p for p in model.parameters() if p.requires_grad]
    drawn = np.array([1, 4, 7])
    module = GradSampleModule(model, batch_first=True, loss_reduction="sum")
    sums, _ = author_gradients(module, params, examples, drawn, TINY, 0, "cpu")
    module.disable_hooks()
    assert [tuple(s.shape) for s in sums] == [(3, *p.shape) for p in params]
    for row, author in enumerate(drawn):
        ids, mask = padded([examples.token_ids[i] for i in examples.posts_of([author])], 0)
        expected = torch.autograd.grad(post_losses(model, ids, mask).mean(), params)
        for got, want in zip(sums, expected):
            torch.testing.assert_close(got[row], want, rtol=1e-4, atol=1e-6)
    module.cleanup()


def pooled(observed, expected, least: float = 5.0):
    """Observed and expected counts with neighbouring bins merged until each expects at least ``least``."""
    bins_observed, bins_expected, o, e = [], [], 0.0, 0.0
    for count, want in zip(observed, expected):
        o, e = o + count, e + want
        if e >= least:
            bins_observed.append(o), bins_expected.append(e)
            o = e = 0.0
    bins_observed[-1] += o
    bins_expected[-1] += e
    return np.asarray(bins_observed), np.asarray(bins_expected)


@pytest.fixture(scope="module")
def recorded_run():
    """A 60-step run of 40 authors (q = 1/4, σ = 0.3), recording which authors each step drew and what the
    optimiser was handed: its per-sample rows, the noise it added and the divisor it used."""
    from opacus.optimizers import DPOptimizer

    from authorguard.neural.dp_text import trainer

    texts, authors, labels = corpus(authors=40, posts=3)
    model, tokenizer = tiny_base()
    every = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    config = DPTextConfig(
        **{**TINY.__dict__, "steps": 60, "authors_per_step": 10, "learning_rate": 2e-2, "lora_targets": every}
    )
    model = with_lora(model, config, seed=0)
    examples = author_examples(texts, authors, labels, tokenizer, config, seed=0)
    seen = {"drawn": [], "rows": [], "noise": [], "divisor": []}
    gradients, accumulate, add_noise = trainer.author_gradients, DPOptimizer.clip_and_accumulate, DPOptimizer.add_noise

    def drawing(module, params, examples, drawn, *rest):
        seen["drawn"].append(drawn.copy())
        return gradients(module, params, examples, drawn, *rest)

    def accumulating(self):
        seen["rows"].append(len(self.grad_samples[0]))
        seen["divisor"].append(self.expected_batch_size)
        return accumulate(self)

    def noising(self):
        summed = [p.summed_grad.clone() for p in self.params]
        add_noise(self)
        seen["noise"].append(torch.cat([(p.grad - s).flatten() for p, s in zip(self.params, summed)]))

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(trainer, "author_gradients", drawing)
        patched.setattr(DPOptimizer, "clip_and_accumulate", accumulating)
        patched.setattr(DPOptimizer, "add_noise", noising)
        log = train(model, examples, config, noise_multiplier=0.3, pad_id=0, seed=1)
    return log, seen, config


def test_each_step_hands_the_optimiser_one_clipped_row_per_drawn_author_and_noise_at_the_stated_scale(recorded_run):
    log, seen, config = recorded_run
    nonempty = [n for n in log.drawn if n]
    assert [len(d) for d in seen["drawn"]] == nonempty  # the gradients were asked for the drawn authors only
    assert [r for r in seen["rows"] if r] == nonempty  # one row per author, not per post (each has 3 posts)
    assert seen["divisor"] == pytest.approx([log.sample_rate * 40] * len(seen["divisor"]))  # expected, not drawn
    noise = torch.cat(seen["noise"]).numpy()
    assert len(seen["noise"]) == config.steps  # every step is noised, an empty one too
    assert np.std(noise) == pytest.approx(0.3 * config.clip, rel=0.03) and abs(np.mean(noise)) < 0.01


def test_authors_are_drawn_independently_at_the_sampling_rate_and_the_loss_falls(recorded_run):
    log, seen, config = recorded_run
    assert log.sample_rate == pytest.approx(10 / 40)
    observed, expected = pooled(np.bincount(log.drawn, minlength=41), stats.binom.pmf(np.arange(41), 40, 0.25) * 60)
    assert stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > 0.001
    per_author = np.bincount(np.concatenate(seen["drawn"]), minlength=40)  # each ~ Binomial(60, 1/4), alike
    assert stats.chisquare(per_author).pvalue > 0.001 and per_author.min() > 0
    losses = np.asarray(log.losses)
    assert np.nanmean(losses[-10:]) < np.nanmean(losses[:10]) - 0.05  # flat (±0.01 from the draws) if nothing learnt


def test_a_seeded_fit_is_reproduced_to_the_bit_its_adapter_included():
    texts, authors, labels = corpus()

    def base_leaving_the_global_generator_anywhere():  # as loading a real model may
        model, tokenizer = tiny_base()
        torch.seed()
        return model, tokenizer

    def fitted():
        model = AuthorLevelTextSynthesiser(
            ("cooking", "sports"), TINY, base=base_leaving_the_global_generator_anywhere, random_state=3
        )
        model.fit(texts, authors, labels)
        return model.log_.losses, [p.detach().clone() for p in model.model_.parameters() if p.requires_grad]

    (losses, adapter), (again, adapter_again) = fitted(), fitted()
    assert losses == again and all(torch.equal(a, b) for a, b in zip(adapter, adapter_again))


def test_synthetic_posts_carry_a_class_and_the_report_states_the_guarantee():
    texts, authors, labels = corpus()
    classes = ("cooking", "sports")
    synthesiser = AuthorLevelTextSynthesiser(classes, TINY, base=tiny_base, random_state=0).fit(texts, authors, labels)
    got_labels, got_texts = synthesiser.sample(8, seed=0)
    assert len(got_labels) == len(got_texts) <= 8
    assert set(got_labels) <= {"sports", "cooking"} and all(t.strip() for t in got_texts)
    assert len(got_texts) + synthesiser.discarded_ >= 8
    assert synthesiser.sample(8, seed=0) == (got_labels, got_texts)  # seeded
    shares = synthesiser.label_shares()
    assert shares.shape == (2,) and shares.sum() == pytest.approx(1.0) and (shares > 0).all()
    report = synthesiser.privacy_report()
    assert report["unit"] == "author" and report["epsilon"] <= TINY.epsilon and report["classes"] == list(classes)
    assert report["sample_rate"] == pytest.approx(6 / 12) and report["noise_multiplier"] > 0
    assert "seed 0" in report["seed"] and "secret" in report["seed"]  # a research run says what its ε rests on
    assert not {"posts_counted", "posts_dropped", "authors"} & set(report)  # exact counts are not covered
    secure = AuthorLevelTextSynthesiser(classes, TINY, base=tiny_base, secure=True).fit(texts, authors, labels)
    assert secure.privacy_report()["seed"].startswith("secret")


def test_a_post_is_sampled_after_the_prompt_it_was_trained_under():
    written = format_post("sports", "A  good\ngame.")
    assert written == "Label: sports\nPost: A good game."
    assert written.startswith(label_prompt("sports")) and written[len(label_prompt("sports")) :] == " A good game."
    tokenizer = CharacterTokenizer()  # the prompt's tokens begin the training post's: sampling continues the format
    prompt = tokenizer(label_prompt("sports"))["input_ids"]
    assert tokenizer(written)["input_ids"][: len(prompt)] == prompt


def test_bad_input_is_refused_in_one_line_naming_it(monkeypatch):
    from authorguard.utils import extras

    tokenizer = CharacterTokenizer()
    with monkeypatch.context() as patched:
        patched.setattr(extras, "importable", lambda module: module != "peft")
        with pytest.raises(extras.MissingExtraError, match=r"DP text needs peft: pip install 'authorguard\[neural\]'"):
            AuthorLevelTextSynthesiser(["cooking", "sports"], TINY, base=tiny_base).fit(*corpus())
    with pytest.raises(InputError, match="fewer than two authors"):
        author_examples(["a", "b"], ["x", "x"], ["l", "l"], tokenizer, TINY, seed=0)
    with pytest.raises(InputError, match="2 texts, 1 authors"):
        author_examples(["a", "b"], ["x"], ["l", "l"], tokenizer, TINY, seed=0)
    with pytest.raises(InputError, match="epsilon"):
        DPTextConfig(epsilon=0)
    with pytest.raises(InputError, match="fit the synthesiser"):
        AuthorLevelTextSynthesiser(["a", "b"], TINY, base=tiny_base).sample(3)
    with pytest.raises(InputError, match="fit the synthesiser"):
        AuthorLevelTextSynthesiser(["a", "b"], TINY, base=tiny_base).privacy_report()
    with pytest.raises(InputError, match="labels outside the task's classes: cooking"):
        AuthorLevelTextSynthesiser(["sports", "chess"], TINY, base=tiny_base).fit(*corpus())
    with pytest.raises(InputError, match="two classes or more"):
        AuthorLevelTextSynthesiser(["sports"], TINY, base=tiny_base)
