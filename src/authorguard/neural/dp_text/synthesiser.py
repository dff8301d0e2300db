"""Synthetic labelled posts with (ε, δ)-DP per author: fit a language model's LoRA adapter by author-level DP-SGD
on the corpus's labelled posts, then sample posts — label and text — from it (post-processing of the noisy model).

Neighbouring corpora differ by one author added or removed, everything they wrote. Public, not read from the corpus
for free: the task's classes (given, the labels a synthetic post may carry). Taken as public, as DP-SGD libraries take
it: the number of authors, which sets the sampling rate (a guarantee against replacing one author by another costs
about twice the sensitivity). Everything else an author wrote is counted only through the clipped, noised gradients.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Callable, Sequence

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.dp_text.config import DPTextConfig
from authorguard.neural.dp_text.data import author_examples, label_prompt, pad_id
from authorguard.neural.dp_text.trainer import TrainingLog, sampling_rate, train, with_lora


def reference_base():
    """(model, tokenizer) of SmolLM2-135M-Instruct (the reference LM), float32."""
    from authorguard.generation.reference_lm import load_reference_lm

    return load_reference_lm()


class AuthorLevelTextSynthesiser:
    """``fit(texts, authors, labels)`` then ``sample(n, seed)`` -> (labels, texts) of synthetic posts;
    ``label_shares()``; ``privacy_report()``.

    ``classes``: the task's classes (public: a post's label must be one of them); ``base``: a callable returning
    (model, tokenizer) — SmolLM2-135M-Instruct by default; ``device``: where the fine-tune runs (``cuda`` when lent
    one); ``random_state``: the posts counted and (unless ``sample`` is given a seed) the sampling, and, unless
    ``secure``, the draws of authors and the noise — a research run, whose guarantee holds only while that seed is
    secret; ``secure``: draws and noise seeded from the operating system's entropy (never written) with Opacus's
    hardened noise, for a real release (not reproducible)."""

    def __init__(
        self,
        classes: Sequence[str],
        config: DPTextConfig = DPTextConfig(),
        *,
        base: Callable[[], tuple] = reference_base,
        device: str = "cpu",
        random_state: int = 0,
        secure: bool = False,
    ) -> None:
        self.classes = sorted({str(c) for c in classes})
        if len(self.classes) < 2:
            raise InputError(f"DP text: the task needs two classes or more (given: {', '.join(self.classes)})")
        self.config, self.base, self.device = config, base, device
        self.random_state, self.secure = random_state, secure

    def fit(
        self, texts: Sequence[str], authors: Sequence, labels: Sequence, ids: Sequence | None = None
    ) -> AuthorLevelTextSynthesiser:
        """Count each author's bounded posts (``ids``: record ids, so the choice does not depend on the order) and
        fine-tune the adapter on them by author-level DP-SGD."""
        from authorguard.privacy.dp_sgd import epsilon_spent, noise_multiplier_for
        from authorguard.utils.extras import MissingExtraError, install_command, missing_modules

        if missing := missing_modules("neural") + ([] if importlib.util.find_spec("opacus") else ["opacus"]):
            raise MissingExtraError(f"DP text needs {', '.join(missing)}: {install_command('neural')}")
        labels = [str(x) for x in labels]
        if unknown := sorted(set(labels) - set(self.classes)):
            raise InputError(f"DP text: labels outside the task's classes: {', '.join(unknown[:5])}")
        model, tokenizer = self.base()
        examples = author_examples(texts, authors, labels, tokenizer, self.config, self.random_state, ids)
        sample_rate = sampling_rate(self.config, examples.n_authors)
        config = self.config
        self.noise_multiplier_ = noise_multiplier_for(config.epsilon, sample_rate, config.steps, config.delta)
        self.epsilon_ = epsilon_spent(self.noise_multiplier_, sample_rate, config.steps, config.delta)
        seed = None if self.secure else self.random_state
        self.model_ = with_lora(model.to(self.device), config, seed)
        self.tokenizer_, self.examples_ = tokenizer, examples
        self.log_: TrainingLog = train(
            self.model_, examples, config, self.noise_multiplier_, pad_id(self.tokenizer_), seed
        )
        return self

    def label_shares(self) -> np.ndarray:
        """(classes,) the fine-tuned model's probability of each class as a post's label (its likelihood of
        ``Label: <class>`` then the post's marker, normalised over the classes): post-processing of the model."""
        import torch

        from authorguard.neural.dp_text.data import padded
        from authorguard.neural.dp_text.trainer import post_losses

        self._check_fitted()
        prompts = [self.tokenizer_(label_prompt(c), add_special_tokens=False)["input_ids"] for c in self.classes]
        input_ids, mask = padded(prompts, pad_id(self.tokenizer_))
        with torch.no_grad():
            mean_losses = post_losses(self.model_, input_ids.to(self.device), mask.to(self.device)).cpu().numpy()
        log_likelihood = -mean_losses * (mask.sum(1).numpy() - 1)
        shares = np.exp(log_likelihood - log_likelihood.max())
        return shares / shares.sum()

    def sample(self, n: int, seed: int | None = None) -> tuple[list[str], list[str]]:
        """(labels, texts) of ``n`` synthetic posts: each label drawn from :meth:`label_shares`, then its post
        written after ``Label: <label>`` (an empty post is left out: ``discarded_`` counts them)."""
        import torch

        self._check_fitted()
        seed = self.random_state if seed is None else seed
        drawn = np.random.default_rng(seed).choice(len(self.classes), size=n, p=self.label_shares())
        torch.manual_seed(seed)
        written: list[str] = [""] * n
        for code, label in enumerate(self.classes):
            positions = np.flatnonzero(drawn == code)
            for start in range(0, len(positions), self.config.sample_batch):
                chunk = positions[start : start + self.config.sample_batch]
                for position, text in zip(chunk, self._write(label, len(chunk))):
                    written[position] = text
        kept = [i for i in range(n) if written[i]]
        self.discarded_ = n - len(kept)
        return [self.classes[drawn[i]] for i in kept], [written[i] for i in kept]

    def _write(self, label: str, count: int) -> list[str]:
        """``count`` posts sampled after ``label``'s prompt (their text only, whitespace normalised)."""
        import torch

        config, tokenizer = self.config, self.tokenizer_
        prompt = tokenizer(label_prompt(label), add_special_tokens=False, return_tensors="pt")["input_ids"]
        prompt = prompt.to(self.device).expand(count, -1)
        with torch.no_grad():
            out = self.model_.generate(
                input_ids=prompt,
                attention_mask=torch.ones_like(prompt),
                do_sample=True,
                temperature=config.temperature,
                top_p=config.top_p,
                max_new_tokens=config.max_new_tokens,
                pad_token_id=pad_id(self.tokenizer_),
            )
        return [
            " ".join(t.split()) for t in tokenizer.batch_decode(out[:, prompt.shape[1] :], skip_special_tokens=True)
        ]

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise InputError("DP text: fit the synthesiser before sampling from it or reading its report")

    def privacy_report(self) -> dict:
        """The guarantee and what it rests on: ε (spent, per author) at δ, the neighbouring relation, the
        contribution bound, the mechanism, the accountant, the seed's status and the libraries. Exact corpus counts
        (posts counted and dropped) are the curator's (``examples_``), not the report's: the guarantee does not
        cover them."""
        self._check_fitted()
        return {
            "epsilon": self.epsilon_,
            "delta": self.config.delta,
            "unit": "author",
            "neighbouring": "one author added or removed, with everything they wrote",
            "bound": {"posts_per_author": self.config.posts_per_author, "max_tokens": self.config.max_tokens},
            "classes": list(self.classes),
            "mechanism": "DP-SGD on a LoRA adapter: Poisson-sampled authors, each author's gradient clipped",
            "noise_multiplier": self.noise_multiplier_,
            "sample_rate": self.log_.sample_rate,
            "steps": self.config.steps,
            "clip": self.config.clip,
            "accountant": "Opacus RDP (subsampled Gaussian)",
            "public": ["the task's classes (given)", "the number of authors (sets the sampling rate)"],
            "seed": "secret: the operating system's entropy, never written"
            if self.secure
            else f"research run, seed {self.random_state}: the guarantee holds only while the seed is secret",
            "libraries": {name: importlib.metadata.version(name) for name in ("opacus", "torch", "peft")},
        }
