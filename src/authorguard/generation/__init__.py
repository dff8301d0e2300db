"""Text generation for the language-model methods and TAROT's stages: one interface, two engines.

- ``batched`` (default): our batched KV-cache decoding loop, bfloat16 where the hardware computes it natively,
  finished rows dropped from the batch as they finish (:mod:`.batched`);
- ``torch``: transformers' ``generate`` in float32, the reference path (:mod:`.reference`).

Engines are registered in :data:`authorguard.registry.engines` (lazy targets, one line each). Samplers
(:mod:`.samplers`) are shared: nucleus, greedy, and DP-Prompt's clipped-logit sampler (with its expression as
``generate`` options). :mod:`.reference_lm` loads SmolLM2-135M-Instruct, the base every policy and the fluency
metric share. This layer imports no method, trainer or experiment: they all import it.
"""

from authorguard.generation.base import GenerationEngine, Generations, engine_names, make_engine
from authorguard.generation.samplers import ClippedSampler, GreedySampler, NucleusSampler, sampler_for

DEFAULT_ENGINE = "batched"

__all__ = [
    "DEFAULT_ENGINE",
    "ClippedSampler",
    "GenerationEngine",
    "Generations",
    "GreedySampler",
    "NucleusSampler",
    "engine_names",
    "make_engine",
    "sampler_for",
]
