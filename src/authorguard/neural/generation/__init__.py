"""Text generation for the language-model methods and TAROT's stages: one interface, two engines.

- ``batched`` (default): our batched KV-cache decoding loop, bfloat16 where the hardware computes it natively,
  finished rows dropped from the batch as they finish (:mod:`.batched`);
- ``torch``: transformers' ``generate`` in float32, the reference path (:mod:`.reference`).

Samplers (:mod:`.samplers`) are shared: nucleus, greedy, and DP-Prompt's clipped-logit sampler.
"""

from authorguard.neural.generation.base import ENGINES, GenerationEngine, Generations, make_engine
from authorguard.neural.generation.samplers import ClippedSampler, GreedySampler, NucleusSampler, sampler_for

DEFAULT_ENGINE = "batched"

__all__ = ["DEFAULT_ENGINE", "ENGINES", "ClippedSampler", "GenerationEngine", "Generations", "GreedySampler",
           "NucleusSampler", "make_engine", "sampler_for"]
