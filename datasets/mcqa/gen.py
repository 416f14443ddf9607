"""Writes datasets/mcqa/{train,eval,sample}.jsonl: multiple-choice STEM questions in
NeMo Gym's `mcqa` layout (`responses_create_params.input`, `options` as one-key
objects, `expected_answer`, `grading_mode`), written by the cascade team.

- train.jsonl (32 rows) / eval.jsonl (16 rows): easy questions for the tiny recipe,
  distractors shuffled with a fixed seed, the gold letter cycling A-D (so each
  letter is gold equally often), no responses. `solution` is the reference
  response an `sft` stage learns (the boxed letter).
- sample.jsonl: rows WITH responses, one per extraction rule and malformed row, scored
  into sample.expected.jsonl by `cascade score --env mcqa` and re-checked in CI.

    python3 datasets/mcqa/gen.py
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
LETTERS = "ABCDEFGHIJ"
INSTRUCTION = {
    "strict_single_letter_boxed": "Think step by step, then give the letter of the correct option, and nothing else, inside \\boxed{} (for example \\boxed{A}).",
    "lenient_boxed": "Think step by step, then put your final answer inside \\boxed{}: the letter of the correct option (for example \\boxed{A}) or its text.",
    "lenient_answer_colon": "Think step by step, then end your response with a line of the form \"Answer: X\", where X is the letter of the correct option.",
}
INSTRUCTION["lenient_answer_colon_md"] = INSTRUCTION["lenient_answer_colon"]

# (question, correct option, distractors)
BANK = [
    ("Which element has the chemical symbol O?", "Oxygen", ["Gold", "Osmium", "Iron"]),
    ("How many sides does a hexagon have?", "6", ["5", "7", "8"]),
    ("What is 7 times 8?", "56", ["54", "48", "64"]),
    ("Which gas do plants take in for photosynthesis?", "Carbon dioxide", ["Oxygen", "Nitrogen", "Helium"]),
    ("What is the boiling point of pure water at sea level, in degrees Celsius?", "100", ["90", "0", "212"]),
    ("Which planet is closest to the Sun?", "Mercury", ["Venus", "Earth", "Mars"]),
    ("What is the square root of 81?", "9", ["8", "7", "18"]),
    ("Which particle carries a negative electric charge?", "Electron", ["Proton", "Neutron", "Photon"]),
    ("What is the SI unit of force?", "Newton", ["Joule", "Watt", "Pascal"]),
    ("Which organ pumps blood through the human body?", "Heart", ["Liver", "Lung", "Kidney"]),
    ("What is 15% of 200?", "30", ["15", "20", "45"]),
    ("Which of these numbers is prime?", "13", ["15", "21", "27"]),
    ("What is the chemical formula of water?", "H2O", ["CO2", "NaCl", "O2"]),
    ("What do the interior angles of a triangle add up to, in degrees?", "180", ["90", "270", "360"]),
    ("Which force keeps the planets in orbit around the Sun?", "Gravity", ["Magnetism", "Friction", "Buoyancy"]),
    ("What is the derivative of x^2 with respect to x?", "2x", ["x", "x^2", "2"]),
    ("Which blood cells carry oxygen?", "Red blood cells", ["White blood cells", "Platelets", "Plasma cells"]),
    ("What is the pH of pure water at 25 degrees Celsius?", "7", ["0", "1", "14"]),
    ("An object travels 100 m in 20 s at constant speed. What is its speed?", "5 m/s", ["2 m/s", "20 m/s", "2000 m/s"]),
    ("Which molecule stores genetic information in most living things?", "DNA", ["ATP", "Glucose", "Cholesterol"]),
    ("What is 2 to the power 10?", "1024", ["512", "100", "2048"]),
    ("Which state of matter has a fixed volume but no fixed shape?", "Liquid", ["Solid", "Gas", "Plasma"]),
    ("What is the most abundant gas in Earth's atmosphere?", "Nitrogen", ["Oxygen", "Argon", "Carbon dioxide"]),
    ("How many bits are in one byte?", "8", ["4", "16", "10"]),
    ("What is the area of a rectangle 3 m wide and 4 m long?", "12 m^2", ["7 m^2", "14 m^2", "24 m^2"]),
    ("Which metal is liquid at room temperature?", "Mercury", ["Iron", "Copper", "Aluminium"]),
    ("What is pi rounded to two decimal places?", "3.14", ["3.41", "3.12", "3.16"]),
    ("Which part of a plant cell carries out photosynthesis?", "Chloroplast", ["Nucleus", "Vacuole", "Cell wall"]),
    ("What is the freezing point of water in kelvin, rounded to a whole number?", "273 K", ["0 K", "100 K", "373 K"]),
    ("Which simple machine is a ramp?", "Inclined plane", ["Lever", "Pulley", "Wheel and axle"]),
    ("What is 144 divided by 12?", "12", ["11", "14", "10"]),
    ("Which vitamin does human skin make in sunlight?", "Vitamin D", ["Vitamin C", "Vitamin A", "Vitamin K"]),
    ("Which subatomic particle has no electric charge?", "Neutron", ["Proton", "Electron", "Positron"]),
    ("What is the perimeter of a square with 5 cm sides?", "20 cm", ["10 cm", "25 cm", "15 cm"]),
    ("Which layer of the Earth is the outermost?", "Crust", ["Mantle", "Outer core", "Inner core"]),
    ("What is the chemical symbol for sodium?", "Na", ["So", "Sd", "N"]),
    ("What is 9 squared?", "81", ["18", "72", "99"]),
    ("What kind of energy does a car have because it is moving?", "Kinetic energy", ["Potential energy", "Chemical energy", "Nuclear energy"]),
    ("What do bees mainly collect from flowers to make honey?", "Nectar", ["Pollen", "Sap", "Dew"]),
    ("How many chromosomes does a typical human body cell have?", "46", ["23", "44", "48"]),
    ("What is the number 5 written in binary?", "101", ["110", "111", "100"]),
    ("Which gas do humans breathe out more of than they breathe in?", "Carbon dioxide", ["Oxygen", "Nitrogen", "Hydrogen"]),
    ("What is 0.5 plus 0.25?", "0.75", ["0.3", "0.525", "1.0"]),
    ("Which instrument measures air pressure?", "Barometer", ["Thermometer", "Hygrometer", "Anemometer"]),
    ("What is the smallest positive even number?", "2", ["0", "1", "4"]),
    ("Which organ filters blood to make urine?", "Kidney", ["Heart", "Stomach", "Spleen"]),
    ("Through which of these does light travel fastest?", "Vacuum", ["Water", "Glass", "Diamond"]),
    ("What is the next number in the sequence 2, 4, 8, 16?", "32", ["18", "24", "30"]),
]
TRAIN = 32


def prompt(question, options, mode):
    lines = "\n".join(f"{k}: {v}" for o in options for k, v in o.items())
    return f"{question}\n\n{lines}\n\n{INSTRUCTION[mode]}"


def gym_row(rid, question, texts, answer, mode="strict_single_letter_boxed", **extra):
    options = [{LETTERS[i]: t} for i, t in enumerate(texts)]
    row = {
        "id": rid,
        "responses_create_params": {"input": [{"role": "user", "content": prompt(question, options, mode)}]},
        "options": options,
        "expected_answer": answer,
        "grading_mode": mode,
    }
    row.update(extra)
    return row


def split_rows():
    rng = random.Random(16)
    rows = []
    for i, (question, correct, wrong) in enumerate(BANK):
        # The gold letter cycles A, B, C, D, so neither split rewards always one letter.
        texts = list(wrong)
        rng.shuffle(texts)
        texts.insert(i % (len(wrong) + 1), correct)
        answer = LETTERS[texts.index(correct)]
        row = gym_row(f"mcqa-{i:03d}", question, texts, answer)
        row["solution"] = f"\\boxed{{{answer}}}"
        rows.append(row)
    return rows[:TRAIN], rows[TRAIN:]


GAS = ("Which of these elements is a noble gas?", ["Sodium", "Neon", "Chlorine", "Iron"], "B")
CELL = ("Which organelle makes most of a eukaryotic cell's ATP?", ["Ribosome", "Golgi apparatus", "Mitochondrion", "Lysosome"], "C")
DNA = ("Which technique copies a chosen DNA segment millions of times?", ["Gel electrophoresis", "Polymerase chain reaction (PCR)", "Western blotting", "Mass spectrometry"], "B")
UNIT = ("Which SI unit measures electric charge?", ["Volt", "Ohm", "Watt", "Tesla", "Coulomb"], "E")
ROOT = ("Which operation undoes squaring a positive number?", ["Doubling", "Square", "Square root", "Halving"], "C")
ORBIT = ("Which planet has the shortest year?", ["Venus", "Earth", "Mars", "Mercury"], "D")

S, L, C = "strict_single_letter_boxed", "lenient_boxed", "lenient_answer_colon"
MD = "lenient_answer_colon_md"
# (what the row shows, question, mode, response)
CASES = [
    ("strict-plain", GAS, S, "Neon has a full outer shell, so \\boxed{B}"),
    ("strict-parenthesised", GAS, S, "The noble gas is neon: \\boxed{(B)}"),
    ("strict-text-wrapper", UNIT, S, "Charge is measured in coulombs.\n\n$\\boxed{\\text{E}}$"),
    ("strict-textbf-is-no-answer", DNA, S, "PCR amplifies DNA. \\boxed{\\textbf{(B)}}"),
    ("strict-wrong-letter", GAS, S, "Sodium is reactive... \\boxed{A}"),
    ("strict-letter-not-an-option", GAS, S, "\\boxed{E}"),
    ("strict-corrected-answer-wins", CELL, S, "Ribosomes make proteins, so \\boxed{A}. Wait, that is protein synthesis, not ATP. The mitochondrion makes ATP: \\boxed{C}"),
    ("strict-corrected-to-wrong", CELL, S, "\\boxed{C}. Hmm, actually I now think it is the Golgi apparatus: \\boxed{B}"),
    ("strict-think-draft-ignored", ORBIT, S, "<think>Venus is closest? Then \\boxed{A}. No, Mercury is closer.</think>Mercury orbits fastest. \\boxed{D}"),
    ("strict-think-right-final-wrong", ORBIT, S, "<think>Mercury, \\boxed{D}</think>\\boxed{B}"),
    ("strict-unclosed-think", ORBIT, S, "<think>Mercury is the closest planet, so \\boxed{D}"),
    ("strict-last-of-two-boxes", GAS, S, "It is either \\boxed{A} or \\boxed{B}"),
    ("strict-prose-letter-no-box", GAS, S, "B is the answer, since a noble gas has a full shell."),
    ("strict-lowercase-letter", GAS, S, "\\boxed{b}"),
    ("strict-option-text-not-a-letter", GAS, S, "\\boxed{Neon}"),
    ("strict-empty-response", GAS, S, ""),
    ("lenient-option-text", DNA, L, "The answer is \\boxed{polymerase chain reaction (PCR)}"),
    ("lenient-text-wrapper", CELL, L, "\\boxed{\\text{Mitochondrion}}"),
    ("lenient-labelled-letter", CELL, L, "\\boxed{C) Mitochondrion}"),
    ("lenient-label-contradicts-text", CELL, L, "\\boxed{A) Mitochondrion}"),
    ("lenient-text-contains-two-options", ROOT, L, "\\boxed{Square root}"),
    ("lenient-two-option-texts", ROOT, L, "\\boxed{Doubling or Halving}"),
    ("lenient-letter", ROOT, L, "\\boxed{C}"),
    ("colon-plain", CELL, C, "ATP comes from the mitochondrion.\nAnswer: C"),
    ("colon-markdown-is-no-answer", CELL, C, "**Answer: C**"),
    ("colon-parenthesised-is-no-answer", CELL, C, "Answer: (C)"),
    ("colon-first-answer-counts", ORBIT, C, "Answer: A\n\nOn second thought, Mercury is closer.\nFinal Answer: D"),
    ("colon-option-text", GAS, C, "Answer: neon"),
    ("colon-heading-is-no-answer", GAS, C, "**Answer:**\n\n**B**"),
    ("colon-boxed-is-no-answer", GAS, C, "Answer: $\\boxed{B}$"),
    ("colon-no-answer-line", GAS, C, "The answer is B."),
    ("colon-think-draft-ignored", GAS, C, "<think>Answer: A</think>Answer: B"),
]


def sample_rows():
    rows = []
    for i, (name, (question, texts, answer), mode, response) in enumerate(CASES):
        row = gym_row(f"mcqa-s{i:02d}-{name}", question, texts, answer, mode)
        row["response"] = response
        rows.append(row)
    q, texts, answer = GAS
    extra = []
    as_map = gym_row("options-as-a-map", q, texts, answer)
    as_map["options"] = {LETTERS[i]: t for i, t in enumerate(texts)}
    as_map["response"] = "\\boxed{B}"
    extra.append(as_map)
    null_option = gym_row("null-option-is-left-out", q, texts, answer)
    null_option["options"][3] = {"D": None}
    null_option["response"] = "\\boxed{D}"
    extra.append(null_option)
    extra.append({
        "id": "cascade-layout",
        "prompt": q,
        "options": {LETTERS[i]: t for i, t in enumerate(texts)},
        "answer": "B",
        "response": "\\boxed{B}",
    })
    templated = gym_row("template-regex-option-selected", q, texts, answer)
    templated["template_metadata"] = {
        "template_id": "cascade_option_selected",
        "output_regex": "Option Selected:\\s*([A-Za-z])\\s*",
    }
    templated["response"] = "Neon is inert.\nOption Selected: B"
    extra.append(templated)
    fallback = gym_row("template-regex-no-match-falls-back-to-mode", q, texts, answer)
    fallback["template_metadata"] = {"output_regex": ["Final Choice:\\s*([A-Za-z])"]}
    fallback["response"] = "\\boxed{B}"
    extra.append(fallback)
    lookaround = gym_row("template-regex-lookahead", q, texts, answer)
    lookaround["template_metadata"] = {"output_regex": "Answer\\s*:\\s*(?!Answer)\\s*([A-Za-z])"}
    lookaround["response"] = "Answer: B"
    extra.append(lookaround)
    invalid = gym_row("template-regex-invalid-falls-back-to-mode", q, texts, answer)
    invalid["template_metadata"] = {"output_regex": "Choice: ([A-Z"}
    invalid["response"] = "Choice: B, so \\boxed{B}"
    extra.append(invalid)
    for name, patch in [
        ("malformed-missing-expected-answer", {"expected_answer": None}),
        ("malformed-expected-not-an-option", {"expected_answer": "F"}),
        ("malformed-two-letter-key", {"options": [{"AB": "Sodium"}, {"C": "Neon"}]}),
        ("malformed-unknown-grading-mode", {"grading_mode": "lenient"}),
        ("malformed-options-a-string", {"options": "A: Sodium, B: Neon"}),
        ("malformed-duplicate-letter", {"options": [{"A": "Sodium"}, {"a": "Neon"}, {"B": "Iron"}]}),
    ]:
        row = gym_row(name, q, texts, answer)
        for k, v in patch.items():
            if v is None:
                del row[k]
            else:
                row[k] = v
        row["response"] = "\\boxed{B}"
        extra.append(row)
    # Gym 0.7.0's markdown-tolerant colon mode; after the rows above, so their ids keep
    # their numbers.
    for name, (question, texts, answer), response in [
        ("colon-md-markdown-bold", CELL, "**Answer: C**"),
        ("colon-md-last-answer-counts", ORBIT, "Answer: A\n\nOn second thought, Mercury is closer.\nFinal Answer: D"),
        ("colon-md-letter-list-is-no-answer", GAS, "**Answer:** A or B"),
        ("colon-md-letter-then-reason", GAS, "Answer: B because neon's shell is full"),
    ]:
        row = gym_row(name, question, texts, answer, MD)
        row["response"] = response
        extra.append(row)
    prefixed = gym_row("colon-md-answer-prefix", q, texts, answer, MD)
    prefixed["template_metadata"] = {"answer_prefix": "The correct option is"}
    prefixed["response"] = "Neon is inert. The correct option is B."
    extra.append(prefixed)
    for j, row in enumerate(extra, start=len(rows)):
        row["id"] = f"mcqa-s{j:02d}-{row['id']}"
    return rows + extra


def write(name, rows):
    with open(os.path.join(HERE, name), "w") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    train, evaluation = split_rows()
    write("train.jsonl", train)
    write("eval.jsonl", evaluation)
    write("sample.jsonl", sample_rows())
