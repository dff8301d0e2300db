"""FBsem's sentence encoder: all-MiniLM-L6-v2 reading A⁴NT's word distributions (the paper used InferSent).

MiniLM reads word pieces; the generator writes words of its own vocabulary. Each vocabulary word is mapped once
to the mean of its word pieces' input embeddings (a (V, 384) matrix), so a soft word — a distribution over the
vocabulary — becomes one input vector of MiniLM and the L1 distance between sentence embeddings is
differentiable with respect to the generator's output. MiniLM itself stays frozen. Input and output sentences go
through the same path, so the loss compares like with like (one position per word, ``[CLS]`` first, mean
pooling and L2 normalisation as sentence-transformers does for this model).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from authorguard.neural.a4nt.text import NUMBER, SPECIALS, Vocabulary


class SoftMiniLM(nn.Module):
    """Sentences (ids or soft words, with a mask) -> L2-normalised MiniLM sentence embeddings, (B, 384)."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        super().__init__()
        from transformers import AutoModel, AutoTokenizer

        from authorguard.utils.weights import minilm_folder

        folder = minilm_folder()
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
        self.bert = AutoModel.from_pretrained(str(folder))
        self.bert.eval()
        for parameter in self.bert.parameters():
            parameter.requires_grad_(False)
        table = self.bert.embeddings.word_embeddings.weight.detach()
        special = {
            SPECIALS[0]: tokenizer.pad_token_id,
            SPECIALS[1]: tokenizer.cls_token_id,
            SPECIALS[2]: tokenizer.sep_token_id,
            SPECIALS[3]: tokenizer.unk_token_id,
        }
        rows = []
        for token in vocabulary.tokens:
            if token in special:
                pieces = [special[token]]
            else:
                pieces = tokenizer(("number" if token == NUMBER else token.lower()), add_special_tokens=False)[
                    "input_ids"
                ]
                pieces = pieces or [tokenizer.unk_token_id]
            rows.append(table[pieces].mean(0))
        self.register_buffer("word_matrix", torch.stack(rows))
        self.register_buffer("cls_vector", table[tokenizer.cls_token_id].clone())

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if inputs.dtype in (torch.int64, torch.int32):
            vectors = self.word_matrix[inputs]
        else:
            vectors = inputs @ self.word_matrix
        batch = vectors.shape[0]
        vectors = torch.cat([self.cls_vector.expand(batch, 1, -1), vectors], dim=1)
        attention = torch.cat([torch.ones(batch, 1, dtype=torch.bool, device=mask.device), mask], dim=1)
        states = self.bert(inputs_embeds=vectors, attention_mask=attention.long()).last_hidden_state
        pooled = (states * attention.unsqueeze(-1)).sum(1) / attention.sum(1, keepdim=True)
        return F.normalize(pooled, dim=-1)
