"""Rows and responses for math_with_judge's symbolic part (used by gym_all.py).

Rows are in math_with_judge's published layout (`responses_create_params`, `question`,
`expected_answer`, golds plain, in `$…$` or in `\\(…\\)` as its data has them). Each
gold has equivalent forms a grader should accept and wrong ones it should refuse;
responses put them in a box, in no box, in an empty box, in two boxes, after a wrong
draft, or leave them blank.
"""

PROMPT = "Solve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{{}}.\n\n{q}"

# (question, gold, equivalent forms, wrong forms)
BANK = [
    ("What is 6 times 7?", "42", ["42", "42.0", "+42"], ["41", "24", "-42"]),
    ("What is 1 - 4?", "-3", ["-3", "-3.0", "- 3"], ["3", "-4", "1"]),
    ("Half of one?", "\\frac{1}{2}", ["\\frac{1}{2}", "1/2", "0.5", "\\dfrac{1}{2}", "\\frac{2}{4}"], ["\\frac{1}{3}", "2", "0.05"]),
    ("What is 333/1997 as a fraction?", "\\(\\frac{333}{1997}\\)", ["\\frac{333}{1997}", "333/1997"], ["\\frac{333}{1996}", "1997/333"]),
    ("Side of a square of area 2?", "\\(\\sqrt{2}\\)", ["\\sqrt{2}", "\\sqrt 2", "2^{1/2}"], ["2", "\\sqrt{3}", "\\frac{\\sqrt{2}}{2}"]),
    ("Diagonal of a square of side 2?", "$2\\sqrt{2}$", ["2\\sqrt{2}", "\\sqrt{8}", "2 \\sqrt 2"], ["\\sqrt{2}", "4", "2\\sqrt{3}"]),
    ("Area of a unit circle?", "\\pi", ["\\pi", "1\\pi"], ["2\\pi", "\\pi^2", "3.14"]),
    ("Roots of x^2 = 4?", "\\pm 2", ["\\pm 2", "\\pm2"], ["2", "4", "\\pm 4"]),
    ("Derivative of x^3?", "3x^2", ["3x^2", "3x^{2}", "3 x^2", "3*x^2"], ["x^2", "3x", "3x^3"]),
    ("Expand (x+1)^2.", "x^2+2x+1", ["x^2+2x+1", "x^{2} + 2x + 1", "1+2x+x^2"], ["x^2+1", "x^2+2x", "x^2+x+1"]),
    ("Solve 2x = 10.", "5", ["5", "x=5", "x = 5"], ["10", "2", "x=2"]),
    ("How many degrees in a right angle?", "90", ["90", "90^\\circ", "90^{\\circ}"], ["180", "45", "9"]),
    ("Interval of x with 0 < x <= 1?", "(0,1]", ["(0,1]", "(0, 1]"], ["[0,1]", "(0,1)", "[0,1)"]),
    ("What is 10^3?", "1000", ["1000", "10^3", "1,000", "1{,}000"], ["100", "10000", "30"]),
    ("What is 0.75 as a fraction?", "\\frac{3}{4}", ["\\frac{3}{4}", "3/4", "0.75", "\\frac34"], ["\\frac{4}{3}", "0.7", "\\frac{3}{5}"]),
    ("What is e^0?", "1", ["1", "e^0", "1.0"], ["0", "e", "-1"]),
    ("Solutions of (x-1)(x-2)=0?", "1, 2", ["1, 2", "1,2", "2, 1"], ["1", "2", "1, 3"]),
    ("What is 3/6 in lowest terms?", "$\\frac{1}{2}$", ["\\frac{1}{2}", "\\frac12", "0.5"], ["\\frac{3}{6}x", "3", "\\frac{1}{6}"]),
    ("What is 2^{10}?", "1024", ["1024", "2^{10}"], ["1000", "512", "2048"]),
    ("Simplify \\sqrt{12}.", "2\\sqrt{3}", ["2\\sqrt{3}", "\\sqrt{12}", "2 \\sqrt{3}"], ["3\\sqrt{2}", "4\\sqrt{3}", "\\sqrt{6}"]),
]

FORMS = [
    ("boxed", "The answer is \\boxed{{{a}}}."),
    ("boxed-dollars", "So $\\boxed{{{a}}}$."),
    ("boxed-after-work", "We compute step by step: first 1, then 2.\n\nTherefore the final answer is $\\boxed{{{a}}}$"),
    ("no-box-phrase", "The answer is {a}."),
    ("no-box-answer-colon", "Answer: {a}"),
    ("no-box-last-line", "Working it out.\n${a}$"),
    ("empty-box", "I am not sure: \\boxed{{}}"),
    ("blank-box", "\\boxed{{ }}"),
    ("box-unclosed", "The answer is \\boxed{{{a}"),
    ("two-boxes-last", "First \\boxed{{{w}}}, but correcting: \\boxed{{{a}}}"),
    ("two-boxes-first", "\\boxed{{{a}}} or maybe \\boxed{{{w}}}"),
    ("boxed-text", "\\boxed{{\\text{{{a}}}}}"),
    ("fbox", "\\fbox{{{a}}}"),
]


def corpus(n, rng):
    """(row, kind) pairs: about n rows."""
    out = []
    while len(out) < n:
        for question, gold, right, wrong in BANK:
            correct = rng.random() < 0.6
            answer = rng.choice(right if correct else wrong)
            other = rng.choice(wrong)
            name, form = rng.choice(FORMS)
            row = {"responses_create_params": {"input": [{"role": "user", "content": PROMPT.format(q=question)}]},
                   "question": question, "expected_answer": gold,
                   "response": form.format(a=answer, w=other)}
            out.append((row, f"{name}:{'right' if correct else 'wrong'}"))
        row = {"responses_create_params": {"input": [{"role": "user", "content": PROMPT.format(q="1+1?")}]},
               "question": "1+1?", "expected_answer": "2", "response": rng.choice(["", " ", "\n"])}
        out.append((row, "blank"))
    return out[:n]
