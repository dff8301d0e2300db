"""The networks of A⁴NT (paper, Section 4), in PyTorch.

Every network reads a batch of sentences either as token ids, shape (batch, time) int64, or as distributions over
the vocabulary, shape (batch, time, vocabulary) float — the generator's Gumbel-softmax "soft" words — with a
mask of shape (batch, time), True on real tokens. A soft word's embedding is its distribution times the embedding
matrix, so gradients reach the generator through every network that reads its output.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from authorguard.neural.a4nt.text import Vocabulary


def embed(embedding: nn.Embedding, inputs: torch.Tensor) -> torch.Tensor:
    """(B, T) ids or (B, T, V) distributions -> (B, T, D) word vectors."""
    if inputs.dtype in (torch.int64, torch.int32):
        return embedding(inputs)
    return inputs @ embedding.weight


def _lengths(mask: torch.Tensor) -> torch.Tensor:
    return mask.sum(1).clamp(min=1)


class SentenceEncoder(nn.Module):
    """Word embeddings -> LSTM; the sentence embedding E = [last hidden state; mean of the hidden states]
    (paper, Eq. 1), shape (B, 2·hidden)."""

    def __init__(
        self, vocab_size: int, embedding_dim: int, hidden_size: int, layers: int = 1, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=Vocabulary.pad)
        self.lstm = nn.LSTM(
            embedding_dim, hidden_size, num_layers=layers, batch_first=True, dropout=dropout if layers > 1 else 0.0
        )
        self.dropout = nn.Dropout(dropout)
        self.output_size = 2 * hidden_size

    def states(self, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The LSTM outputs, (B, T, hidden); padding comes after the words, so it never reaches a word's state."""
        return self.lstm(self.dropout(embed(self.embedding, inputs)))[0]

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        outputs = self.states(inputs, mask)
        lengths = _lengths(mask)
        last = outputs[torch.arange(outputs.shape[0]), lengths - 1]
        mean = (outputs * mask.unsqueeze(-1)).sum(1) / lengths.unsqueeze(-1)
        return torch.cat([last, mean], dim=-1)


class LSTMClassifier(nn.Module):
    """The paper's attribute classifier (Section 4.1): sentence embedding -> linear -> class logits (B, C)."""

    def __init__(
        self, vocab_size: int, n_classes: int, embedding_dim: int, width: int, layers: int = 1, dropout: float = 0.2
    ) -> None:
        super().__init__()
        self.encoder = SentenceEncoder(vocab_size, embedding_dim, width, layers, dropout)
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(self.encoder.output_size, n_classes)

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.output(self.dropout(self.encoder(inputs, mask)))


class _Convolutions(nn.Module):
    """Kernel widths 3, 4, 5 with ``filters`` each, ReLU, max over the real positions (Kim, 2014)."""

    widths = (3, 4, 5)

    def __init__(self, input_size: int, filters: int) -> None:
        super().__init__()
        self.convolutions = nn.ModuleList(nn.Conv1d(input_size, filters, w, padding=w - 1) for w in self.widths)
        self.output_size = filters * len(self.widths)

    def forward(self, features: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = features.transpose(1, 2)
        pooled = []
        for convolution in self.convolutions:
            y = F.relu(convolution(x))[:, :, : features.shape[1]]  # position t sees words t-w+1..t
            pooled.append(y.masked_fill(~mask.unsqueeze(1), float("-inf")).amax(dim=2).clamp(min=0))
        return torch.cat(pooled, dim=1)


class CNNClassifier(nn.Module):
    """Word embeddings -> convolutions -> max-pool -> linear: a holdout architecture of the paper's Table IV."""

    def __init__(
        self, vocab_size: int, n_classes: int, embedding_dim: int, width: int, layers: int = 1, dropout: float = 0.2
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=Vocabulary.pad)
        self.convolutions = _Convolutions(embedding_dim, width)
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(self.convolutions.output_size, n_classes)

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.output(self.dropout(self.convolutions(self.dropout(embed(self.embedding, inputs)), mask)))


class LSTMCNNClassifier(nn.Module):
    """LSTM states -> convolutions -> max-pool -> linear (the paper's LSTM+CNN holdouts)."""

    def __init__(
        self, vocab_size: int, n_classes: int, embedding_dim: int, width: int, layers: int = 1, dropout: float = 0.2
    ) -> None:
        super().__init__()
        self.encoder = SentenceEncoder(vocab_size, embedding_dim, width, layers, dropout)
        self.convolutions = _Convolutions(width, width)
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(self.convolutions.output_size, n_classes)

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.output(self.dropout(self.convolutions(self.encoder.states(inputs, mask), mask)))


CLASSIFIERS = {"lstm": LSTMClassifier, "cnn": CNNClassifier, "lstm-cnn": LSTMCNNClassifier}


def build_classifier(spec: dict) -> nn.Module:
    """A classifier from its spec: ``{"kind", "vocab_size", "n_classes", "embedding_dim", "width", "layers",
    "dropout"}`` (stored beside its weights)."""
    arguments = {k: spec[k] for k in ("vocab_size", "n_classes", "embedding_dim", "width", "layers", "dropout")}
    return CLASSIFIERS[spec["kind"]](**arguments)


class LanguageModel(nn.Module):
    """A word-level LSTM language model of one attribute's sentences (the paper's M_y, Section 4.5)."""

    def __init__(self, vocab_size: int, embedding_dim: int, hidden_size: int, dropout: float = 0.2) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=Vocabulary.pad)
        self.lstm = nn.LSTM(embedding_dim, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(hidden_size, vocab_size)

    def _log_probs(self, inputs: torch.Tensor) -> torch.Tensor:
        states = self.lstm(self.dropout(embed(self.embedding, inputs)))[0]
        return F.log_softmax(self.output(self.dropout(states)), dim=-1)

    def token_nll(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """−log M(sentence) per sentence, shape (B,); ``tokens`` end with ``</s>`` and are read after ``<s>``."""
        inputs = torch.cat([torch.full_like(tokens[:, :1], Vocabulary.bos), tokens[:, :-1]], dim=1)
        log_probs = self._log_probs(inputs)
        picked = log_probs.gather(2, tokens.unsqueeze(-1)).squeeze(-1)
        return -(picked * mask).sum(1)

    def soft_nll(self, soft: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The expected −log M of a soft sentence (B, T, V), shape (B,): each position's cross-entropy between
        the soft word and the model's prediction from the soft words before it (the paper's L_lang)."""
        start = torch.zeros_like(soft[:, :1])
        start[..., Vocabulary.bos] = 1.0
        log_probs = self._log_probs(torch.cat([start, soft[:, :-1]], dim=1))
        return -((soft * log_probs).sum(-1) * mask).sum(1)


class StyleTransfer(nn.Module):
    """A⁴NT's generators Z_{x→c}: one LSTM encoder shared by every direction (the classifier's architecture), one
    LSTM decoder per *target* class, reading the sentence encoding and the previous word at every step (Eq. 4)."""

    def __init__(
        self, vocab_size: int, n_classes: int, embedding_dim: int, hidden_size: int, dropout: float = 0.2
    ) -> None:
        super().__init__()
        self.encoder = SentenceEncoder(vocab_size, embedding_dim, hidden_size, dropout=dropout)
        self.bridge = nn.Linear(self.encoder.output_size, hidden_size)
        self.decoders = nn.ModuleList(
            nn.LSTM(embedding_dim + self.encoder.output_size, hidden_size, batch_first=True) for _ in range(n_classes)
        )
        self.outputs = nn.ModuleList(nn.Linear(hidden_size, vocab_size) for _ in range(n_classes))
        self.dropout = nn.Dropout(dropout)
        self.vocab_size = vocab_size

    def _start(self, source: torch.Tensor, source_mask: torch.Tensor):
        encoding = self.encoder(source, source_mask)
        h0 = torch.tanh(self.bridge(encoding)).unsqueeze(0)
        return encoding, (h0, torch.zeros_like(h0))

    def target_nll(
        self,
        source: torch.Tensor,
        source_mask: torch.Tensor,
        target: torch.Tensor,
        target_mask: torch.Tensor,
        target_class: int,
    ) -> torch.Tensor:
        """−log p(target | source) under the decoder of ``target_class``, teacher-forced, per sentence (B,).
        ``target`` ends with ``</s>``; ``source`` may be soft (the cycle loss reads the generator's output)."""
        encoding, state = self._start(source, source_mask)
        inputs = torch.cat([torch.full_like(target[:, :1], Vocabulary.bos), target[:, :-1]], dim=1)
        words = self.dropout(embed(self.encoder.embedding, inputs))
        steps = torch.cat([words, encoding.unsqueeze(1).expand(-1, words.shape[1], -1)], dim=-1)
        states = self.decoders[target_class](steps, state)[0]
        log_probs = F.log_softmax(self.outputs[target_class](self.dropout(states)), dim=-1)
        picked = log_probs.gather(2, target.unsqueeze(-1)).squeeze(-1)
        return -(picked * target_mask).sum(1)

    def generate(
        self,
        source: torch.Tensor,
        source_mask: torch.Tensor,
        target_class: int,
        max_length: int,
        mode: str = "greedy",
        temperature: float = 1.0,
        generator: torch.Generator | None = None,
    ) -> dict:
        """Rewrite ``source`` into ``target_class``'s style, word by word, for at most ``max_length`` tokens.

        ``mode``: ``"greedy"`` (argmax), ``"sample"`` (ancestral sampling at ``temperature``) or ``"gumbel"``
        (Gumbel-softmax soft samples at ``temperature``, differentiable; the hard word is their argmax).
        Returns ``tokens`` (B, L) int64, ``mask`` (B, L) True up to and including the first ``</s>``,
        ``words`` (B, L) True on words (mask without ``</s>``) and, for ``"gumbel"``, ``soft`` (B, L, V).
        """
        encoding, state = self._start(source, source_mask)
        batch = source.shape[0]
        previous = torch.full((batch,), Vocabulary.bos, dtype=torch.int64, device=source.device)
        previous_vector = self.encoder.embedding(previous)
        tokens, softs = [], []
        finished = torch.zeros(batch, dtype=torch.bool, device=source.device)
        for _ in range(max_length):
            step = torch.cat([self.dropout(previous_vector), encoding], dim=-1).unsqueeze(1)
            output, state = self.decoders[target_class](step, state)
            logits = self.outputs[target_class](self.dropout(output.squeeze(1)))
            logits[:, Vocabulary.pad] = float("-inf")
            logits[:, Vocabulary.bos] = float("-inf")
            if mode == "gumbel":
                uniform = torch.rand(logits.shape, generator=generator, device=logits.device)
                gumbel = -torch.log(-torch.log(uniform.clamp(1e-10, 1.0 - 1e-7)))
                soft = F.softmax((logits + gumbel) / temperature, dim=-1)
                token = soft.argmax(-1)
                softs.append(soft)
                previous_vector = soft @ self.encoder.embedding.weight
            else:
                if mode == "sample":
                    probabilities = F.softmax(logits / temperature, dim=-1)
                    token = torch.multinomial(probabilities, 1, generator=generator).squeeze(1)
                elif mode == "greedy":
                    token = logits.argmax(-1)
                else:
                    raise ValueError(f"unknown generation mode {mode!r}")
                previous_vector = self.encoder.embedding(token)
            tokens.append(token)
            finished = finished | (token == Vocabulary.eos)
            if bool(finished.all()):
                break
        ids = torch.stack(tokens, dim=1)
        is_end = ids == Vocabulary.eos
        after_end = (torch.cumsum(is_end.int(), dim=1) - is_end.int()) > 0
        result = {"tokens": ids, "mask": ~after_end, "words": ~after_end & ~is_end}
        if softs:
            result["soft"] = torch.stack(softs, dim=1)
        return result
