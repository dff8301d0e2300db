"""Shapes, soft inputs and the Gumbel path of the A⁴NT networks."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from authorguard.neural.a4nt.data import pad_batch  # noqa: E402
from authorguard.neural.a4nt.networks import LanguageModel, StyleTransfer, build_classifier  # noqa: E402
from authorguard.neural.a4nt.text import Vocabulary  # noqa: E402

V = 40
SENTENCES = [[5, 6, 7], [8, 9, 10, 11, 12], [13]]


@pytest.mark.parametrize("kind,layers", [("lstm", 1), ("lstm", 2), ("cnn", 1), ("lstm-cnn", 1)])
def test_classifiers_read_ids_and_soft_words_alike(kind, layers):
    torch.manual_seed(0)
    model = build_classifier(
        {
            "kind": kind,
            "width": 8,
            "layers": layers,
            "vocab_size": V,
            "n_classes": 3,
            "embedding_dim": 6,
            "dropout": 0.0,
        }
    ).eval()
    ids, mask = pad_batch(SENTENCES)
    logits = model(ids, mask)
    assert logits.shape == (3, 3)
    one_hot = torch.nn.functional.one_hot(ids, V).float()
    assert torch.allclose(model(one_hot, mask), logits, atol=1e-5)
    # padding does not change a sentence's score
    alone = model(*pad_batch(SENTENCES[:1]))
    assert torch.allclose(alone, logits[:1], atol=1e-5)


def test_language_model_soft_nll_of_one_hot_words_is_the_token_nll():
    torch.manual_seed(0)
    model = LanguageModel(V, 6, 8, dropout=0.0).eval()
    ids, mask = pad_batch(SENTENCES, append_end=True)
    nll = model.token_nll(ids, mask)
    assert nll.shape == (3,) and bool((nll > 0).all())
    assert torch.allclose(model.soft_nll(torch.nn.functional.one_hot(ids, V).float(), mask), nll, atol=1e-4)


def test_generation_shapes_and_masks():
    torch.manual_seed(0)
    model = StyleTransfer(V, 2, 6, 8, dropout=0.0).eval()
    ids, mask = pad_batch(SENTENCES)
    for mode in ("greedy", "sample", "gumbel"):
        out = model.generate(ids, mask, 1, max_length=9, mode=mode, generator=torch.Generator().manual_seed(1))
        tokens = out["tokens"]
        assert tokens.shape[0] == 3 and tokens.shape[1] <= 9
        assert not bool(((tokens == Vocabulary.pad) | (tokens == Vocabulary.bos)).any())
        for row, valid, words in zip(tokens.tolist(), out["mask"].tolist(), out["words"].tolist()):
            end = row.index(Vocabulary.eos) if Vocabulary.eos in row else len(row)
            assert valid == [i <= end for i in range(len(row))]
            assert words == [i < end for i in range(len(row))]
        if mode == "gumbel":
            soft = out["soft"]
            assert soft.shape == (*tokens.shape, V)
            assert torch.allclose(soft.sum(-1), torch.ones(tokens.shape), atol=1e-5)
            assert torch.equal(soft.argmax(-1), tokens)


def test_gradients_reach_the_generator_through_the_gumbel_samples():
    torch.manual_seed(0)
    generator = StyleTransfer(V, 2, 6, 8, dropout=0.0)
    classifier = build_classifier(
        {"kind": "lstm", "width": 8, "layers": 1, "vocab_size": V, "n_classes": 2, "embedding_dim": 6, "dropout": 0.0}
    )
    ids, mask = pad_batch(SENTENCES)
    out = generator.generate(
        ids, mask, 1, max_length=6, mode="gumbel", temperature=0.5, generator=torch.Generator().manual_seed(0)
    )
    style = -torch.log_softmax(classifier(out["soft"], out["words"]), -1)[:, 1].mean()
    style.backward()
    for name in ("outputs.1.weight", "decoders.1.weight_hh_l0", "encoder.lstm.weight_ih_l0", "bridge.weight"):
        gradient = dict(generator.named_parameters())[name].grad
        assert gradient is not None and float(gradient.abs().sum()) > 0, name
    # the other direction's decoder took no part
    assert generator.outputs[0].weight.grad is None


def test_teacher_forced_nll_reads_soft_sources():
    torch.manual_seed(0)
    model = StyleTransfer(V, 2, 6, 8, dropout=0.0).eval()
    ids, mask = pad_batch(SENTENCES)
    target, target_mask = pad_batch(SENTENCES, append_end=True)
    hard = model.target_nll(ids, mask, target, target_mask, 0)
    soft = model.target_nll(torch.nn.functional.one_hot(ids, V).float(), mask, target, target_mask, 0)
    assert hard.shape == (3,) and torch.allclose(hard, soft, atol=1e-4)


def test_fbsem_encoder_reads_soft_words_and_passes_gradients():
    pytest.importorskip("transformers")
    from authorguard.neural.a4nt.semantic import SoftMiniLM

    vocabulary = Vocabulary.build([["the", "cat", "sat", "on", "mat", "dog", "ran", "NUM"]], size=12)
    encoder = SoftMiniLM(vocabulary)
    ids, mask = pad_batch([vocabulary.encode(["the", "cat", "sat"]), vocabulary.encode(["the", "dog", "ran", "NUM"])])
    hard = encoder(ids, mask)
    assert hard.shape == (2, 384)
    assert torch.allclose(hard.norm(dim=-1), torch.ones(2), atol=1e-5)
    soft = torch.nn.functional.one_hot(ids, len(vocabulary)).float().requires_grad_(True)
    assert torch.allclose(encoder(soft, mask), hard, atol=1e-4)
    encoder(soft, mask)[:, 0].sum().backward()
    assert float(soft.grad.abs().sum()) > 0
    # different sentences, different embeddings; MiniLM stays frozen
    assert float((hard[0] - hard[1]).abs().sum()) > 0.1
    assert not any(p.requires_grad for p in encoder.bert.parameters())
