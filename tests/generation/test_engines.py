"""The generation engines on a tiny random Llama with SmolLM2's tokenizer: the batched decoder agrees with
transformers' ``generate``, is seeded, keeps one output per prompt in order, and hands DP-Prompt's sampler the
model's own logits."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from authorguard.exceptions import InputError  # noqa: E402
from authorguard.generation import ClippedSampler, GreedySampler, NucleusSampler, make_engine  # noqa: E402
from authorguard.neural.tarot.prompts import render_prompt  # noqa: E402

TEXTS = [
    "The cat sat on the mat.",
    "We drove to the coast and it rained all weekend, which nobody minded.",
    "Hello.",
    "A much longer paragraph about the weather, the trains, and the dog that barked all night long.",
    "Ok.",
]


@pytest.fixture(scope="module")
def prompts(tokenizer):
    return [render_prompt(tokenizer, "Rewrite.", t) for t in TEXTS]


def test_greedy_outputs_of_the_batched_decoder_equal_transformers_generate(tiny_factory, prompts):
    model, tokenizer = tiny_factory()
    reference = make_engine("torch", model, tokenizer).generate(
        prompts, max_new_tokens=16, sampler=GreedySampler(), seed=0, batch_size=2
    )
    batched = make_engine("batched", model, tokenizer, dtype="float32").generate(
        prompts, max_new_tokens=16, sampler=GreedySampler(), seed=0, batch_size=3
    )
    assert batched.token_ids == reference.token_ids
    assert batched.texts == reference.texts and batched.new_tokens == reference.new_tokens == [16] * len(prompts)


def test_the_batched_decoder_is_seeded_and_leaves_the_caller_model_alone(tiny_factory, prompts):
    model, tokenizer = tiny_factory()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    engine = make_engine("batched", model, tokenizer)  # bfloat16 where native
    sampler = NucleusSampler(0.9, 0.95)
    first = engine.generate(prompts, max_new_tokens=10, sampler=sampler, seed=3, batch_size=2)
    again = engine.generate(prompts, max_new_tokens=10, sampler=sampler, seed=3, batch_size=2)
    other = engine.generate(prompts, max_new_tokens=10, sampler=sampler, seed=4, batch_size=2)
    assert first.texts == again.texts and first.texts != other.texts
    assert len(first.texts) == len(prompts) and all(1 <= n <= 10 for n in first.new_tokens)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert next(model.parameters()).dtype == torch.float32


def test_a_forward_patched_over_the_original_model_is_not_what_the_engine_runs(tiny_factory, prompts):
    """trl's DPO trainer wraps ``model.forward`` in a closure over the original module; a copy keeping that patch
    would decode with the original's float32 weights against its own bfloat16 cache (or silently not be a copy)."""
    import types

    from peft import LoraConfig, get_peft_model

    model, tokenizer = tiny_factory()
    expected = make_engine("batched", model, tokenizer).generate(
        prompts, max_new_tokens=8, sampler=GreedySampler(), seed=0, batch_size=5
    )
    original_forward = model.forward

    def patched(self, *args, **kwargs):
        raise AssertionError("the engine ran the original model's forward")

    model.forward = types.MethodType(patched, model)
    try:
        got = make_engine("batched", model, tokenizer).generate(
            prompts, max_new_tokens=8, sampler=GreedySampler(), seed=0, batch_size=5
        )
        peft_model = get_peft_model(model, LoraConfig(r=2, target_modules=["q_proj"], task_type="CAUSAL_LM"))
        merged = make_engine("batched", peft_model, tokenizer).generate(
            prompts, max_new_tokens=8, sampler=GreedySampler(), seed=0, batch_size=5
        )
    finally:
        model.forward = original_forward
    assert got.token_ids == expected.token_ids
    assert merged.token_ids == expected.token_ids  # a fresh LoRA adapter (B = 0) changes nothing


class FinishEarly(GreedySampler):
    """Greedy, except that the first call ends rows 0 and 2 (so the decoder drops them from its batch)."""

    def __init__(self, eos: int) -> None:
        self.eos, self.calls = eos, 0

    def __call__(self, logits, generator):
        ids = super().__call__(logits, generator)
        if self.calls == 0:
            ids[0] = ids[2] = self.eos
        self.calls += 1
        return ids


def test_rows_that_finish_leave_the_batch_without_changing_the_others(tiny_factory, prompts):
    model, tokenizer = tiny_factory()
    engine = make_engine("batched", model, tokenizer, dtype="float32")
    plain = engine.generate(prompts[:4], max_new_tokens=12, sampler=GreedySampler(), seed=0, batch_size=4)
    early = engine.generate(
        prompts[:4], max_new_tokens=12, sampler=FinishEarly(tokenizer.eos_token_id), seed=0, batch_size=4
    )
    # the batch is ordered by prompt length: find which prompts were batch rows 0 and 2
    lengths = [len(tokenizer(p, add_special_tokens=False)["input_ids"]) for p in prompts[:4]]
    order = sorted(range(4), key=lambda i: lengths[i])
    ended = {order[0], order[2]}
    for i in range(4):
        if i in ended:
            assert early.token_ids[i] == [tokenizer.eos_token_id] and early.texts[i] == ""
        else:
            assert early.token_ids[i] == plain.token_ids[i]


class EndRows(GreedySampler):
    """Greedy, except that the first call ends the given batch rows."""

    def __init__(self, eos: int, rows) -> None:
        self.eos, self.rows, self.calls = eos, rows, 0

    def __call__(self, logits, generator):
        ids = super().__call__(logits, generator)
        if self.calls == 0:
            ids[list(self.rows)] = self.eos
        self.calls += 1
        return ids


def test_queued_prompts_join_a_batch_that_is_still_decoding_without_changing_any_output(tiny_factory, prompts):
    model, tokenizer = tiny_factory()
    eos = tokenizer.eos_token_id
    alone = make_engine("torch", model, tokenizer).generate(
        prompts, max_new_tokens=12, sampler=GreedySampler(), seed=0, batch_size=1
    )
    lengths = [len(tokenizer(p, add_special_tokens=False)["input_ids"]) for p in prompts]
    order = sorted(range(len(prompts)), key=lambda i: lengths[i])
    assert lengths[order[3]] > lengths[order[1]]  # the longest live prompt leaves: its cache columns are trimmed
    # batch rows 0 and 3 (the shortest and longest of the first four) end at once; the fifth, longer than every
    # live row, joins the two rows still decoding
    out = make_engine("batched", model, tokenizer, dtype="float32").generate(
        prompts, max_new_tokens=12, sampler=EndRows(eos, [0, 3]), seed=0, batch_size=4
    )
    for i in range(len(prompts)):
        if i in (order[0], order[3]):
            assert out.token_ids[i] == [eos]
        else:
            assert out.token_ids[i] == alone.token_ids[i]


class Recording(ClippedSampler):
    """DP-Prompt's sampler, keeping the logits it was handed at every step."""

    def __call__(self, logits, generator):
        self.__dict__.setdefault("seen", []).append(logits.clone())
        return super().__call__(logits, generator)


def test_the_dp_sampler_receives_the_model_logits_of_each_step(tiny_factory, prompts):
    model, tokenizer = tiny_factory()
    sampler = Recording(-2.0, 0.0, 1.5, relative=True)
    out = make_engine("batched", model, tokenizer, dtype="float32").generate(
        prompts[:1], max_new_tokens=5, sampler=sampler, seed=1
    )
    prompt = tokenizer(prompts[0], add_special_tokens=False, return_tensors="pt")["input_ids"]
    sequence = torch.cat([prompt, torch.tensor([out.token_ids[0]])], 1)
    with torch.no_grad():
        full = model(sequence).logits[0]
    for step, seen in enumerate(sampler.seen):
        torch.testing.assert_close(seen[0], full[prompt.shape[1] - 1 + step], atol=1e-4, rtol=1e-4)


def test_unsecured_draws_from_the_os_csprng_still_give_one_output_per_prompt(tiny_factory, prompts):
    model, tokenizer = tiny_factory()
    out = make_engine("batched", model, tokenizer).generate(
        prompts, max_new_tokens=4, sampler=ClippedSampler(-3, 0, 1.0, True), seed=None, batch_size=2
    )
    assert len(out.texts) == len(prompts) and all(1 <= n <= 4 for n in out.new_tokens)


def test_unknown_engines_and_precisions_are_one_line_errors(tiny_factory):
    model, tokenizer = tiny_factory()
    with pytest.raises(InputError, match="unknown generation engine 'vllm'"):
        make_engine("vllm", model, tokenizer)
    with pytest.raises(InputError, match="unknown dtype"):
        make_engine("batched", model, tokenizer, dtype="int3")
