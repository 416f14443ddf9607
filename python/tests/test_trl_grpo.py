"""TRL end to end: a real `GRPOTrainer` trains a tiny random-init model for a few steps
with cascade's `math` reward through `cr.trl.reward_func`.

It needs torch, transformers and trl (scripts/test-python --trl runs it in a venv
layered on the TRL cache venv); elsewhere it is skipped. Offline: the model and the
tokenizer are built here, nothing is downloaded.

Asserts: the per-completion rewards TRL logged (its completions table) and its logged
per-step reward mean equal `cascade score` on the same completions, run as the CLI on
a JSONL file; and a row with a malformed answer (None) scores 0 with `details.error`
without stopping training.
"""

from __future__ import annotations

import json
import subprocess

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
trl = pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")

import cascade_rewards as cr  # noqa: E402
from conftest import cascade_bin  # noqa: E402
from tiny_hf import tiny_tokenizer  # noqa: E402

STEPS = 3
PROMPTS_PER_STEP = 2
GENERATIONS = 8
#: A two-digit vocabulary, so that a random model's short completions hit the gold
#: answer often enough for the rewards to be a mix of 0 and 1.
CHARS = "12="


def tiny_model(vocab_size: int):
    torch.manual_seed(0)
    config = transformers.Qwen2Config(
        vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        pad_token_id=0, eos_token_id=1, bos_token_id=1, tie_word_embeddings=True,
    )
    return transformers.AutoModelForCausalLM.from_config(config)


class Spy:
    """Wraps the cascade reward function, keeping what TRL passed and what it got."""

    def __init__(self, inner):
        self.inner = inner
        self.__name__ = inner.__name__
        self.calls = []

    def __call__(self, prompts=None, completions=None, completion_ids=None, **kwargs):
        rewards = self.inner(prompts=prompts, completions=completions, completion_ids=completion_ids, **kwargs)
        samples = self.inner.samples(prompts, completions, **kwargs)
        self.calls.append({"samples": samples, "rewards": rewards, "results": self.inner.last_results})
        return rewards


def test_grpo_trainer_logs_cascade_scores(tmp_path):
    rows = [{"prompt": f"{1 + i % 2}=", "answer": str(1 + i % 2)} for i in range(STEPS * PROMPTS_PER_STEP)]
    rows[2]["answer"] = None  # malformed: math needs a string answer
    dataset = datasets.Dataset.from_list(rows)
    tokenizer = tiny_tokenizer(CHARS)
    model = tiny_model(len(tokenizer))
    reward = Spy(cr.trl.reward_func("math", jobs=2))

    captured = []

    class Capture(transformers.TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and f"rewards/{reward.__name__}/mean" in logs:
                captured.append(dict(logs))
    config = trl.GRPOConfig(
        output_dir=str(tmp_path / "out"), max_steps=STEPS, per_device_train_batch_size=PROMPTS_PER_STEP * GENERATIONS,
        num_generations=GENERATIONS, max_completion_length=4, temperature=1.0, learning_rate=1e-3, beta=0.0,
        logging_steps=1, report_to=[], save_strategy="no", use_cpu=True, bf16=False, seed=0,
        dataloader_num_workers=0, disable_tqdm=True, log_completions=False,
    )
    trainer = trl.GRPOTrainer(model=model, reward_funcs=reward, args=config, train_dataset=dataset,
                              processing_class=tokenizer, callbacks=[Capture()])
    trainer.train()

    assert trainer.state.global_step == STEPS
    assert len(reward.calls) == STEPS and len(captured) == STEPS
    # The malformed row was scored (each step takes fresh rows; 3 steps cover all 6),
    # got 0 with the reason, and training went on.
    errors = [r for call in reward.calls for r in call["results"] if "error" in r["details"]]
    assert errors and all(r["reward"] == 0.0 and "answer" in r["details"]["error"] for r in errors)

    # The CLI on the very samples TRL's completions made gives the same rewards.
    all_samples = [s for call in reward.calls for s in call["samples"]]
    path = tmp_path / "completions.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in all_samples), encoding="utf-8")
    out = subprocess.run([cascade_bin(), "score", "--env", "math", "--input", str(path)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    cli_rewards = [json.loads(line)["reward"] for line in out]
    assert 0.0 in cli_rewards and 1.0 in cli_rewards, cli_rewards
    assert [r for call in reward.calls for r in call["rewards"]] == cli_rewards
    assert [json.loads(line) for line in out] == [r for call in reward.calls for r in call["results"]]

    # What TRL itself logged: the per-step mean under the function's name, and its
    # completions table (completion text and reward of every completion).
    for call, log in zip(reward.calls, captured):
        mean = sum(call["rewards"]) / len(call["rewards"])
        assert log[f"rewards/{reward.__name__}/mean"] == pytest.approx(mean, abs=1e-6)
    table_completions = list(trainer._logs["completion"])
    table_rewards = list(trainer._logs["rewards"][reward.__name__])
    n = len(table_rewards)
    assert n > 0
    assert table_rewards == pytest.approx(cli_rewards[-n:], abs=0)
    assert table_completions == [s["response"] for s in all_samples][-n:]
