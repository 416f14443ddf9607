"""TRL 1.16's GRPOTrainer on recipes/smollm2.toml's IF-RL stage, for comparison with
cascade's run of the same stage (scripts/compare/trl_smollm2.sh): the same converted
SmolLM2-135M-Instruct, the same rows (prompt as one user message, rendered by the
checkpoint's chat template), the same reward (cascade's `ifeval` env through
`cascade_rewards.trl.reward_func`) and the same settings: prompts × group size per
step, max new tokens, temperature 1, top-p 1, lr with no warm-up or decay, no KL,
token-level loss (loss_type "dapo"), one update per batch, clipping at 1.0, float32
on the CPU.

    python trl_smollm2.py --model DIR --data FILE [--steps 20] [--seed 0] ...
"""
import argparse
import json
import random
import tempfile
import time

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
from trl import GRPOConfig, GRPOTrainer

import cascade_rewards.trl as crt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--prompts-per-step", type=int, default=4)
    ap.add_argument("--group-size", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=96)
    ap.add_argument("--lr", type=float, default=2e-6)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    with open(args.data) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    random.Random(args.seed).shuffle(rows)
    # kwargs are dicts of different keys per instruction: kept as JSON text, so the
    # datasets library does not merge them into one struct padded with nulls.
    dataset = Dataset.from_list([
        {"prompt": [{"role": "user", "content": r["prompt"]}], "id": str(r.get("id", i)),
         "instruction_id_list": r["instruction_id_list"], "kwargs_json": json.dumps(r["kwargs"])}
        for i, r in enumerate(rows)
    ])
    scorer = crt.reward_func("ifeval")

    def ifeval(prompts=None, completions=None, **kw):
        kw["kwargs"] = [json.loads(k) for k in kw.pop("kwargs_json")]
        return scorer(prompts=prompts, completions=completions, **kw)

    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    config = GRPOConfig(
        output_dir=tempfile.mkdtemp(), max_steps=args.steps,
        per_device_train_batch_size=args.prompts_per_step * args.group_size,
        num_generations=args.group_size, max_completion_length=args.max_new_tokens,
        temperature=args.temperature, top_p=1.0, beta=0.0, loss_type="dapo", num_iterations=1,
        learning_rate=args.lr, lr_scheduler_type="constant", warmup_steps=0, max_grad_norm=1.0,
        weight_decay=0.0, logging_steps=1, report_to=[], save_strategy="no", use_cpu=True,
        bf16=False, seed=args.seed, dataloader_num_workers=0, disable_tqdm=True,
    )
    rewards = []

    class Rewards(TrainerCallback):
        def on_log(self, _args, state, control, logs=None, **kw):
            if logs and "reward" in logs:
                rewards.append(logs["reward"])

    trainer = GRPOTrainer(model=model, reward_funcs=ifeval, args=config, train_dataset=dataset,
                          processing_class=tok, callbacks=[Rewards()])
    start = time.time()
    trainer.train()
    secs = time.time() - start
    print("TRL rewards: " + " ".join(f"{r:.3f}" for r in rewards))
    print(f"TRL GRPO: {args.steps} steps in {secs:.1f}s = {args.steps / secs:.4f} steps/s")


if __name__ == "__main__":
    main()
