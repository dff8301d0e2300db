"""Fine-tune all-MiniLM-L6-v2 as a sequence classifier and score documents window by window."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.attributor.config import AttributorConfig
from authorguard.neural.chunks import token_windows
from authorguard.utils.validation import check_texts
from authorguard.utils.weights import minilm_folder, require_torch


def base_model_folder(base_model: str):
    """The packaged all-MiniLM-L6-v2 for "", else ``base_model`` when it holds a config.json (one-line error)."""
    from pathlib import Path

    if not base_model:
        return minilm_folder()
    folder = Path(base_model)
    if not (folder / "config.json").is_file():
        raise InputError(f"transformer attributor: base_model {base_model!r} is not a model folder (no config.json)")
    return folder


def resolve_device(device: str) -> str:
    """ "cpu", "cuda" or "auto" (CUDA when torch sees a GPU) as torch's device name; "cuda" without one is an error."""
    torch = require_torch()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("transformer attributor: device 'cuda' asked for, but torch sees no GPU")
    return device


class FineTunedClassifier:
    """A MiniLM sequence classifier over ``classes_``; :meth:`fit` fine-tunes every weight (22.7 M + the head)."""

    def __init__(self, config: AttributorConfig | None = None, random_state: int | None = None) -> None:
        self.config = config or AttributorConfig()
        self.random_state = random_state

    def fit(self, texts: Sequence[str], labels: Sequence[str]) -> FineTunedClassifier:
        torch = require_torch()
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        texts = check_texts(texts, "transformer attributor")
        label_array = np.asarray(labels, dtype=object)
        if len(label_array) != len(texts):
            raise InputError(f"transformer attributor: {len(texts)} texts but {len(label_array)} labels")
        self.classes_ = np.array(sorted(set(label_array)), dtype=object)
        if len(self.classes_) < 2:
            raise InputError("transformer attributor: the training documents have fewer than 2 authors")
        config, rng = self.config, np.random.default_rng(self.random_state)
        torch.manual_seed(int(rng.integers(2**31)))  # the head's initialisation and dropout
        folder = base_model_folder(config.base_model)
        self.device_ = resolve_device(config.device)
        self.tokenizer_ = AutoTokenizer.from_pretrained(folder)
        self.model_ = AutoModelForSequenceClassification.from_pretrained(
            folder, num_labels=len(self.classes_), dtype=torch.float32
        ).to(self.device_)
        windows, owner = token_windows(self.tokenizer_, texts, config.max_tokens, config.max_windows)
        targets = np.searchsorted(self.classes_, label_array[owner])
        if len(windows) > config.max_train_windows:
            keep = np.sort(rng.choice(len(windows), config.max_train_windows, replace=False))
            windows, targets = [windows[i] for i in keep], targets[keep]
        steps = config.epochs * int(np.ceil(len(windows) / config.batch_size))
        optimizer = torch.optim.AdamW(
            self.model_.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        warmup = int(config.warmup_ratio * steps)
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer,
            lambda s: (s + 1) / (warmup + 1) if s < warmup else max(0.0, (steps - s) / max(1, steps - warmup)),
        )
        self.losses_ = []
        self.model_.train()
        for _ in range(config.epochs):
            order = rng.permutation(len(windows))
            for begin in range(0, len(order), config.batch_size):
                members = order[begin : begin + config.batch_size]
                batch = self.tokenizer_.pad({"input_ids": [windows[i] for i in members]}, return_tensors="pt")
                batch = {name: tensor.to(self.device_) for name, tensor in batch.items()}
                output = self.model_(**batch, labels=torch.as_tensor(targets[members], device=self.device_))
                optimizer.zero_grad()
                output.loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model_.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                self.losses_.append(float(output.loss.detach()))
        self.model_.eval()
        return self

    def predict_log_proba(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Mean over each document's windows of the log-probabilities, shape (n_texts, n_classes)."""
        torch = require_torch()
        texts = check_texts(texts, "transformer attributor")
        windows, owner = token_windows(self.tokenizer_, texts, self.config.max_tokens, self.config.max_windows)
        scores = np.zeros((len(windows), len(self.classes_)))
        order = np.argsort([len(w) for w in windows])
        with torch.inference_mode():
            for begin in range(0, len(order), batch_size):
                members = order[begin : begin + batch_size]
                batch = self.tokenizer_.pad({"input_ids": [windows[i] for i in members]}, return_tensors="pt")
                batch = {name: tensor.to(self.device_) for name, tensor in batch.items()}
                scores[members] = torch.log_softmax(self.model_(**batch).logits.float(), dim=-1).cpu().numpy()
        totals = np.zeros((len(texts), len(self.classes_)))
        np.add.at(totals, owner, scores)
        return totals / np.bincount(owner, minlength=len(texts))[:, None]

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        return self.classes_[self.predict_log_proba(texts).argmax(1)]
