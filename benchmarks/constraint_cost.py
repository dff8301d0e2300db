"""What constrained decoding costs per step against the forward pass (issue 56: "its cost per step must be small
against the forward pass — measure it"), and the engine's tokens/s with the realiser's prompts.

The prompts are the realiser's: 48 blog paragraphs of 90 words (as benchmarks/bottleneck_throughput.py), their roles
views cut into chunks and rendered in the realiser's chat template. The batched engine writes them twice with the
same seed: under each chunk's :class:`~authorguard.generation.ordered_words.OrderedWords` constraint, and free. Printed:
wall seconds, new tokens, tokens/s, the seconds spent in the constraint (building the allowed sets: the byte-trie
walks, cached per automaton state; masking the logits; advancing the automata), its share of the constrained run,
and the states walked.

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/constraint_cost.py [--model FOLDER] [--batch-size 64]
"""

from __future__ import annotations

import argparse
import json
import time

BENCHMARK_PARAGRAPHS = 48


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="A realiser folder (default: the packaged roles realiser).")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--paragraphs", type=int, default=BENCHMARK_PARAGRAPHS)
    args = parser.parse_args()

    from bottleneck_throughput import paragraphs

    from authorguard.generation import NucleusSampler
    from authorguard.generation import batched as batched_module
    from authorguard.generation import constraints as constraint_module
    from authorguard.neural.realiser.constrained import ViewPlans
    from authorguard.neural.realiser.model import PACKAGED_ROLES, Realiser, chunk_views_with_edges
    from authorguard.text.views.roles import roles_view

    realiser = Realiser(args.model or PACKAGED_ROLES)
    texts = paragraphs(args.paragraphs, 90)
    chunks, edges = chunk_views_with_edges([roles_view(t) for t in texts], realiser.config.max_view_words)
    tokenizer = realiser.loader.tokenizer
    prompts = [
        tokenizer.apply_chat_template(
            realiser.config.messages("ordered", c.text), tokenize=False, add_generation_prompt=True
        )
        for c in chunks
    ]
    engine = realiser.loader.engine("batched")
    sampler = NucleusSampler(0.7, 0.95)
    engine.generate(prompts[:8], max_new_tokens=8, sampler=sampler, seed=0, batch_size=8)  # warm-up

    spent = {"mask": 0.0, "allowed": 0.0, "advance": 0.0, "walks": 0}
    masked, allowed, advance = (
        batched_module.masked_logits,
        constraint_module.WordPlan.allowed,
        constraint_module.OrderedWords.advance,
    )

    def timed_mask(*a, **k):
        started = time.perf_counter()
        try:
            return masked(*a, **k)
        finally:
            spent["mask"] += time.perf_counter() - started

    def timed_allowed(self, states):
        if states not in self._allowed:
            spent["walks"] += 1
            started = time.perf_counter()
            out = allowed(self, states)
            spent["allowed"] += time.perf_counter() - started
            return out
        return allowed(self, states)

    def timed_advance(self, token):
        started = time.perf_counter()
        try:
            return advance(self, token)
        finally:
            spent["advance"] += time.perf_counter() - started

    batched_module.masked_logits = timed_mask
    constraint_module.WordPlan.allowed = timed_allowed
    constraint_module.OrderedWords.advance = timed_advance
    plans = ViewPlans("roles", tokenizer, {c.text: e for c, e in zip(chunks, edges)})
    limit = realiser.config.max_new_tokens
    constrained = engine.generate(
        prompts,
        max_new_tokens=limit,
        sampler=sampler,
        seed=0,
        batch_size=args.batch_size,
        constraints=plans.constraints([c.text for c in chunks]),
    )
    free = engine.generate(prompts, max_new_tokens=limit, sampler=sampler, seed=0, batch_size=args.batch_size)
    inside = spent["mask"] + spent["advance"]  # the mask includes the trie walks (allowed() is called from it)
    finished = sum(1 for ids in constrained.token_ids if ids and ids[-1] == tokenizer.eos_token_id)
    result = {
        "paragraphs": len(texts),
        "chunks": len(chunks),
        "batch_size": args.batch_size,
        "constrained": {
            "seconds": round(constrained.seconds, 1),
            "new_tokens": sum(constrained.new_tokens),
            "tokens_per_second": round(constrained.tokens_per_second, 1),
            "finished_within_limit": finished,
        },
        "free": {
            "seconds": round(free.seconds, 1),
            "new_tokens": sum(free.new_tokens),
            "tokens_per_second": round(free.tokens_per_second, 1),
        },
        "constraint_seconds": round(inside, 2),
        "of_which_trie_walks": round(spent["allowed"], 2),
        "states_walked": spent["walks"],
        "constraint_share_of_constrained_run": round(inside / constrained.seconds, 3),
        "ms_per_walk": round(1000 * spent["allowed"] / max(spent["walks"], 1), 2),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
