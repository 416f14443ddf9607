"""One GRPO step through transformers + TRL 1.16, on the model and batch cascade saved.

`cascade bench-model --train-step --save-step DIR` writes DIR/model (the initial
weights, a Hugging Face float32 checkpoint), DIR/step.json (the batch and the loss
settings) and DIR/cascade.json (its figures). This script takes the same step the way
TRL 1.16's GRPOTrainer does on-policy (beta 0, loss_type "dapo",
num_iterations 1, steps_per_generation == gradient_accumulation_steps == 1) and
prints the same figures, then, if DIR/cascade.json exists, both side by side.

    python trl_step_05b.py --step DIR [--threads N] [--logp fused|selective]
                           [--gradient-checkpointing auto|on|off]

Where each detail comes from (trl/trainer/grpo_trainer.py and trl/trainer/utils.py of
the installed trl 1.16.0; transformers 5.24's Trainer for the optimizer):

- Input: `_compute_loss` concatenates prompt and completion ids, and the attention
  mask from prompt_mask and completion_mask. cascade's batch has no padding, so the
  mask is all ones here: a zero in completion_mask only takes a token out of the loss
  (TRL's tool_mask role), and zeros after the last response token would not change the
  scored positions anyway (causal attention).
- Log-probs (`_get_per_token_logps_and_entropies`): TRL 1.16 no longer computes logits
  and calls `selective_log_softmax` in GRPO. `GRPOTrainer.__init__` patches the model
  with `add_fused_lm_head(model, temperature=args.temperature,
  outputs=("log_probs", "entropy"))`, and the forward is `model(input_ids,
  attention_mask, labels=labels, fused_lm_head=True)` with labels -100 outside the
  completion (`labels[:, :-logits_to_keep] = -100`) and where the mask is 0; it
  returns `log_probs[:, -logits_to_keep:]`. The fused head shifts by one (position t
  predicts t+1), divides by the temperature and projects through the LM head in
  tiles (`trl.kernels.ChunkedLogProbFunction`), never holding [B, L+C, V] logits —
  like cascade's chunked logits. That is the default here (`--logp fused`), with the
  entropy output the trainer asks for (it computes it for its metric every step).
  `--logp selective` instead takes `logits[:, L-1:-1] / temperature` (the model's
  `logits_to_keep=C+1`, dropping the last) and `trl.trainer.utils.selective_log_softmax`,
  the path TRL's GRPO used before the fused head (and still ships).
- Loss (`_compute_loss`, loss_type in ["grpo", "bnpo", "dr_grpo", "dapo", "luspo"]):
  old_per_token_logps = per_token_logps.detach() (on-policy, no old logps in the
  inputs), coef_1 = exp(logp - old), coef_2 = clamp(coef_1, 1 - epsilon_low,
  1 + epsilon_high), per_token_loss = -min(coef_1 * A, coef_2 * A) with A unsqueezed
  to [B, 1]; beta 0 adds no KL term; "dapo": loss = (per_token_loss * mask).sum() /
  normalizer, normalizer = num_items_in_batch (the summed loss mask) on one process
  with steps_per_generation == gradient accumulation — step.json's num_tokens.
- Optimizer: Trainer clips with accelerator.clip_grad_norm_ (torch's
  clip_grad_norm_ on one process; it returns the pre-clip norm), then steps AdamW.
  transformers 5.24 defaults `optim` to "adamw_torch_fused" on torch >= 2.8, i.e.
  torch.optim.AdamW(fused=True), with betas (0.9, 0.999), eps 1e-8, weight decay 0.
  The first step of a linear schedule without warm-up runs at the full lr.
- Not followed: GRPOConfig's defaults bf16=True and gradient_checkpointing=True.
  The step runs in float32 without recomputation, like cascade's CPU default;
  `--gradient-checkpointing auto` turns recomputation on when cascade.json says
  cascade recomputed (activations "recompute"), as TRL would with its default.

Timing follows cascade's `measure_step`: one step, no warm-up, from zero_grad to the
optimizer step, after the model (copied out of the checkpoint's mmap into memory, as
cascade holds it) and optimizer exist. torch allocates AdamW's moments
lazily inside that first step, whereas cascade allocates them before it, so
rss_before_step_mb is lower here by about 2 x the parameters' size; peak_rss_mb
(VmHWM) is comparable.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch
import trl
from transformers import AutoModelForCausalLM
from trl.trainer.utils import add_fused_lm_head, selective_log_softmax

# How far apart the two steps may be before this exits non-zero: float32 sums over
# millions of terms in different orders differ by well under this.
GRAD_NORM_RTOL = 1e-3
MEAN_LOGP_ATOL = 1e-4
FIGURES = ("loss", "grad_norm", "mean_logp", "seconds", "training_tokens_per_s",
           "peak_rss_mb", "rss_before_step_mb")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--step", required=True, type=Path, help="the directory cascade's --save-step wrote")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="torch intra-op threads")
    ap.add_argument("--logp", choices=("fused", "selective"), default="fused",
                    help="fused: TRL 1.16 GRPOTrainer's fused LM head; selective: full logits + selective_log_softmax")
    ap.add_argument("--gradient-checkpointing", choices=("auto", "on", "off"), default="auto",
                    help="auto: as cascade.json's activations say (off without it)")
    return ap.parse_args()


def read_json(path):
    with open(path) as f:
        return json.load(f)


def read_batch(step):
    """step.json's batch as tensors; the mask as float, as TRL multiplies by it."""
    batch = {
        "prompt_ids": torch.tensor(step["prompt_ids"], dtype=torch.long),
        "completion_ids": torch.tensor(step["completion_ids"], dtype=torch.long),
        "mask": torch.tensor(step["completion_mask"], dtype=torch.float32),
        "advantages": torch.tensor(step["advantages"], dtype=torch.float32),
    }
    rows, response = batch["completion_ids"].shape
    if batch["prompt_ids"].shape[0] != rows or batch["mask"].shape != (rows, response) \
            or batch["advantages"].shape != (rows,):
        sys.exit(f"step.json: inconsistent shapes: prompt_ids {list(batch['prompt_ids'].shape)}, "
                 f"completion_ids {[rows, response]}, completion_mask {list(batch['mask'].shape)}, "
                 f"advantages {list(batch['advantages'].shape)}")
    return batch


def wants_recompute(flag, cascade):
    if flag != "auto":
        return flag == "on"
    return (cascade or {}).get("activations") == "recompute"


def materialize(model):
    """Copies the weights out of the safetensors mmap into process memory.

    transformers maps the checkpoint file and pages weights in on first touch, so the
    timed step would include reading them (copy-on-write faults on the optimizer's
    first write, re-reads when memory is tight) and VmRSS before the step would lack
    them; cascade's weights are in memory before its step. `parameters()` yields the
    tied embedding/LM-head Parameter once, so the tie holds. Both copies are resident
    for a moment (VmHWM about 2x the weights), still under any training step's peak:
    weights, gradients and AdamW's two moments alone are 4x.
    """
    with torch.no_grad():
        for p in model.parameters():
            p.data = p.data.clone()


def load_model(model_dir, recompute, logp, temperature):
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    materialize(model)
    if recompute:
        # What Trainer does with gradient_checkpointing=True (no kwargs from GRPOConfig).
        model.gradient_checkpointing_enable()
    if logp == "fused":
        # GRPOTrainer.__init__'s patch, with the outputs it asks for.
        add_fused_lm_head(model, temperature=temperature, outputs=("log_probs", "entropy"))
    model.train()
    return model


def logps_fused(model, input_ids, attention_mask, mask, response_len):
    """`_get_per_token_logps_and_entropies` of TRL 1.16 for one micro-batch."""
    labels = input_ids.masked_fill(attention_mask == 0, -100)
    labels[:, :-response_len] = -100
    # TRL's attention mask is 0 where completion_mask is, so those labels are -100 there.
    labels[:, -response_len:] = labels[:, -response_len:].masked_fill(mask == 0, -100)
    out = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels, fused_lm_head=True)
    return out.log_probs[:, -response_len:]


def logps_selective(model, input_ids, attention_mask, completion_ids, temperature):
    """Pre-fused-head TRL: logits of the positions that predict the completion."""
    response_len = completion_ids.shape[1]
    logits = model(input_ids=input_ids, attention_mask=attention_mask,
                   logits_to_keep=response_len + 1, use_cache=False).logits
    # The last position predicts past the sequence.
    logits = logits[:, :-1, :] / temperature
    return selective_log_softmax(logits, completion_ids)


def dapo_loss(logp, batch, step):
    """`_compute_loss` for loss_type "dapo", beta 0, on-policy, token-level ratios."""
    advantages = batch["advantages"].unsqueeze(1)
    coef_1 = torch.exp(logp - logp.detach())
    coef_2 = torch.clamp(coef_1, 1 - step["epsilon_low"], 1 + step["epsilon_high"])
    per_token_loss = -torch.min(coef_1 * advantages, coef_2 * advantages)
    return (per_token_loss * batch["mask"]).sum() / step["num_tokens"]


def resident_mb(field):
    """A /proc/self/status memory field in MiB, as cascade's `resident_mb` reads it."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def train_step(model, optimizer, batch, step, logp_mode):
    """One step, timed from zero_grad to the optimizer step, as cascade times it."""
    input_ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
    attention_mask = torch.ones_like(input_ids)
    response_len = batch["completion_ids"].shape[1]
    start = time.perf_counter()
    optimizer.zero_grad()
    if logp_mode == "fused":
        logp = logps_fused(model, input_ids, attention_mask, batch["mask"], response_len)
    else:
        logp = logps_selective(model, input_ids, attention_mask, batch["completion_ids"], step["temperature"])
    loss = dapo_loss(logp, batch, step)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), step["max_grad_norm"])
    optimizer.step()
    seconds = time.perf_counter() - start
    mask = batch["mask"]
    mean_logp = (logp.detach() * mask).sum() / mask.sum().clamp(min=1.0)
    return {"loss": loss.item(), "grad_norm": grad_norm.item(), "mean_logp": mean_logp.item(),
            "seconds": seconds, "training_tokens_per_s": input_ids.numel() / seconds}


def make_optimizer(model, lr):
    # transformers' default optim on torch >= 2.8 ("adamw_torch_fused").
    return torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8,
                             weight_decay=0.0, fused=True)


def fmt(value):
    return f"{value:.6g}" if isinstance(value, (int, float)) else str(value)


def print_table(ours, cascade):
    print(f"\n{'':24}{'cascade':>16}{'transformers+TRL':>20}")
    for key in FIGURES:
        print(f"{key:24}{fmt(cascade.get(key, '-')):>16}{fmt(ours[key]):>20}")


def agreement(ours, cascade):
    """The differences, and the messages for those past the tolerances."""
    missing = [k for k in ("loss", "grad_norm", "mean_logp") if k not in cascade]
    if missing:
        return {}, [f"cascade.json lacks {', '.join(missing)}"]
    d_loss = abs(ours["loss"] - cascade["loss"])
    d_norm = abs(ours["grad_norm"] - cascade["grad_norm"]) / max(abs(ours["grad_norm"]), 1e-30)
    d_logp = abs(ours["mean_logp"] - cascade["mean_logp"])
    failures = []
    if not d_norm <= GRAD_NORM_RTOL:  # `not <=` also catches NaN
        failures.append(f"grad_norm differs by {d_norm:.2e} relative (tolerance {GRAD_NORM_RTOL:g}): "
                        f"cascade {cascade['grad_norm']:.6g}, TRL {ours['grad_norm']:.6g}")
    if not d_logp <= MEAN_LOGP_ATOL:
        failures.append(f"mean_logp differs by {d_logp:.2e} (tolerance {MEAN_LOGP_ATOL:g}): "
                        f"cascade {cascade['mean_logp']:.6g}, TRL {ours['mean_logp']:.6g}")
    return {"abs_d_loss": d_loss, "rel_d_grad_norm": d_norm, "abs_d_mean_logp": d_logp}, failures


def compare(ours, cascade):
    print_table(ours, cascade)
    diffs, failures = agreement(ours, cascade)
    if diffs:
        print(f"\nagreement: |Δloss| {diffs['abs_d_loss']:.2e}, relative Δgrad_norm "
              f"{diffs['rel_d_grad_norm']:.2e}, |Δmean_logp| {diffs['abs_d_mean_logp']:.2e}")
    for message in failures:
        print(f"DISAGREE: {message}", file=sys.stderr)
    if failures:
        sys.exit("cascade's GRPO step does not match transformers+TRL's (see above)")
    print("agreement: within tolerance (grad_norm 1e-3 relative, mean_logp 1e-4 absolute)")


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    step = read_json(args.step / "step.json")
    cascade_path = args.step / "cascade.json"
    cascade = read_json(cascade_path) if cascade_path.exists() else None
    if cascade and cascade.get("bf16"):
        sys.exit("cascade.json says the step ran under bf16 autocast; this peer runs float32 only")
    batch = read_batch(step)
    recompute = wants_recompute(args.gradient_checkpointing, cascade)
    model = load_model(args.step / "model", recompute, args.logp, step["temperature"])
    optimizer = make_optimizer(model, step["lr"])
    rss_before = resident_mb("VmRSS")
    figures = train_step(model, optimizer, batch, step, args.logp)
    figures.update(peak_rss_mb=resident_mb("VmHWM"), rss_before_step_mb=rss_before)
    report = {key: figures[key] for key in FIGURES}
    report.update(threads=args.threads, logp=args.logp,
                  activations="recompute" if recompute else "keep",
                  torch=torch.__version__, trl=trl.__version__)
    print(json.dumps(report, indent=2))
    if cascade is not None:
        compare(report, cascade)


if __name__ == "__main__":
    main()
