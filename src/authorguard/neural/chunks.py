"""Long documents for short-context encoders: consecutive token windows of each text."""

from __future__ import annotations

import numpy as np


def token_windows(tokenizer, texts: list[str], max_tokens: int, max_windows: int) -> tuple[list[list[int]], np.ndarray]:
    """Consecutive, non-overlapping windows of at most ``max_tokens`` word pieces (special tokens included) over the
    first ``max_windows`` windows' worth of each text. Returns the windows' token ids and, per window, the index of
    its text (every text has at least one window; a text with no word piece gets [CLS] [UNK] [SEP])."""
    body = max_tokens - 2  # [CLS] and [SEP]
    windows, owner = [], []
    for index, text in enumerate(texts):
        ids = tokenizer(text, add_special_tokens=False, truncation=True, max_length=body * max_windows)["input_ids"]
        ids = ids or [tokenizer.unk_token_id]
        for start in range(0, len(ids), body):
            windows.append([tokenizer.cls_token_id] + ids[start : start + body] + [tokenizer.sep_token_id])
            owner.append(index)
    return windows, np.asarray(owner, dtype=np.int64)
