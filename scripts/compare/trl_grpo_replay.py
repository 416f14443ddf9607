"""Replays cascade's GRPO steps through TRL's update, to show the two take the same step.

`cascade bench-grpo --metrics M.jsonl --save-warm-model W --save-final-model F --steps N`
records every step's prompts, responses and rewards. This script starts from W, and
for each recorded step applies exactly what TRL 1.16's GRPOTrainer does with that batch
in its default on-policy setting (loss_type "dapo", beta 0, scale_rewards "group",
advantages (r - mean) / (std + 1e-4), ratio exp(logp - logp.detach()), two-sided clip
0.2, loss summed over response tokens / their count, clip_grad_norm 1.0, torch AdamW
(betas 0.9/0.999, eps 1e-8, weight decay 0), linear decay from the lr to 0 over the
run) — then compares every parameter with F.

    python trl_grpo_replay.py --warm W --final F --metrics M.jsonl [--lr 5e-4] [--temperature T]

At a temperature T != 1 TRL computes the log-probs from logits / T (the distribution
it sampled from), as cascade's training pass does.
"""
import argparse
import json

import torch
from transformers import AutoModelForCausalLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warm", required=True)
    ap.add_argument("--final", required=True)
    ap.add_argument("--metrics", required=True)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--temperature", type=float, default=1.0,
                    help="the run's sampling temperature: TRL divides the logits by it")
    ap.add_argument("--total-steps", type=int, default=0,
                    help="the run's step count for the lr schedule (default: the recorded steps)")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    steps = [json.loads(line) for line in open(args.metrics)]
    total = args.total_steps or len(steps)
    model = AutoModelForCausalLM.from_pretrained(args.warm, dtype=torch.float32)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, (total - s) / total))
    pad = model.config.pad_token_id or 0
    for rec in steps:
        prompts, completions = rec["prompts"], rec["completions"]
        rewards = torch.tensor(rec["rewards"], dtype=torch.float32)
        group = len(completions) // len(prompts)
        grouped = rewards.view(-1, group)
        adv = (grouped - grouped.mean(1, keepdim=True)) / (grouped.std(1, keepdim=True) + 1e-4)
        adv = adv.view(-1, 1)
        plen = max(len(p) for p in prompts)
        clen = max(max((len(c) for c in completions), default=1), 1)
        ids, attn, cmask = [], [], []
        for i, c in enumerate(completions):
            p = prompts[i // group]
            ids.append([pad] * (plen - len(p)) + p + c + [pad] * (clen - len(c)))
            attn.append([0] * (plen - len(p)) + [1] * len(p) + [1] * len(c) + [0] * (clen - len(c)))
            cmask.append([1] * len(c) + [0] * (clen - len(c)))
        ids, attn, cmask = torch.tensor(ids), torch.tensor(attn), torch.tensor(cmask, dtype=torch.float32)
        position_ids = (attn.cumsum(1) - 1).clamp(min=0)
        logits = model(input_ids=ids, attention_mask=attn, position_ids=position_ids).logits
        logits = logits[:, plen - 1:-1, :] / args.temperature
        logp = logits.log_softmax(-1).gather(-1, ids[:, plen:].unsqueeze(-1)).squeeze(-1)
        coef_1 = torch.exp(logp - logp.detach())
        coef_2 = torch.clamp(coef_1, 0.8, 1.2)
        per_token = -torch.min(coef_1 * adv, coef_2 * adv)
        loss = (per_token * cmask).sum() / cmask.sum().clamp(min=1.0)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
    final = AutoModelForCausalLM.from_pretrained(args.final, dtype=torch.float32)
    ours = dict(final.named_parameters())
    warm = dict(AutoModelForCausalLM.from_pretrained(args.warm, dtype=torch.float32).named_parameters())
    worst_name, worst, diff_sq, moved_sq = None, 0.0, 0.0, 0.0
    for name, p in model.named_parameters():
        theirs_step = p.detach() - warm[name].detach()
        ours_step = ours[name].detach() - warm[name].detach()
        diff_sq += (ours_step - theirs_step).pow(2).sum().item()
        moved_sq += theirs_step.pow(2).sum().item()
        d = (ours_step - theirs_step).abs().max().item()
        if d > worst:
            worst_name, worst = name, d
    # Adam moves a weight whose gradient is ~1e-8 (comparable to eps) by a sizeable
    # fraction of lr on float noise alone, so single elements can differ; the update
    # as a whole must agree.
    print(f"{len(steps)} steps replayed: |cascade update - TRL update| / |TRL update| = "
          f"{(diff_sq / max(moved_sq, 1e-30)) ** 0.5:.2e} (L2 over all parameters); "
          f"largest single-element difference {worst:.2e} ({worst_name}) of updates up to lr={args.lr:g} per step")

if __name__ == "__main__":
    main()
