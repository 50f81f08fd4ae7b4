"""The embedded engine: vLLM's CPU build and the tiny model in a managed venv."""
