"""TRL's GRPOTrainer on issue 7's toy task, for comparison with `cascade bench-grpo`.

Same model (the warmed-up checkpoint cascade saved with --save-warm-model), same data
(single-digit addition, reward 1 for the exact sum) and settings: 8 prompts × 8
completions per step, at most 4 new tokens, temperature 1, no KL (beta 0), token-level
loss (loss_type "dapo"), one update per batch (strictly on-policy), lr 5e-4 with
linear decay, gradient clipping at 1.0 (both sides' default), on the CPU.

    python trl_grpo.py --model DIR [--steps 800] [--seed 0]
"""
import argparse
import random
import tempfile
import time

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
from trl import GRPOConfig, GRPOTrainer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--steps", type=int, default=800)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--temperature", type=float, default=1.0,
                    help="sampling temperature; TRL divides the training logits by it too")
    ap.add_argument("--every", type=int, default=50)
    ap.add_argument("--threads", type=int, default=0,
                    help="torch intra-op threads; 0 keeps torch's default, as a new user would")
    args = ap.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)

    rng = random.Random(args.seed)
    rows = []
    for _ in range(args.steps * 8):
        a, b = rng.randrange(10), rng.randrange(10)
        rows.append({"prompt": f"{a}+{b}=", "answer": str(a + b)})
    dataset = Dataset.from_list(rows)

    def exact_sum(completions, answer, **_):
        return [1.0 if c.strip() == a else 0.0 for c, a in zip(completions, answer)]

    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    out = tempfile.mkdtemp()
    config = GRPOConfig(
        output_dir=out,
        max_steps=args.steps,
        per_device_train_batch_size=64,
        num_generations=8,
        max_completion_length=4,
        temperature=args.temperature,
        top_p=1.0,
        beta=0.0,
        loss_type="dapo",
        num_iterations=1,
        learning_rate=args.lr,
        lr_scheduler_type="linear",
        max_grad_norm=1.0,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        bf16=False,
        seed=args.seed,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )

    rewards = []

    class Rewards(TrainerCallback):
        def on_log(self, _args, state, control, logs=None, **kw):
            if logs and "reward" in logs:
                rewards.append(logs["reward"])

    trainer = GRPOTrainer(model=model, reward_funcs=exact_sum, args=config,
                          train_dataset=dataset, processing_class=tok, callbacks=[Rewards()])
    start = time.time()
    trainer.train()
    secs = time.time() - start
    print(f"step  reward(mean of last {args.every})")
    for i in range(0, len(rewards), args.every):
        window = rewards[i:i + args.every]
        print(f"{i + len(window):4}  {sum(window) / len(window):.3f}")
    print(f"TRL GRPO: {args.steps} steps in {secs:.2f}s = {args.steps / secs:.2f} steps/s")
    if rewards:
        first, last = rewards[:50], rewards[-50:]
        print(f"reward: first 50 steps {sum(first) / len(first):.3f}, last 50 steps {sum(last) / len(last):.3f}")


if __name__ == "__main__":
    main()
