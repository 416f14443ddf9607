# The peer of `cascade bench-model --device cuda`: transformers' Qwen2ForCausalLM of the
# same shape, random weights, float32 master weights under bf16 autocast (as cascade),
# sampling with generate() (temperature 1, no top-k/p, exactly N new tokens) and one
# training step = completion-token log-prob mean, backward, clip 1.0, AdamW.
import json, sys, time, torch
from transformers import Qwen2Config, Qwen2ForCausalLM
import transformers
cfg = Qwen2Config(vocab_size=151936, hidden_size=896, intermediate_size=4864,
                  num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
                  rms_norm_eps=1e-6, rope_theta=1e6, tie_word_embeddings=True,
                  max_position_embeddings=32768)
torch.manual_seed(0)
m = Qwen2ForCausalLM(cfg).to("cuda")
opt = torch.optim.AdamW(m.parameters(), lr=1e-6, fused=True)
P, N, R = 256, 256, 2  # as `bench-model --prompt-len 256 --new-tokens 256 --repeats 2`
def gen(ids, n):
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        return m.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n,
                          min_new_tokens=n, do_sample=True, temperature=1.0, top_k=0,
                          top_p=1.0, pad_token_id=0)
def train(seq):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = m(seq).logits[:, P - 1:-1].float()
    logp = torch.log_softmax(logits, -1).gather(-1, seq[:, P:, None]).squeeze(-1)
    logp.mean().backward()
    torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    opt.step()
for B in (16, 64):
    ids = torch.randint(0, cfg.vocab_size, (B, P), device="cuda")
    gen(ids, 4); torch.cuda.synchronize(); t = time.time()
    for _ in range(R): out = gen(ids, N)
    torch.cuda.synchronize(); s = time.time() - t
    train(out); torch.cuda.synchronize(); t = time.time()
    for _ in range(R): train(out)
    torch.cuda.synchronize(); tr = time.time() - t
    print(json.dumps({"peer": "transformers %s generate + torch training step" % transformers.__version__,
                      "batch": B, "new_tokens": out.shape[1] - P,
                      "sampling_tokens_per_s": B * N * R / s,
                      "training_tokens_per_s": B * (P + N) * R / tr}), flush=True)
