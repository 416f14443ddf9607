#!/usr/bin/env python3
"""Writes the labelled math benchmark corpus, deterministically.

Each line: {"id", "response", "answer", "label", "category"}. `label` is whether the
response's final answer equals the gold answer, fixed by construction: an equivalent
rewriting of the gold value (label true) or a perturbed value (label false). The
conventions are those documented in `verifiers/src/math/mod.rs` (exact values; a
decimal equals a value only when exactly equal, so `0.33` is not `1/3`; `25\\%` =
`25` = `0.25`).
Categories include the known Math-Verify false accepts and rejects, responses with no
answer, and long (up to 64 KB) responses.

    python3 scripts/compare/math_corpus.py > datasets/math/bench_corpus.jsonl
"""
import json
import random
import sys
from fractions import Fraction
from math import gcd

R = random.Random(20261130)

NOISE = [
    "First compute 3 + 4 = 7, then 7 \\times 2 = 14.",
    "We have $a = 5$ and $b = 12$, so $a + b = 17$.",
    "Trying $n = 10$ gives 100, which is too big.",
    "Note that 2, 3 and 5 are prime.",
    "Let $x$ be the unknown. Then $2x + 3 = 11$ would give $x = 4$, but that is a different case.",
    "By symmetry the two halves contribute equally.",
    "",
]


def noise(k=2):
    return " ".join(R.choice(NOISE) for _ in range(k)).strip()


def wrap(ans, plain_ok=False):
    """Renders an answer into a full response in one of the usual styles."""
    r = R.random()
    if r < 0.70:
        return f"{noise()}\n\nTherefore the answer is $\\boxed{{{ans}}}$."
    if r < 0.80:
        return f"{noise()}\nThe final answer is ${ans}$."
    if r < 0.90:
        return f"{noise()}\n\n**Answer:** ${ans}$"
    if r < 0.95 or not plain_ok:
        return f"{noise()}\nSo we get\n$$\n{ans}\n$$"
    return f"{noise()}\nThe answer is {ans}."


rows = []


def add(category, gold, answer, label, plain_ok=False, response=None):
    rows.append({
        "category": category,
        "answer": gold,
        "response": response if response is not None else wrap(answer, plain_ok),
        "label": label,
    })


def frac_tex(f):
    if f.denominator == 1:
        return str(f.numerator)
    sign = "-" if f < 0 else ""
    return f"{sign}\\frac{{{abs(f.numerator)}}}{{{f.denominator}}}"


def gen_integers(n):
    for _ in range(n):
        v = R.randint(-2000, 200000)
        good = R.choice([str(v), f"{v:,}" if abs(v) >= 1000 else str(v), f"{v}.0", f"\\text{{{v}}}", f"{v}\\,"])
        add("integer", str(v), good, True, plain_ok=True)
        bad = R.choice([v + 1, v - 1, v * 10, -v if v else 1, v + 100])
        add("integer", str(v), str(bad), False, plain_ok=True)


def gen_fractions(n):
    for _ in range(n):
        q = R.randint(2, 40)
        p = R.randint(-60, 60)
        if p == 0 or gcd(p, q) != 1:
            p = 1
        f = Fraction(p, q)
        k = R.randint(2, 9)
        forms = [frac_tex(f), f"{f.numerator * k}/{f.denominator * k}",
                 f"\\dfrac{{{f.numerator * k}}}{{{f.denominator * k}}}",
                 f"{f.numerator}/{f.denominator}"]
        if 1000 % f.denominator == 0 or 10000 % f.denominator == 0:
            forms.append(str(float(f)))
        if f > 1:
            whole = f.numerator // f.denominator
            rest = f - whole
            if rest:
                forms.append(f"{whole}\\frac{{{rest.numerator}}}{{{rest.denominator}}}")
        gold = frac_tex(f)
        add("fraction", gold, R.choice(forms), True)
        bad = R.choice([Fraction(f.denominator, f.numerator) if abs(f) != 1 else f + 1,
                        f + Fraction(1, f.denominator), -f, f * 2])
        add("fraction", gold, frac_tex(bad), False)


def gen_decimal_rounding(n):
    for _ in range(n):
        q = R.choice([3, 6, 7, 9, 11, 12, 13])
        p = R.randint(1, 3 * q)
        f = Fraction(p, q)
        if f.denominator in (1, 2, 4, 5):
            continue
        places = R.choice([2, 3, 4])
        rounded = round(f, places)  # Fraction rounds half-even; values here never tie
        good = f"{float(rounded):.{places}f}"
        # Rounded, so not equal: a decimal equals a value only when exactly equal
        # (issue 13; rounding is the verifier's opt-in `approx` setting).
        add("decimal_rounding", frac_tex(f), good, False, plain_ok=True)
        bad = f"{float(rounded + Fraction(1, 10 ** places)):.{places}f}"
        add("decimal_rounding", frac_tex(f), bad, False, plain_ok=True)


def gen_radicals(n):
    squarefree = [2, 3, 5, 6, 7, 10, 11, 13, 14, 15]
    for _ in range(n):
        a = R.randint(1, 12)
        b = R.choice(squarefree)
        gold = f"{a}\\sqrt{{{b}}}" if a > 1 else f"\\sqrt{{{b}}}"
        good = R.choice([f"\\sqrt{{{a * a * b}}}", f"\\sqrt{{{b}}}\\cdot {a}", f"{a}\\sqrt{b}" if b < 10 else f"{a}\\sqrt{{{b}}}"])
        add("radical", gold, good, True)
        bad = R.choice([f"\\sqrt{{{a * a * b + 1}}}", f"{a + 1}\\sqrt{{{b}}}", f"{a}\\sqrt{{{b + 1}}}", f"{a * b}"])
        add("radical", gold, bad, False)
        m = R.randint(2, 9)
        add("radical", f"\\frac{{\\sqrt{{{m}}}}}{{{m}}}", f"\\frac{{1}}{{\\sqrt{{{m}}}}}", m not in (4, 9) or True)
        add("radical", f"\\frac{{1}}{{\\sqrt{{{m}}}}}", f"\\frac{{\\sqrt{{{m + 1}}}}}{{{m + 1}}}", False)


def gen_pi(n):
    for _ in range(n):
        k = R.randint(1, 12)
        m = R.randint(2, 12)
        f = Fraction(k, m)
        if f.denominator == 1:
            gold = f"{f.numerator}\\pi"
        else:
            gold = f"\\frac{{{f.numerator}\\pi}}{{{f.denominator}}}"
        good = R.choice([f"\\frac{{{f.numerator}}}{{{f.denominator}}}\\pi", f"{f.numerator}\\pi/{f.denominator}",
                         f"\\frac{{{f.numerator * 2}\\pi}}{{{f.denominator * 2}}}"])
        add("pi", gold, good, True)
        bad = R.choice([f"\\frac{{{f.numerator + 1}\\pi}}{{{f.denominator}}}", f"\\frac{{{f.numerator}}}{{{f.denominator}}}",
                        f"\\frac{{{f.numerator}\\pi^2}}{{{f.denominator}}}"])
        add("pi", gold, bad, False)


def poly_tex(coeffs, var="x"):
    """coeffs highest degree first."""
    deg = len(coeffs) - 1
    parts = []
    for i, c in enumerate(coeffs):
        d = deg - i
        if c == 0:
            continue
        mono = "" if d == 0 else (var if d == 1 else f"{var}^{{{d}}}")
        coef = str(abs(c)) if (abs(c) != 1 or d == 0) else ""
        sign = "-" if c < 0 else "+"
        parts.append((sign, coef + mono))
    if not parts:
        return "0"
    s = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    for sign, t in parts[1:]:
        s += f" {sign} {t}"
    return s


def gen_polynomials(n):
    for _ in range(n):
        a = R.randint(-9, 9)
        b = R.randint(-9, 9)
        var = R.choice(["x", "t", "n"])
        expanded = poly_tex([1, a + b, a * b], var)
        factored = f"({var} {'+' if a >= 0 else '-'} {abs(a)})({var} {'+' if b >= 0 else '-'} {abs(b)})"
        if R.random() < 0.5:
            add("polynomial", expanded, factored, True)
        else:
            add("polynomial", factored, expanded, True)
        add("polynomial", expanded, poly_tex([1, a + b, a * b + R.choice([-2, -1, 1, 2])], var), False)


def gen_intervals(n):
    for _ in range(n):
        lo = R.randint(-10, 5)
        hi = lo + R.randint(1, 10)
        lc, hc = R.choice(["[(", "(["]), R.choice(["])", ")]"])
        lo_b = R.choice(["(", "["])
        hi_b = R.choice([")", "]"])
        gold = f"{lo_b}{lo}, {hi}{hi_b}"
        ops = {"(": "<", "[": "\\le"}
        ops_hi = {")": "<", "]": "\\le"}
        ineq = f"{lo} {ops[lo_b]} x {ops_hi[hi_b]} {hi}"
        add("interval", gold, R.choice([gold.replace(" ", ""), ineq]), True)
        flipped_lo = "[" if lo_b == "(" else "("
        add("interval", gold, R.choice([f"{flipped_lo}{lo}, {hi}{hi_b}", f"{lo_b}{lo}, {hi + 1}{hi_b}"]), False)
        c = R.randint(-5, 5)
        add("interval", f"(-\\infty, {c})", R.choice([f"x < {c}", f"(-\\infty,{c})"]), True)
        add("interval", f"(-\\infty, {c})", f"x \\le {c}", False)
        del lc, hc


def gen_sets_tuples(n):
    for _ in range(n):
        k = R.randint(2, 4)
        vals = R.sample(range(-20, 21), k)
        gold = ", ".join(map(str, vals))
        shuffled = vals[:]
        R.shuffle(shuffled)
        add("set", gold, R.choice([", ".join(map(str, shuffled)), "\\{" + ",".join(map(str, shuffled)) + "\\}"]), True)
        changed = vals[:]
        changed[R.randrange(k)] += R.choice([-1, 1])
        add("set", gold, ", ".join(map(str, changed)), False)
        x, y = R.randint(-9, 9), R.randint(-9, 9)
        while y == x:
            y = R.randint(-9, 9)
        add("tuple", f"({x}, {y})", f"\\left({x},{y}\\right)", True)
        add("tuple", f"({x}, {y})", f"({y}, {x})", False)


def gen_equations(n):
    for _ in range(n):
        v = R.randint(-50, 50)
        add("equation", str(v), f"x = {v}", True)
        add("equation", f"x = {v}", str(v), True, plain_ok=True)
        add("equation", str(v), f"x = {v + R.choice([-3, 1, 2])}", False)
        a, b, c = R.randint(1, 6), R.randint(-6, 6), R.randint(-9, 9)
        if b == 0:
            b = 1
        k = R.randint(2, 4)
        gold = f"{poly_tex([a], 'x').replace('1x', 'x')}x {'+' if b > 0 else '-'} {abs(b)}y = {c}"
        scaled = f"{a * k}x {'+' if b > 0 else '-'} {abs(b * k)}y = {c * k}"
        add("line", gold, scaled, True)
        add("line", gold, f"{a * k}x {'+' if b > 0 else '-'} {abs(b * k)}y = {c * k + 1}", False)


def gen_percent_units(n):
    for _ in range(n):
        p = R.randint(1, 99)
        add("percent", f"{p}\\%", R.choice([str(p), f"{p}\\%", frac_tex(Fraction(p, 100))]), True)
        add("percent", f"{p}\\%", R.choice([str(p + 1), f"{p / 1000}"]), False)
        u = R.choice(["cm", "meters", "inches", "dollars", "square units", "degrees"])
        v = R.randint(2, 500)
        add("units", str(v), f"{v}\\text{{ {u}}}", True)
        add("units", str(v), f"{v + 1}\\text{{ {u}}}", False)
        d = R.choice([30, 45, 60, 90, 120, 135])
        add("degrees", str(d), f"{d}^\\circ", True)
        add("degrees", f"{d}^\\circ", f"{d + 15}^\\circ", False)
        m = R.randint(1, 99)
        add("money", f"{m}.50", f"\\${m}.50", True)


def gen_choice_text(n):
    for _ in range(n):
        c = R.choice("ABCDE")
        other = R.choice([x for x in "ABCDE" if x != c])
        add("choice", c, R.choice([f"\\text{{({c})}}", f"({c})", c]), True)
        add("choice", c, f"\\text{{({other})}}", False)
        w = R.choice(["Tuesday", "even", "yes", "north", "odd"])
        add("text", f"\\text{{{w}}}", f"\\text{{{w}}}", True)


def gen_no_answer(n):
    for _ in range(n):
        v = R.randint(1, 100)
        add("no_answer", str(v), None, False,
            response=f"{noise(3)} I computed {v} earlier, but I am not sure how to finish.")
        add("no_answer", str(v), None, False, response=f"{noise(2)}\n\\boxed{{}}")


def gen_adversarial():
    """Known Math-Verify failures (REFERENCE.md section 2); each twice, boxed and phrased."""
    cases = [
        ("\\frac{1}{2004!}", "\\frac{1}{2006!}", False),
        ("1-\\frac{1}{e}", "1+\\frac{1}{e}", False),
        ("2021", "\\pm 2021", False),
        ("\\pm 2021", "2021", False),
        ("3x-y+13=0", "3x+4y+14=0", False),
        ("4", "4\\sqrt(2)", False),
        ("n=1,2,3", "n=2,3,4", False),
        ("12:00", "1:00", False),
        ("\\frac{1}{\\sqrt{n}}", "\\sqrt{1/n}", True),
        ("2x+4y-3=0", "y=-\\frac{x}{2}+\\frac{3}{4}", True),
        ("13", "\\text{13}", True),
        ("\\frac{1}{2006!}", "\\frac{1}{2006!}", True),
        ("1-\\frac{1}{e}", "\\frac{e-1}{e}", True),
    ]
    for _ in range(4):
        for gold, ans, label in cases:
            add("adversarial", gold, ans, label)
    for x, y in [(1, 2), (3, -4), (0, 5)]:
        for _ in range(4):
            add("adversarial", f"({x}, {y})", None, True, response=f"{noise()}\nThe final answer is ({x}, {y})")
    for _ in range(6):
        add("adversarial", "4", None, False, response="The side is 4\\sqrt(2).")


def gen_long(n):
    filler = "We expand the sum term by term and check each case carefully. " * 20
    for k in range(n):
        size = R.choice([4096, 16384, 65000])
        body = (filler * (size // len(filler) + 1))[: size - 200]
        v = R.randint(1, 999)
        add("long", str(v), None, k % 2 == 0,
            response=f"{body}\n\nTherefore the answer is $\\boxed{{{v if k % 2 == 0 else v + 1}}}$.")


gen_integers(220)
gen_fractions(200)
gen_decimal_rounding(80)
gen_radicals(80)
gen_pi(80)
gen_polynomials(100)
gen_intervals(50)
gen_sets_tuples(60)
gen_equations(50)
gen_percent_units(30)
gen_choice_text(30)
gen_no_answer(20)
gen_adversarial()
gen_long(20)

for i, row in enumerate(rows):
    line = {"id": f"bench-{i:05d}", "response": row["response"], "answer": row["answer"],
            "label": row["label"], "category": row["category"]}
    sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
print(f"{len(rows)} rows", file=sys.stderr)
