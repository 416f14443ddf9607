"""A tiny character-level Hugging Face tokenizer, built offline, for the TRL and verl tests."""

from __future__ import annotations

import transformers


#: Digits, arithmetic and the characters of `\\boxed{..}`.
MATH_CHARS = "0123456789+=-/. \\boxed{}"


def tiny_tokenizer(chars: str = MATH_CHARS):
    """A character-level tokenizer over `chars`, plus <pad>, <eos> and <unk>."""
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders

    vocab = {"<pad>": 0, "<eos>": 1, "<unk>": 2}
    for c in list(chars):
        vocab.setdefault(c, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split(pattern="", behavior="isolated")
    tok.decoder = decoders.Fuse()
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>"
    )
