"""The three stages end to end on a tiny Llama (SmolLM2's tokenizer), real 20 Newsgroups prompts, a stub reward."""

from __future__ import annotations

import json

import numpy as np
import pytest

from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import (
    DPOConfig,
    PolicyConfig,
    PPOConfig,
    PreferenceConfig,
    PromptConfig,
    SFTConfig,
)
from authorguard.neural.tarot.trainer import run_dpo, run_ppo, run_preferences, run_sft

pytest.importorskip("trl")

POLICY = PolicyConfig(
    max_chunk_tokens=40, max_new_tokens=16, lora_rank=4, lora_alpha=8, lora_targets=("q_proj", "v_proj")
)
SFT = SFTConfig(
    prompts=PromptConfig(prompts=6, datasets=("20news",), min_words=10),
    candidates=2,
    max_copy=1.0,
    min_utility=-1.0,
    min_length_ratio=0.01,
    max_length_ratio=100.0,
    max_invented=1.0,
    epochs=2,
    batch_size=2,
    learning_rate=1e-3,
    checkpoint_every=2,
    generation_batch_size=4,
)
PREFS = PreferenceConfig(
    prompts=PromptConfig(prompts=8, offset=6, datasets=("20news",), min_words=10),
    epsilon_privacy=0.0,
    epsilon_utility=10.0,
    generation_batch_size=4,
)
DPO = DPOConfig(
    learning_rate=5e-3,
    batch_size=2,
    micro_batch_size=2,
    epochs=3,
    max_steps=5,
    precompute_reference=True,
    checkpoint_every=2,
)


@pytest.fixture(scope="module")
def corpora():
    from authorguard import registry

    return {"20news": registry.datasets.get("20news")()}


@pytest.fixture(scope="module")
def trained(tmp_path_factory, tiny_factory, corpora):
    from tests.neural.tarot.conftest import LengthReward

    folder = tmp_path_factory.mktemp("tarot")
    reward = LengthReward()
    sft = run_sft(folder, POLICY, SFT, reward=reward, base_factory=tiny_factory, corpora=corpora)
    prefs = run_preferences(folder, PREFS, reward=reward, base_factory=tiny_factory, corpora=corpora)
    dpo = run_dpo(
        folder, DPO, reward=reward, monitor_prompts=2, monitor_every=2, base_factory=tiny_factory, corpora=corpora
    )
    return folder, sft, prefs, dpo


def test_sft_trains_an_adapter_on_kept_rewrites(trained):
    from safetensors.numpy import load_file

    folder, sft, _, _ = trained
    assert sft["done"] and sft["prompts"] == 6 and 1 <= sft["examples_kept"] <= 6
    assert sum(sft["candidates"].values()) == 6 * 2  # every candidate counted once: kept or one reason
    losses = [h["loss"] for h in sft["history"] if "loss" in h]
    assert losses and all(np.isfinite(losses))
    weights = load_file(folder / "sft" / "adapter" / "adapter_model.safetensors")
    assert any("lora_B" in k and np.abs(v).max() > 0 for k, v in weights.items())  # B starts at zero: it trained


def test_a_done_stage_is_not_rerun_and_another_config_is_refused(trained, tiny_factory, corpora):
    folder, sft, _, _ = trained
    again = run_sft(folder, POLICY, SFT, base_factory=tiny_factory, corpora=corpora)
    assert again == json.loads((folder / "sft" / "sft.json").read_text())
    with pytest.raises(InputError, match="another config"):
        run_sft(folder, POLICY, SFTConfig(candidates=3), base_factory=tiny_factory, corpora=corpora)
    with pytest.raises(InputError, match="another policy"):
        run_sft(folder, PolicyConfig(), SFT, base_factory=tiny_factory, corpora=corpora)


def test_a_stage_recorded_before_a_config_field_existed_is_still_the_same_config(
    trained, tiny_factory, corpora, tmp_path
):
    import shutil

    folder, _, _, dpo = trained
    copy = tmp_path / "older"
    shutil.copytree(folder, copy)
    record = json.loads((copy / "dpo" / "dpo.json").read_text())
    for added in ("max_steps", "precompute_reference"):  # fields newer than some shipped records
        record["config"].pop(added)
    (copy / "dpo" / "dpo.json").write_text(json.dumps(record))
    assert DPO.max_steps is not None  # the test's config differs from the defaults the older record implies
    with pytest.raises(InputError, match="another config"):
        run_dpo(copy, DPO, base_factory=tiny_factory, corpora=corpora)
    defaults = DPOConfig(**{k: v for k, v in DPO.to_dict().items() if k not in ("max_steps", "precompute_reference")})
    assert run_dpo(copy, defaults, base_factory=tiny_factory, corpora=corpora)["done"]


def test_preference_pairs_prefer_the_more_private_rewrite(trained):
    from tests.neural.tarot.conftest import LengthReward

    folder, _, prefs, _ = trained
    rows = [json.loads(line) for line in (folder / "prefs" / "pairs.jsonl").read_text().splitlines()]
    assert len(rows) == prefs["filter"]["kept"] >= 1
    reward = LengthReward()
    chosen = reward([r["text"] for r in rows], [r["chosen"] for r in rows]).privacy
    rejected = reward([r["text"] for r in rows], [r["rejected"] for r in rows]).privacy
    assert np.all(chosen > rejected)


def test_dpo_raises_the_chosen_log_ratio_over_the_rejected(trained, tiny_factory):
    from peft import PeftModel

    from authorguard.neural.tarot.dpo import sequence_log_probs
    from authorguard.neural.tarot.policy import load_policy
    from authorguard.neural.tarot.prompts import render_prompt

    folder, _, _, dpo = trained
    rows = [json.loads(line) for line in (folder / "prefs" / "pairs.jsonl").read_text().splitlines()]
    model, tokenizer = load_policy([folder / "sft" / "adapter"], tiny_factory())
    model = PeftModel.from_pretrained(model, str(folder / "dpo" / "adapter"))
    prompts = [render_prompt(tokenizer, POLICY.instruction, r["text"]) for r in rows]

    def ratios(completions):
        policy = sequence_log_probs(model, tokenizer, prompts, completions)
        with model.disable_adapter():
            reference = sequence_log_probs(model, tokenizer, prompts, completions)
        return policy - reference

    margin = ratios([r["chosen"] for r in rows]) - ratios([r["rejected"] for r in rows])
    assert margin.mean() > 0  # zero before DPO: the adapter starts as the identity
    assert dpo["monitor"][0]["step"] == 0 and dpo["monitor"][0]["kl"] == pytest.approx(0.0, abs=1e-4)
    assert dpo["monitor"][-1]["step"] > 0
    assert any("rewards/margins" in h for h in dpo["history"])
    assert max(h["step"] for h in dpo["history"] if "step" in h) <= DPO.max_steps


def test_dpo_config_checks_its_new_fields():
    with pytest.raises(InputError, match="max_steps"):
        DPOConfig(max_steps=0)
    with pytest.raises(InputError, match="precompute_reference"):
        DPOConfig(precompute_reference="yes")
    for bad in (-0.5, "1", True):
        with pytest.raises(InputError, match="sft_weight"):
            DPOConfig(sft_weight=bad)


def test_the_sft_term_is_passed_to_trl_only_when_weighted():
    from authorguard.neural.tarot.dpo import _loss_terms

    assert _loss_terms(DPOConfig()) == {"loss_type": ["sigmoid"]}
    assert _loss_terms(DPOConfig(sft_weight=0.5)) == {"loss_type": ["sigmoid", "sft"], "loss_weights": [1.0, 0.5]}


def test_the_sft_term_keeps_the_chosen_rewrites_likely(trained, tiny_factory, corpora, tmp_path):
    """Plain DPO may lower the likelihood of both sides (only their difference is trained); with a heavy chosen-NLL
    term the chosen rewrites end up more likely under the trained policy than under the SFT reference."""
    import shutil

    from peft import PeftModel

    from authorguard.neural.tarot.dpo import sequence_log_probs
    from authorguard.neural.tarot.policy import load_policy
    from authorguard.neural.tarot.prompts import render_prompt

    folder, _, _, _ = trained
    anchored = tmp_path / "anchored"
    shutil.copytree(folder, anchored, ignore=shutil.ignore_patterns("dpo"))
    run_dpo(anchored, DPOConfig(**{**DPO.to_dict(), "sft_weight": 5.0}), base_factory=tiny_factory, corpora=corpora)
    rows = [json.loads(line) for line in (anchored / "prefs" / "pairs.jsonl").read_text().splitlines()]

    def chosen_log_ratio(run):
        model, tokenizer = load_policy([run / "sft" / "adapter"], tiny_factory())
        model = PeftModel.from_pretrained(model, str(run / "dpo" / "adapter"))
        prompts = [render_prompt(tokenizer, POLICY.instruction, r["text"]) for r in rows]
        chosen = [r["chosen"] for r in rows]
        policy = sequence_log_probs(model, tokenizer, prompts, chosen)
        with model.disable_adapter():
            reference = sequence_log_probs(model, tokenizer, prompts, chosen)
        return float(np.mean(policy - reference))

    assert chosen_log_ratio(anchored) > 0
    assert chosen_log_ratio(anchored) > chosen_log_ratio(folder)


def test_training_curves_are_plotted_through_the_cli(trained, tmp_path):
    from typer.testing import CliRunner

    from authorguard.cli.app import app

    folder, _, _, _ = trained
    result = CliRunner().invoke(app, ["tarot", "curves", str(folder), "-o", str(tmp_path / "curves.png")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "curves.png").read_bytes()[:4] == b"\x89PNG"
    assert (folder / "dpo" / "monitor.jsonl").read_text().count("\n") == len(
        json.loads((folder / "dpo" / "dpo.json").read_text())["monitor"]
    )


def test_stages_need_their_predecessor(tmp_path, tiny_factory):
    with pytest.raises(InputError, match="not done"):
        run_preferences(tmp_path, PREFS, base_factory=tiny_factory)


def test_sampling_resumes_block_by_block_with_the_same_texts(tmp_path, tiny_factory):
    from authorguard.neural.tarot.policy import PolicyLoader
    from authorguard.neural.tarot.sampling import sample_rewrites

    loader = PolicyLoader(base_factory=tiny_factory)
    prompts = [f"<|im_start|>user\nRewrite: text number {i}<|im_end|>\n<|im_start|>assistant\n" for i in range(5)]
    options = {"seed": 3, "max_new_tokens": 8, "temperature": 1.0, "top_p": 1.0, "block_size": 2}
    first = sample_rewrites(tmp_path, prompts, 2, loader, **options)
    (tmp_path / "block-00001.json").unlink()
    second = sample_rewrites(tmp_path, prompts, 2, loader, **options)
    assert first.texts == second.texts and len(first.texts) == 5 and all(len(t) == 2 for t in first.texts)
    with pytest.raises(InputError, match="other prompts"):
        sample_rewrites(tmp_path, prompts[::-1], 2, loader, **options)


def test_the_rewriter_keeps_documents_in_order_and_counts_chunks(trained, tiny_factory):
    from authorguard.neural.tarot.model import TarotRewriter

    folder, _, _, _ = trained
    documents = ["A short one.", " ".join(["This sentence goes on and on."] * 30), "Third.\n\nFourth paragraph."]
    for stage in ("sft", "dpo"):
        rewriter = TarotRewriter(folder, stage, base_factory=tiny_factory)
        out = rewriter.rewrite(documents, seed=1)
        assert len(out) == 3 and rewriter.rewrite(documents, seed=1) == out
        assert rewriter.stats["documents"] == 3 and rewriter.stats["chunks"] > 4
    with pytest.raises(InputError, match="does not exist"):
        TarotRewriter(folder / "missing", "dpo")
    with pytest.raises(InputError, match="unknown stage"):
        TarotRewriter(folder, "grpo")
    with pytest.raises(InputError, match="stage 'ppo' is not done"):
        TarotRewriter(folder, "ppo")


def test_cli_stages_refuse_to_start_out_of_order_or_over_an_interrupted_stage(tmp_path):
    from typer.testing import CliRunner

    from authorguard.cli.app import app

    runner = CliRunner()
    early = runner.invoke(app, ["tarot", "prefs", "-o", str(tmp_path)])
    assert early.exit_code != 0 and "stage 'sft' is not done" in early.output
    # an interrupted SFT stage leaves its candidates or checkpoints; an empty stage folder is a fresh start
    (tmp_path / "sft" / "checkpoints").mkdir(parents=True)
    interrupted = runner.invoke(app, ["tarot", "sft", "-o", str(tmp_path)])
    assert interrupted.exit_code != 0 and "--resume" in interrupted.output
    (tmp_path / "bad.toml").write_text("candidates = 0\n", encoding="utf-8")
    bad = runner.invoke(app, ["tarot", "sft", "-o", str(tmp_path / "new"), "--config", str(tmp_path / "bad.toml")])
    assert bad.exit_code != 0 and "candidates" in bad.output and len(bad.output.strip().splitlines()) == 1


PPO = PPOConfig(
    prompts=PromptConfig(prompts=4, offset=6, datasets=("20news",), min_words=10),
    learning_rate=1e-3,
    batch_size=2,
    mini_batch_size=2,
    micro_batch_size=1,
    epochs=2,
    checkpoint_every=1,
)


def test_ppo_trains_from_a_branch_of_the_sft_policy_and_resumes_exactly(trained, tiny_factory, corpora, tmp_path):
    from authorguard.neural.tarot.folder import TarotFolder
    from authorguard.neural.tarot.model import TarotRewriter
    from tests.neural.tarot.conftest import LengthReward

    source, sft, _, _ = trained
    TarotFolder(tmp_path / "ppo").branch(source)
    assert json.loads((tmp_path / "ppo" / "sft" / "sft.json").read_text()) == sft
    with pytest.raises(InputError, match="not empty"):
        TarotFolder(tmp_path / "ppo").branch(source)
    options = {
        "reward": LengthReward(),
        "monitor_reward": LengthReward(),
        "monitor_prompts": 2,
        "monitor_every": 2,
        "base_factory": tiny_factory,
        "corpora": corpora,
    }
    record = run_ppo(tmp_path / "ppo", PPO, **options)
    assert record["done"] and record["prompts"] == 4 and [h["step"] for h in record["history"]] == [1, 2, 3, 4]
    for h in record["history"]:
        assert (
            np.isfinite([h["policy_loss"], h["value_loss"], h["kl"], h["score"]]).all() and 0 <= h["clip_fraction"] <= 1
        )
    assert record["monitor"][0]["step"] == 0 and record["monitor"][0]["kl"] == pytest.approx(0.0, abs=1e-4)
    assert [m["step"] for m in record["monitor"]] == [0, 2, 4]
    assert (tmp_path / "ppo" / "ppo" / "value_head.pt").is_file()
    rewriter = TarotRewriter(tmp_path / "ppo", "ppo", base_factory=tiny_factory)
    assert len(rewriter.rewrite(["One text.", "Another one here."], seed=0)) == 2
    # interrupted after step 3 (checkpoint at 3): the resumed run gives the uninterrupted run's steps
    TarotFolder(tmp_path / "again").branch(source)

    def stop(step, total):
        if step == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_ppo(tmp_path / "again", PPO, progress=stop, **options)
    assert not TarotFolder(tmp_path / "again").done("ppo")
    resumed = run_ppo(tmp_path / "again", PPO, **options)
    keys = ("score", "kl", "policy_loss", "value_loss")
    assert [[round(h[k], 5) for k in keys] for h in resumed["history"]] == [
        [round(h[k], 5) for k in keys] for h in record["history"]
    ]
    with pytest.raises(InputError, match="another config"):
        run_ppo(tmp_path / "again", PPOConfig(), **options)


def test_ppo_needs_the_sft_stage_and_checks_its_config(tmp_path, tiny_factory):
    with pytest.raises(InputError, match="stage 'sft' is not done"):
        run_ppo(tmp_path, PPO, base_factory=tiny_factory)
    with pytest.raises(InputError, match="mini_batch_size"):
        PPOConfig(batch_size=16, mini_batch_size=6)
    with pytest.raises(InputError, match="kl_coef"):
        PPOConfig(kl_coef=-0.1)
