"""Writes the small parquet fixtures in this folder, and the JSONL twin of each, with
pyarrow (the writer behind verl's `Dataset.to_parquet` and the Hugging Face Hub's
shards), so the tests read files shaped as users' are.

    python datasets/parquet/make_fixtures.py    # needs pyarrow (any recent version)

The output is committed; rerun only to change the fixtures. Each `.jsonl` holds the same
rows as its parquet file(s), in order, so `cascade score` must give the same lines for
both (`tests/input_formats.rs`).

- `verl_math.parquet`: verl's RL layout (`examples/data_preprocess/gsm8k.py`,
  `math_dataset.py`): `data_source`, `prompt` (a list of `{role, content}`), `ability`,
  `reward_model: {style, ground_truth}`, `extra_info: {split, index, ...}`, plus the
  `response` to score. The last row has no `extra_info.index` (its id is its position).
- `hf/data/{train,test}-0000K-of-0000N.parquet`: a Hugging Face dataset folder (the
  Hub's layout) of cascade-layout math rows; `train` has three shards, the middle one
  empty. Between them the files use every codec cascade reads: snappy (pyarrow's
  default: `verl_math`, the empty shard), lz4 (`train-00000`), zstd (`train-00002`)
  and gzip (`test`).
"""

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
GSM8K = 'Let\'s think step by step and output the final answer after "####".'
MATH = "Let's think step by step and output the final answer within \\boxed{}."


def verl_row(source, messages, gold, index, response, **extra):
    info = {"split": "train", "index": index, **extra}
    return {
        "data_source": source,
        "prompt": [{"role": r, "content": c} for r, c in messages],
        "ability": "math",
        "reward_model": {"style": "rule", "ground_truth": gold},
        "extra_info": info,
        "response": response,
    }


VERL_MATH = [
    verl_row(
        "openai/gsm8k",
        [("user", "Tom has 3 apples and buys 4 more. How many apples has he? " + GSM8K)],
        "7",
        0,
        "3 + 4 = 7.\nSo the answer is \\boxed{7}.",
        question="Tom has 3 apples and buys 4 more. How many apples has he?",
        answer="3 + 4 = <<3+4=7>>7\n#### 7",
    ),
    verl_row(
        "DigitalLearningGmbH/MATH-lighteval",
        [("system", "You are a careful mathematician."),
         ("user", "What is $\\frac{2}{4}$ in lowest terms? " + MATH)],
        "\\frac{1}{2}",
        1,
        "<think>2/4 = 1/2</think>\nThe answer is \\boxed{0.5}.",
    ),
    verl_row(
        "DigitalLearningGmbH/MATH-lighteval",
        [("user", "Solve $x + 2 = 5$. " + MATH)],
        "3",
        2,
        "x = \\boxed{4}",
    ),
    verl_row(
        "math_dapo",
        [("user", "What is $2^{10}$? " + MATH)],
        "1024",
        None,
        "\\boxed{1024}",
    ),
]


def hf_row(i, problem, answer, response):
    return {"id": f"hf-{i}", "problem": problem, "answer": answer, "response": response}


HF_TRAIN = [
    [hf_row(0, "What is 1+1?", "2", "\\boxed{2}"),
     hf_row(1, "What is 2+2?", "4", "\\boxed{5}")],
    [],
    [hf_row(2, "What is 3+3?", "6", "\\boxed{6}"),
     hf_row(3, "Half of 1?", "\\frac{1}{2}", "\\boxed{0.5}")],
]
HF_TEST = [[hf_row(9, "What is 9+9?", "18", "\\boxed{18}")]]


def write(rows, path, schema=None, compression="snappy"):
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path, compression=compression)
    return table


def write_jsonl(rows, path):
    with open(path, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def main():
    table = write(VERL_MATH, HERE / "verl_math.parquet")
    # The twin is what the parquet file holds (pyarrow fills absent struct fields with
    # null), not the Python literals above.
    write_jsonl(table.to_pylist(), HERE / "verl_math.jsonl")

    schema = pa.Table.from_pylist(HF_TRAIN[0]).schema
    for split, shards in [("train", HF_TRAIN), ("test", HF_TEST)]:
        rows = []
        for k, shard in enumerate(shards):
            name = f"{split}-{k:05d}-of-{len(shards):05d}.parquet"
            codec = {("train", 0): "lz4", ("train", 2): "zstd", ("test", 0): "gzip"}.get(
                (split, k), "snappy"
            )
            rows += write(shard, HERE / "hf" / "data" / name, schema, codec).to_pylist()
        write_jsonl(rows, HERE / f"hf_{split}.jsonl")


if __name__ == "__main__":
    main()
