"""The roles constraint two ways (issue 65): the hand-written byte automaton (:class:`WordPlan`) against the same
language compiled per request by a maintained grammar library (llguidance, a Lark grammar generated from the plan).

    pip install llguidance && AUTHORGUARD_DATA=../shared/data python benchmarks/constraint_grammar.py [--chunks 40]

For the roles views of real blog posts (first 120 words, seeded), cut into the realiser's chunks: random walks over
the tokens both allow; at every step both masks are computed, compared and timed — the automaton cold (a state first
seen) and warm (cached), the library's grammar compile per request and its mask per step; every text written is
checked whole by both (the tokenizer's own tokenisation). Prints the figures; docs/benchmarks.md keeps them.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def lark_grammar(plan) -> str:
    """The language of a roles :class:`WordPlan` (no added punctuation) as a Lark grammar: per required word, the
    gaps of free words the plan allows before it (enumerated with the plan's own rules), the word as written or
    capitalised at a sentence start, then a space, a stop at a break, or the end."""
    from authorguard.text.atoms import closed_gap
    from authorguard.text.views.constraints import free_word_allowed, word_after_gap_allowed

    words, n, most = plan.words, len(plan.words), plan.max_free
    free = sorted(plan.free_words)

    def literal(text: str) -> str:
        return json.dumps(text)

    def forms(word: str, start: bool) -> list[str]:
        out = [word]
        if start and word[:1].islower():
            out.append(word[0].upper() + word[1:])
        return out

    def gaps(i: int) -> list[tuple[str, ...]]:
        if i > 0 and closed_gap(words[i - 1], words[i]):
            return [()]
        previous = words[i - 1] if i > 0 and i not in plan.breaks else ""
        found, frontier = [()], [()]
        for _ in range(most):
            grown = []
            for gap in frontier:
                for w in free:
                    if free_word_allowed(w, gap, previous if not gap else "") and word_after_gap_allowed(
                        words[i], (*gap, w)
                    ):
                        grown.append((*gap, w))
            found += grown
            frontier = grown
        return found

    rules = []
    for i in range(n):
        for start in (False, True):
            name = f"{'s' if start else 'p'}{i}"
            alternatives = []
            for gap in gaps(i):
                items = []
                for k, w in enumerate(gap):
                    items.append("(" + " | ".join(literal(f + " ") for f in forms(w, start and k == 0)) + ")")
                first = start and not gap
                items.append("(" + " | ".join(literal(f) for f in forms(words[i], first)) + ")")
                alternatives.append(" ".join(items) + f" r{i}")
            rules.append(f"{name}: " + " | ".join(alternatives))
        after = i + 1
        closed = after in plan._closed
        stop = "" if plan.questions is None else ("?" if after in plan.questions else ".")
        stops = [stop] if stop else [".", "!", "?"]
        options = []
        if after < n:
            options.append(f'" " {"s" if closed and after in plan.breaks else "p"}{after}')
            if after in plan.breaks and not closed:
                options += [f"{literal(s + ' ')} s{after}" for s in stops]
        else:
            options.append('""')
            if after in plan.breaks and not closed:
                options += [literal(s) for s in stops]
        rules.append(f"r{i}: " + " | ".join(options))
    lead = '(" ")?'
    first = "s0" if plan.starts_sentence else "p0"
    return "\n".join([f"start: {lead} {first}" if n else 'start: ""', *rules])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--walks", type=int, default=2)
    args = parser.parse_args()
    import llguidance
    import llguidance.hf

    from authorguard import registry
    from authorguard.generation.reference_lm import load_reference_tokenizer
    from authorguard.neural.realiser.constrained import ViewPlans
    from authorguard.neural.realiser.model import chunk_views_with_edges
    from authorguard.text.views.roles import roles_view

    tokenizer = load_reference_tokenizer()
    blogs = registry.datasets.get("blogs")()
    rng = np.random.default_rng(0)
    texts = [" ".join(blogs.texts[i].split()[:120]) for i in rng.permutation(len(blogs.texts))[: args.chunks]]
    chunks, edges = chunk_views_with_edges([roles_view(t) for t in texts], 32)
    chunks = chunks[: args.chunks]
    started = time.perf_counter()
    ll_tokenizer = llguidance.hf.from_tokenizer(tokenizer)
    tokenizer_seconds = time.perf_counter() - started
    plans = ViewPlans("roles", tokenizer, {c.text: e for c, e in zip(chunks, edges)})
    vocabulary = plans.vocabulary
    cold, warm, compile_times, library = [], [], [], []
    steps, extra_steps, library_only, texts_checked, both_accept = 0, 0, 0, 0, 0
    for chunk in chunks:
        plan = plans.plan(chunk.text)
        started = time.perf_counter()
        grammar = llguidance.LLMatcher.grammar_from_lark(lark_grammar(plan))
        compile_times.append(time.perf_counter() - started)
        for _ in range(args.walks):
            matcher = llguidance.LLMatcher(ll_tokenizer, grammar, log_level=0)
            if matcher.is_error():
                raise SystemExit(f"grammar error: {matcher.get_error()}")
            states, ids = plan.start(), []
            for _ in range(600):
                known = states in plan._allowed
                started = time.perf_counter()
                allowed = plan.allowed(states)
                (warm if known else cold).append(time.perf_counter() - started)
                started = time.perf_counter()
                bits = np.frombuffer(matcher.compute_bitmask(), dtype=np.uint8)
                library.append(time.perf_counter() - started)
                theirs = {int(t) for t in np.flatnonzero(np.unpackbits(bits, bitorder="little")[: len(tokenizer)])}
                ours = set(allowed.tolist())
                steps += 1
                extra_steps += bool(ours - theirs)  # tokenisations the library's mask leaves out
                library_only += len(theirs - ours)  # strings the automaton would refuse
                both = sorted(ours & theirs)
                token = int(rng.choice(both))
                if token == vocabulary.end_id:
                    break
                matcher.consume_token(token)
                states = plan.after(states, token)
                ids.append(token)
            # the text written, tokenised as the tokenizer would: both must accept it whole
            text = tokenizer.decode(ids)
            check = llguidance.LLMatcher(ll_tokenizer, grammar, log_level=0)
            canonical = tokenizer(text, add_special_tokens=False)["input_ids"]
            texts_checked += 1
            both_accept += plan.accepts(text) and check.validate_tokens(canonical) == len(canonical)
    print(
        json.dumps(
            {
                "chunks": len(chunks),
                "steps": steps,
                "steps where the automaton allows a tokenisation the library does not": extra_steps,
                "tokens the library allows and the automaton does not": library_only,
                "texts written": texts_checked,
                "texts both accept (canonical tokenisation)": both_accept,
                "automaton_ms_per_step_cold": round(1000 * float(np.mean(cold)), 3) if cold else None,
                "automaton_ms_per_step_warm": round(1000 * float(np.mean(warm)), 4) if warm else None,
                "automaton_share_cold_steps": round(len(cold) / steps, 3),
                "llguidance_tokenizer_seconds": round(tokenizer_seconds, 2),
                "llguidance_compile_ms_per_request": round(1000 * float(np.mean(compile_times)), 3),
                "llguidance_ms_per_step": round(1000 * float(np.mean(library)), 3),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
