"""The style bottleneck's realiser: SmolLM2-135M-Instruct + LoRA turning a style-free view back into text."""
