"""Writes trainer/assets/tiny-chatml/: config and tokenizer files (no weights) of a
tiny Qwen2-shaped model for recipes/tiny.toml, which starts it from random weights.

The tokenizer is byte-level (256 byte tokens, no merges) plus ChatML's special tokens,
so any text encodes; the chat template is ChatML as Qwen2.5 uses it.

    ~/.cache/cascade/venv-torch-2.11.0/bin/python trainer/assets/make_tiny_chatml.py
"""
import json
import os

from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from tokenizers.pre_tokenizers import ByteLevel
from transformers import PreTrainedTokenizerFast

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny-chatml")
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# ChatML; tool results go in a user turn as <tool_response> blocks, as Qwen2.5's and
# Cascade 2's templates put them (consecutive results share one turn).
TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'tool' %}"
    "{% if loop.first or messages[loop.index0 - 1]['role'] != 'tool' %}{{ '<|im_start|>user' }}{% endif %}"
    "{{ '\\n<tool_response>\\n' + message['content'] + '\\n</tool_response>' }}"
    "{% if loop.last or messages[loop.index0 + 1]['role'] != 'tool' %}{{ '<|im_end|>\\n' }}{% endif %}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

alphabet = ByteLevel.alphabet()
vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
tok.decoder = decoders.ByteLevel()
tok.add_special_tokens(SPECIALS)
fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>",
                               pad_token="<|endoftext|>")
fast.chat_template = TEMPLATE
os.makedirs(OUT, exist_ok=True)
fast.save_pretrained(OUT)
config = {
    "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
    "vocab_size": len(vocab) + len(SPECIALS), "hidden_size": 64, "intermediate_size": 256,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "tie_word_embeddings": True,
    "max_position_embeddings": 4096, "torch_dtype": "float32",
    "eos_token_id": fast.convert_tokens_to_ids("<|im_end|>"),
    "pad_token_id": fast.convert_tokens_to_ids("<|endoftext|>"),
    "initializer_range": 0.02,
}
with open(os.path.join(OUT, "config.json"), "w") as f:
    json.dump(config, f, indent=2)
print(OUT, config["vocab_size"])
