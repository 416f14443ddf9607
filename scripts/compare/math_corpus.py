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


# Issue 13: answer forms written the way MATH, OlympiadBench, Omni-MATH and AIME golds
# and model outputs write them. Each class has true and false cases; the rounding and
# truncation classes are the wrong rewards the verifier must not give.
ISSUE13 = {
    "rounded_decimal": [
        ("\\sin 30^\\circ", "0.5", True), ("\\frac{1}{3}", "33.33\\%", False),
        ("\\frac{5}{8}", "0.63", False), ("\\frac{5}{8}", "0.625", True),
        ("\\frac{1}{3}", "0.33", False), ("\\frac{1}{3}", "0.333", False),
        ("\\frac{1}{3}", "0.\\overline{3}", True), ("\\frac{2}{3}", "0.67", False),
        ("\\frac{2}{3}", "0.\\overline{6}", True), ("\\pi", "3.14", False),
        ("\\pi", "3.1416", False), ("\\pi", "3.14159265", False),
        ("\\sqrt{2}", "1.41421356", False), ("\\sqrt{2}", "1.414", False),
        ("1-\\frac{1}{e}", "0.632", False), ("1-e^{-1}", "0.6321", False),
        ("\\frac{7}{4}", "1.75", True), ("\\frac{3}{16}", "0.1875", True),
        ("\\frac{3}{16}", "0.19", False), ("0.45", "\\frac{5}{11}", False),
        ("0.45", "0.\\overline{45}", False), ("0.45", "\\frac{9}{20}", True),
        ("0.\\overline{45}", "\\frac{5}{11}", True), ("[0, 2\\pi)", "[0, 6.28)", False),
        ("[0, 2\\pi)", "[0, 2\\pi)", True), ("(\\frac{1}{3}, \\frac{2}{3})", "(0.33, 0.67)", False),
        ("(\\frac{1}{4}, \\frac{3}{4})", "(0.25, 0.75)", True),
        ("\\begin{pmatrix}\\frac{1}{3} & 1\\end{pmatrix}", "\\begin{pmatrix}0.333 & 1\\end{pmatrix}", False),
        ("\\begin{pmatrix}\\frac{1}{2} \\\\ \\frac{1}{4}\\end{pmatrix}", "\\begin{pmatrix}0.5 \\\\ 0.25\\end{pmatrix}", True),
        ("\\ln 2", "0.693", False), ("\\ln 2", "0.6931471805599453", False),
        ("\\sqrt{3}", "1.7320508075688772", False), ("\\frac{22}{7}", "\\pi", False),
        ("\\pi", "\\frac{22}{7}", False), ("\\frac{1}{7}", "0.142857", False),
        ("\\frac{1}{7}", "0.\\overline{142857}", True), ("\\frac{1}{6}", "0.1\\overline{6}", True),
        ("\\frac{1}{6}", "0.17", False), ("\\frac{1}{6}", "0.167", False), ("e", "2.718", False),
        ("e^2", "7.389", False), ("\\frac{\\sqrt{2}}{2}", "0.707", False),
        ("\\frac{\\sqrt{2}}{2}", "0.7071067811865476", False), ("\\frac{1}{8}", "12.5\\%", True),
        ("\\frac{2}{7}", "0.29", False), ("\\frac{9}{11}", "0.82", False),
        ("\\frac{9}{11}", "0.\\overline{81}", True), ("\\sin 1", "0.84", False),
        ("2\\sqrt{5}", "4.47", False), ("\\frac{17}{6}", "2.83", False),
        ("\\frac{17}{6}", "2.8\\overline{3}", True), ("5", "5.00", True),
        ("0.3", "\\frac{3}{10}", True), ("x = \\frac{1}{3}", "x \\approx 0.33", False),
        ("\\frac{1}{3}", "\\frac{1}{3} \\approx 0.33", True), ("\\frac{\\pi}{4}", "0.785", False),
        ("(2, \\sqrt{2})", "(2, 1.41)", False), ("\\{\\frac{1}{3}, 3\\}", "\\{0.33, 3\\}", False),
    ],
    "complex_polar": [
        ("\\cos\\frac{\\pi}{5}+i\\sin\\frac{\\pi}{5}", "e^{i\\pi/5}", True),
        ("\\cos\\frac{\\pi}{5}+i\\sin\\frac{\\pi}{5}", "e^{-i\\pi/5}", False),
        ("-1", "e^{i\\pi}", True), ("-1", "e^{\\pi i}", True), ("1", "e^{2\\pi i}", True),
        ("2i", "2e^{i\\pi/2}", True), ("-2i", "2e^{-i\\pi/2}", True),
        ("\\sqrt{3}+i", "2e^{i\\pi/6}", True),
        ("\\sqrt{3}+i", "2(\\cos\\frac{\\pi}{6} + i\\sin\\frac{\\pi}{6})", True),
        ("\\sqrt{3}+i", "2\\operatorname{cis}\\frac{\\pi}{6}", True),
        ("1+i", "\\sqrt{2}e^{i\\pi/4}", True),
        ("1+i", "\\sqrt{2}(\\cos 45^\\circ + i \\sin 45^\\circ)", True),
        ("-1+i\\sqrt{3}", "2e^{2\\pi i/3}", True), ("5", "|3+4i|", True),
        ("\\sqrt{2}", "|1+i|", True), ("13", "|5-12i|", True), ("\\sqrt{5}", "|2-i|", True),
        ("\\frac{\\sqrt{3}}{2}+\\frac{1}{2}i", "e^{i\\pi/6}", True),
        ("\\frac{1}{2}+\\frac{\\sqrt{3}}{2}i", "\\operatorname{cis}(60^\\circ)", True),
        ("2e^{i\\pi/3}", "1+\\sqrt{3}i", True), ("4e^{i\\pi}", "-4", True),
        ("-8", "(1+i\\sqrt{3})^3", True),
        ("1", "e^{i\\pi}", False), ("2i", "2e^{i\\pi}", False),
        ("\\sqrt{3}+i", "2e^{i\\pi/3}", False),
        ("\\sqrt{3}+i", "2(\\cos\\frac{\\pi}{3} + i\\sin\\frac{\\pi}{3})", False),
        ("1+i", "e^{i\\pi/4}", False), ("5", "|3-5i|", False), ("7", "|3+4i|", False),
        ("25", "|3+4i|", False), ("-i", "e^{i\\pi/2}", False), ("i", "e^{-i\\pi/2}", False),
        ("1-i", "\\sqrt{2}e^{i\\pi/4}", False), ("2", "|1+i|", False),
        ("-1", "e^{i\\pi/2}", False), ("2e^{i\\pi/3}", "1-\\sqrt{3}i", False),
        ("\\sqrt{3}+i", "2\\operatorname{cis}\\frac{\\pi}{3}", False),
    ],
    "degrees_trig": [
        ("\\frac12", "\\sin(30 \\text{ degrees})", True), ("30^\\circ", "30 degrees", True),
        ("\\frac12", "\\sin(60 \\text{ degrees})", False),
        ("\\frac{1}{2}", "\\sin 30^\\circ", True), ("\\frac12", "\\cos 60^\\circ", True),
        ("1", "\\tan(45°)", True), ("1", "\\tan 45^{\\circ}", True),
        ("\\frac{\\sqrt{3}}{2}", "\\sin 60^\\circ", True), ("\\frac{\\sqrt{2}}{2}", "\\cos 45°", True),
        ("\\sqrt{3}", "\\tan 60^\\circ", True), ("-1", "\\cos 180^\\circ", True),
        ("0", "\\sin 180^\\circ", True), ("2", "\\sec 60^\\circ", True), ("2", "\\csc 30^\\circ", True),
        ("\\frac{\\sqrt{3}}{3}", "\\cot 60^\\circ", True),
        ("\\frac{\\sqrt{6}-\\sqrt{2}}{4}", "\\sin 15^\\circ", True),
        ("\\frac{1}{2}", "\\sin(150^\\circ)", True), ("-\\frac{1}{2}", "\\cos 120^\\circ", True),
        ("\\frac{3}{4}", "\\sin^2 60^\\circ", True), ("\\sin 30^\\circ", "\\frac{1}{2}", True),
        ("\\cos 36^\\circ", "\\frac{1+\\sqrt{5}}{4}", True),
        ("\\frac{\\sqrt{3}}{2}", "\\sin(30^\\circ + 30^\\circ)", True),
        ("\\frac12", "\\sin 30", False), ("\\frac{1}{2}", "\\sin 60^\\circ", False),
        ("1", "\\tan 30^\\circ", False), ("0", "\\cos 0^\\circ", False),
        ("\\frac{\\sqrt{3}}{2}", "\\cos 60^\\circ", False), ("-1", "\\cos 90^\\circ", False),
        ("\\frac{\\sqrt{2}}{2}", "\\sin 30^\\circ", False), ("2", "\\sec 30^\\circ", False),
        ("\\sqrt{3}", "\\tan 30^\\circ", False), ("\\frac{1}{2}", "\\cos 30°", False),
        ("1", "\\tan 45", False), ("\\frac{1}{2}", "\\sin(30^\\circ + 30^\\circ)", False),
        ("\\cos 36^\\circ", "\\frac{1-\\sqrt{5}}{4}", False),
    ],
    "unicode": [
        ("\\pi", "π", True), ("\\frac{\\pi}{2}", "π/2", True), ("2\\pi", "2π", True),
        ("\\sqrt{2}", "√2", True), ("2\\sqrt{3}", "2√3", True), ("\\frac{\\sqrt{3}}{2}", "√3/2", True),
        ("-5", "−5", True), ("x-1", "x − 1", True), ("12", "3 × 4", True), ("12", "3·4", True),
        ("x \\le 3", "x ≤ 3", True), ("x \\ge -1", "x ≥ −1", True), ("[2, \\infty)", "[2, ∞)", True),
        ("(-\\infty, 1) \\cup (2, \\infty)", "(−∞, 1) ∪ (2, ∞)", True), ("\\frac{1}{2}", "½", True),
        ("\\frac{7}{2}", "3½", True), ("\\frac{3}{4}", "¾", True), ("x^2+1", "x²+1", True),
        ("x^3", "x³", True), ("2^{10}", "2¹⁰", True), ("10^{-3}", "10⁻³", True),
        ("\\sqrt[3]{2}", "∛2", True), ("\\theta", "θ", True), ("x \\ne 2", "x ≠ 2", True),
        ("\\pm 3", "±3", True), ("a^2+b^2", "a² + b²", True), ("\\frac{\\pi}{3}", "π/3", True),
        ("π/4", "\\frac{\\pi}{4}", True), ("√5", "\\sqrt{5}", True), ("½", "0.5", True),
        ("x ≥ 2", "[2, \\infty)", True),
        ("\\pi", "π/2", False), ("2\\sqrt{3}", "3√2", False), ("-5", "5", False),
        ("x \\le 3", "x ≥ 3", False), ("\\frac{1}{2}", "¼", False), ("x^2+1", "x³+1", False),
        ("2^{10}", "2¹¹", False), ("\\frac{7}{2}", "3¼", False), ("(-\\infty, 1)", "(−∞, 1]", False),
        ("10^{-3}", "10³", False), ("\\sqrt{2}", "√3", False), ("12", "3 × 5", False),
        ("π/4", "\\frac{\\pi}{2}", False), ("x − 1", "x+1", False),
    ],
    "plain_units": [
        ("5", "5 cm", True), ("12", "12 ft", True), ("7", "7 km", True), ("3", "3 hrs", True),
        ("10", "10 mph", True), ("8", "8 sq ft", True), ("8\\text{ ft}^2", "8 sq ft", True),
        ("8 \\text{ square feet}", "8 ft²", True), ("3 \\text{ hours}", "3 h", True),
        ("3\\text{ hours}", "3 hrs", True), ("45", "45 min", True), ("60", "60 km/h", True),
        ("2.5", "2.5 kg", True), ("16", "16 in", True), ("25\\pi", "25\\pi cm^2", True),
        ("4\\sqrt{2}", "4\\sqrt{2} cm", True), ("1500", "1500 m", True), ("12", "12 yd", True),
        ("6", "6 mi", True), ("20", "20 lbs", True), ("9", "9 sq units", True),
        ("72", "72 in^2", True), ("30", "30 sec", True), ("2", "2 days", True),
        ("14", "14 cm.", True), ("3.5", "3.5 hrs", True), ("7 \\text{ km}", "7 kilometers", True),
        ("40\\text{ mph}", "40 mph", True), ("\\frac{1}{2}", "\\frac{1}{2} hr", True),
        ("5", "6 cm", False), ("12", "12.5 ft", False), ("8\\text{ ft}^2", "8 ft", False),
        ("8\\text{ ft}^2", "8 sq m", False), ("3\\text{ hours}", "3 min", False),
        ("7 \\text{ km}", "7 m", False), ("10", "100 mph", False), ("5\\text{ cm}", "5 mm", False),
        ("60", "50 km/h", False), ("16 \\text{ inches}", "16 ft", False), ("20", "2 lbs", False),
        ("\\pi r^2 h", "\\pi r^2", False), ("2 \\text{ days}", "2 hrs", False),
        ("4\\sqrt{2}", "4\\sqrt{3} cm", False), ("72", "72 ft^2", True), ("72 \\text{ in}^2", "72 sq ft", False),
    ],
    "set_difference": [
        ("(-\\infty,0)\\cup(0,\\infty)", "\\mathbb{R} - \\{0\\}", True),
        ("(-\\infty,0)\\cup(0,\\infty)", "\\mathbb{R} - \\{1\\}", False),
        ("(-\\infty,0)\\cup(0,\\infty)", "\\mathbb{R}\\setminus\\{0\\}", True),
        ("\\mathbb{R}\\setminus\\{0\\}", "(-\\infty,0)\\cup(0,\\infty)", True),
        ("(-\\infty,-2)\\cup(2,\\infty)", "\\mathbb{R}\\setminus[-2,2]", True),
        ("\\mathbb{R}\\setminus[-2,2]", "(-\\infty,-2)\\cup(2,\\infty)", True),
        ("(-\\infty,-2]\\cup[2,\\infty)", "\\mathbb{R}\\setminus(-2,2)", True),
        ("(-\\infty,1)\\cup(1,\\infty)", "\\mathbb{R} \\setminus \\{1\\}", True),
        ("(-\\infty,-1)\\cup(-1,1)\\cup(1,\\infty)", "\\mathbb{R}\\setminus\\{-1,1\\}", True),
        ("(-\\infty,-1)\\cup(-1,1)\\cup(1,\\infty)", "\\mathbb{R}\\setminus\\{1,-1\\}", True),
        ("[0,1)\\cup(1,5]", "[0,5]\\setminus\\{1\\}", True),
        ("(-\\infty, 3)\\cup(3,\\infty)", "\\mathbb{R} \\backslash \\{3\\}", True),
        ("(0,2)\\cup(2,\\infty)", "(0,\\infty)\\setminus\\{2\\}", True),
        ("(-\\infty,\\frac{1}{2})\\cup(\\frac{1}{2},\\infty)", "\\mathbb{R}\\setminus\\{\\frac{1}{2}\\}", True),
        ("(-\\infty,-\\sqrt{2})\\cup(\\sqrt{2},\\infty)", "\\mathbb{R}\\setminus[-\\sqrt{2},\\sqrt{2}]", True),
        ("(-\\infty, 0) \\cup (0, \\infty)", "ℝ∖\\{0\\}", True),
        ("(-\\infty,-3)\\cup(-3,\\infty)", "\\mathbb{R}\\setminus\\{-3\\}", True),
        ("(-\\infty,2]\\cup[5,\\infty)", "\\mathbb{R}\\setminus(2,5)", True),
        ("[1,2)\\cup(2,3]", "[1,3]\\setminus\\{2\\}", True),
        ("(-\\infty,0)\\cup(0,\\infty)", "x \\neq 0", True),
        ("\\mathbb{R}\\setminus\\{0\\}", "x \\ne 0", True),
        ("(-\\infty,0)\\cup(0,\\infty)", "\\mathbb{R}\\setminus\\{1\\}", False),
        ("(-\\infty,-2)\\cup(2,\\infty)", "\\mathbb{R}\\setminus(-2,2)", False),
        ("(-\\infty,-2]\\cup[2,\\infty)", "\\mathbb{R}\\setminus[-2,2]", False),
        ("(-\\infty,1)\\cup(1,\\infty)", "\\mathbb{R}", False),
        ("(-\\infty,-1)\\cup(-1,1)\\cup(1,\\infty)", "\\mathbb{R}\\setminus\\{1\\}", False),
        ("\\mathbb{R}\\setminus\\{0\\}", "(0,\\infty)", False),
        ("\\mathbb{R}\\setminus\\{0\\}", "(-\\infty,0]\\cup[0,\\infty)", False),
        ("[0,1)\\cup(1,5]", "[0,5]\\setminus\\{2\\}", False),
        ("(-\\infty,3)\\cup(3,\\infty)", "\\mathbb{R}\\setminus\\{-3\\}", False),
        ("(0,2)\\cup(2,\\infty)", "[0,\\infty)\\setminus\\{2\\}", False),
        ("(-\\infty,2]\\cup[5,\\infty)", "\\mathbb{R}\\setminus[2,5]", False),
        ("\\mathbb{R}\\setminus\\{0\\}", "\\mathbb{R}", False),
        ("(-\\infty,0)\\cup(0,\\infty)", "x \\ne 1", False),
    ],
    "inequality_join": [
        ("(-\\infty,-2]\\cup[3,\\infty)", "x \\le -2 \\lor x \\ge 3", True),
        ("(-\\infty,-2]\\cup[3,\\infty)", "x \\le -2 \\lor x \\ge 2", False),
        ("(-\\infty,-2]\\cup[3,\\infty)", "x \\le -2 \\text{ or } x \\ge 3", True),
        ("x \\le -2 \\text{ or } x \\ge 3", "(-\\infty,-2]\\cup[3,\\infty)", True),
        ("(-\\infty,-2]\\cup[3,\\infty)", "x \\le -2, x \\ge 3", True),
        ("(-\\infty,-2]\\cup[3,\\infty)", "x \\geq 3 \\text{ or } x \\leq -2", True),
        ("(-\\infty,1)\\cup(4,\\infty)", "x<1 \\text{ or } x>4", True),
        ("x<1 \\text{ or } x>4", "(4,\\infty)\\cup(-\\infty,1)", True),
        ("(-2,3)", "x > -2 \\text{ and } x < 3", True),
        ("[-1,5]", "x \\ge -1 \\text{ and } x \\le 5", True),
        ("x \\ge -1 \\text{ and } x \\le 5", "[-1,5]", True),
        ("(-\\infty,0)\\cup(2,\\infty)", "x < 0 or x > 2", True),
        ("(-\\infty,0)\\cup(2,\\infty)", "x<0\\quad\\text{or}\\quad x>2", True),
        ("(-\\infty,-\\sqrt{2})\\cup(\\sqrt{2},\\infty)", "x < -\\sqrt{2} \\text{ or } x > \\sqrt{2}", True),
        ("(-\\infty,\\frac{1}{2}]\\cup[2,\\infty)", "x\\le\\frac12 \\text{ or } x\\ge 2", True),
        ("t \\le -1 \\text{ or } t \\ge 1", "(-\\infty,-1]\\cup[1,\\infty)", True),
        ("(-\\infty,-3)\\cup(-1,\\infty)", "x < -3, \\; x > -1", True),
        ("x \\le -2 \\text{ or } x \\ge 3", "x \\ge 3 \\text{ or } x \\le -2", True),
        ("x<1 \\text{ or } x>4", "x<1, x>4", True),
        ("(-\\infty,-2]\\cup[3,\\infty)", "x < -2 \\text{ or } x \\ge 3", False),
        ("(-\\infty,-2]\\cup[3,\\infty)", "x \\le -3 \\text{ or } x \\ge 2", False),
        ("(-\\infty,-2]\\cup[3,\\infty)", "-2 \\le x \\le 3", False),
        ("(-2,3)", "x < -2 \\text{ or } x > 3", False),
        ("[-1,5]", "x \\ge -1 \\text{ and } x < 5", False),
        ("x<1 \\text{ or } x>4", "(1,4)", False),
        ("x<1 \\text{ or } x>4", "(-\\infty,1]\\cup[4,\\infty)", False),
        ("(-\\infty,0)\\cup(2,\\infty)", "x < 0", False),
        ("(-\\infty,0)\\cup(2,\\infty)", "x < 0 \\text{ or } y > 2", False),
        ("(-\\infty,1)\\cup(4,\\infty)", "x < 1, x > 5", False),
        ("(-\\infty,-\\sqrt{2})\\cup(\\sqrt{2},\\infty)", "x < -2 \\text{ or } x > 2", False),
        ("(-2,3)", "x > -2", False),
        ("t \\le -1 \\text{ or } t \\ge 1", "[-1,1]", False),
        ("(-\\infty,-3)\\cup(-1,\\infty)", "x < -1 \\text{ or } x > -3", False),
        ("x \\le -2 \\text{ or } x \\ge 3", "x \\le -2 \\text{ or } x \\ge 4", False),
    ],
    "choice_value": [
        ("\\textbf{(C) } 12", "12", True), ("\\textbf{(C) } 12", "C", True),
        ("\\textbf{(C) } 12", "13", False), ("\\textbf{(C) } 12", "(D) 12", False),
        ("C", "\\textbf{(C) } 12", True), ("C", "\\textbf{(C)} 12", True),
        ("C", "\\text{(C) } 12", True), ("B", "(B) 42", True),
        ("B", "\\textbf{(B) }\\frac{1}{2}", True), ("D", "\\mathrm{(D)}\\ 7", True),
        ("A", "\\textbf{(A)}", True), ("E", "\\textbf{(E) } 2\\sqrt{3}", True), ("C", "(C)", True),
        ("\\text{(C)}", "\\textbf{(C) } 12", True), ("(D)", "\\textbf{(D) } 100", True),
        ("B", "**(B)** 5", True), ("A", "A) 3", True), ("D", "D. 17", True),
        ("\\textbf{(C)}", "C", True), ("E", "\\textbf{(E)}\\ \\text{none of these}", True),
        ("C", "\\textbf{(D) } 12", False), ("C", "\\textbf{(B)} 12", False), ("B", "(C) 42", False),
        ("D", "\\mathrm{(E)}\\ 7", False), ("A", "\\textbf{(B)}", False),
        ("E", "\\textbf{(A) } 2\\sqrt{3}", False), ("C", "(D)", False),
        ("\\text{(C)}", "\\textbf{(A) } 12", False), ("(D)", "\\textbf{(C) } 100", False),
        ("B", "**(A)** 5", False), ("A", "B) 3", False), ("D", "C. 17", False), ("C", "12", False),
        ("C", "\\textbf{12}", False), ("E", "\\textbf{(D)}\\ \\text{none of these}", False),
    ],
    "set_repeats": [
        ("\\{-2,3\\}", "\\{-2,3,3\\}", True), ("\\{-2,3,3\\}", "\\{3,-2\\}", True),
        ("\\{1,2\\}", "\\{1,1,2\\}", True), ("\\{0\\}", "\\{0,0\\}", True),
        ("\\{1,-1\\}", "\\{1,-1,1\\}", True), ("\\{\\frac12, 2\\}", "\\{0.5, \\frac{1}{2}, 2\\}", True),
        ("\\{2,4,6\\}", "\\{6,4,2,4\\}", True),
        ("\\{\\sqrt{2},-\\sqrt{2}\\}", "\\{\\sqrt2, -\\sqrt2, \\sqrt{2}\\}", True),
        ("\\{(1,2),(3,4)\\}", "\\{(1,2),(3,4),(1,2)\\}", True), ("\\{-2, 3\\}", "\\{3, -2, 3\\}", True),
        ("\\{1,2,3\\}", "\\{1,2,2,3,3\\}", True), ("\\{5\\}", "\\{5,5,5\\}", True),
        ("\\{1, 4\\}", "\\{4, 1, 4\\}", True), ("\\{a, b\\}", "\\{b, a, a\\}", True),
        ("\\{\\frac{1}{2}, -1\\}", "\\{-1, \\frac{2}{4}, \\frac{1}{2}\\}", True),
        ("-2, 3", "-2, 3, 3", False), ("1, 2", "1, 1, 2", False), ("\\{-2,3\\}", "\\{-2,3,4\\}", False),
        ("\\{-2,3\\}", "\\{-2,-2\\}", False), ("\\{1,2\\}", "\\{1,1\\}", False),
        ("\\{0\\}", "\\{0,1\\}", False), ("\\{2,4,6\\}", "\\{2,4,4\\}", False),
        ("-2, 3, 3", "-2, 3", False), ("3, 3", "3", False), ("\\{1, 2\\}", "1, 2, 2", False),
        ("\\{1,-1\\}", "\\{1,1\\}", False), ("\\{\\frac12, 2\\}", "\\{0.5, 0.5\\}", False),
        ("\\{(1,2),(3,4)\\}", "\\{(1,2),(1,2)\\}", False), ("\\{1,2,3\\}", "\\{1,2,2\\}", False),
        ("\\{5\\}", "\\{5, -5\\}", False), ("\\{a, b\\}", "\\{a, a\\}", False),
    ],
    "big_integer": [
        ("2^{10000}+1", "4^{5000}+1", True), ("2^{10000}+1", "4^{5000}-1", False),
        ("2^{10000}", "4^{5000}", True), ("4^{5000}", "2^{10000}", True),
        ("2^{10000}", str(2 ** 10000), True), (str(2 ** 10000), "2^{10000}", True),
        ("2^{2^{100}}", "4^{2^{99}}", True), ("4^{2^{99}}", "2^{2^{100}}", True),
        ("3^{6000}", "9^{3000}", True), ("3^{6000}", "27^{2000}", True),
        ("10^{3000}", "2^{3000}\\cdot 5^{3000}", True), ("6^{2000}", "2^{2000}3^{2000}", True),
        ("2^{-5000}", "\\frac{1}{2^{5000}}", True), ("\\frac{1}{4^{2500}}", "2^{-5000}", True),
        ("8^{1000}", "2^{3000}", True), ("2^{4096}", "16^{1024}", True), ("7^{2000}", "49^{1000}", True),
        (str(3 ** 2000), "3^{2000}", True), ("5^{2^{50}}", "25^{2^{49}}", True),
        ("2^{2^{2^{5}}}", "2^{2^{32}}", True), ("-2^{3001}", "-2\\cdot 4^{1500}", True),
        ("10^{1000}", "1" + "0" * 1000, True),
        ("2^{10000}", "4^{5001}", False), ("2^{10000}", "2^{10001}", False),
        ("2^{10000}", str(2 ** 10000 + 1), False), ("2^{10000}", str(2 ** 10000 - 2), False),
        ("2^{2^{100}}", "4^{2^{100}}", False), ("2^{2^{100}}", "2^{2^{99}}", False),
        ("3^{6000}", "9^{3001}", False), ("3^{6000}", "2^{6000}", False),
        ("10^{3000}", "2^{3000}\\cdot 5^{2999}", False), ("2^{-5000}", "2^{5000}", False),
        ("8^{1000}", "2^{1000}", False), ("7^{2000}", "49^{2000}", False),
        (str(3 ** 2000), "3^{2001}", False), ("-2^{3001}", "2^{3001}", False),
        ("5^{2^{50}}", "5^{2^{51}}", False), ("10^{1000}", "1" + "0" * 999, False),
    ],
}

# Responses cut off mid-sentence (max_tokens), with reasoning steps on the last line:
# no final answer. Controls: complete responses that end by stating the answer.
TRUNCATED = [
    ("Let's add the parts. First, $3+4=7$. Then we need to account for the constraint, so", "7", False),
    ("We have $x = 5$ from the first equation. Substituting into the second gives", "5", False),
    ("The area is $\\frac{1}{2} \\cdot 6 \\cdot 4 = 12$, and the perimeter", "12", False),
    ("So far the count is 12, but we must still subtract the cases where", "12", False),
    ("Squaring both sides, $x^2 = 49$, so $x = 7$ or", "7", False),
    ("Then $2^{10} = 1024$ and dividing by", "1024", False),
    ("Therefore the number of ways is $\\binom{6}{2} = 15$ times the number of", "15", False),
    ("Step 1: set up the equation.\nStep 2: we compute $5 \\times 6 = 30$\nStep 3: now we", "30", False),
    ("We expand and collect like terms.\n$$3 + 4 = 7$$", "7", False),
    ("Let me compute the total.\n$12 \\cdot 7 = 84$", "84", False),
    ("So $x = 2 + 3 = 5$, and now", "5", False),
    ("Hence $a + b = 9$ and we still need", "9", False),
    ("Solving the quadratic, we get $n = 4$. Next, consider the case", "4", False),
    ("The first few terms are 1, 1, 2, 3, 5, 8, and the next", "13", False),
    ("Using the formula $A = \\pi r^2 = 25\\pi$ we find that the", "25\\pi", False),
    ("Plugging in, $f(2) = 11$, $f(3) = 18$, so", "18", False),
    ("**Step 3.** Multiply: $12 \\cdot 7 = 84$", "84", False),
    ("The remainder when dividing by 7 is 3, which means", "3", False),
    ("We conclude $k = 6$ works, but we should also check whether", "6", False),
    ("Counting gives 20 arrangements so far; the remaining ones are", "20", False),
    ("By Vieta, $r_1 + r_2 = 5$ and $r_1 r_2 = 6$. Therefore the roots are", "2, 3", False),
    ("The probability of one head is $\\frac{1}{2}$, so for three heads we multiply", "\\frac{1}{8}", False),
    ("We know that $\\sin^2\\theta + \\cos^2\\theta = 1$, hence $\\cos\\theta = \\frac{3}{5}$ and", "\\frac{3}{5}", False),
    ("Thus there are 12 ways to choose the first pair, and for each of them", "12", False),
    ("Subtracting, $100 - 37 = 63$", "63", False),
    ("The sum telescopes: $\\sum_{k=1}^{n} \\frac{1}{k(k+1)} = 1 - \\frac{1}{n+1}$, so for $n = 9$ it is", "\\frac{9}{10}", False),
    ("Adding the equations:\n$$2x = 10$$\nso x is", "5", False),
    ("Let $s$ be the side. Then $s^2 = 50$ gives $s = 5\\sqrt{2}$. The diagonal", "10", False),
    ("First compute 3 + 4 = 7, then 7 \\times 2 = 14. So the final count is", "14", False),
    ("Since $7 \\times 8 = 56$, we have", "56", False),
    ("We compute $3 + 4 = 7$. So the answer is $7$.", "7", True),
    ("After simplifying we are left with\n\n$7$", "7", True),
    ("Thus, the total is 12.", "12", True),
    ("Solving, we find $x = 5$.\nTherefore $x = 5$.", "5", True),
    ("Counting each case separately and adding gives the total.\nHence the answer is $\\boxed{15}$", "15", True),
    ("Each outcome is equally likely.\nTherefore, the probability is $\\frac{1}{4}$.", "\\frac{1}{4}", True),
    ("Multiplying out gives 84.\nFinal answer: 84", "84", True),
    ("The circle has radius 5.\n**Answer:** $25\\pi$", "25\\pi", True),
    ("We get $x^2 = 49$ and $x > 0$, so\n$$x = 7$$", "7", True),
    ("The roots are found by factoring.\n$x = 2, 3$", "2, 3", True),
    ("The rectangle is 5 by 7.\nThe perimeter is $24$ cm.", "24", True),
    ("The rectangle is 5 by 7, so the perimeter is $24$ cm and the", "24", False),
]


def gen_issue13():
    for category, cases in ISSUE13.items():
        for gold, ans, label in cases:
            add(category, gold, ans, label)
    for response, gold, label in TRUNCATED:
        add("truncated", gold, None, label, response=response)
    joined = "(-\\infty,-2]\\cup[3,\\infty)"
    add("inequality_join", joined, None, True,
        response="Testing each region.\nThe solution set is $x \\le -2$ or $x \\ge 3$.")
    add("inequality_join", joined, None, False,
        response="Testing each region.\nThe solution set is $x \\le -2$ or $x \\ge 4$.")


# Issue 36: reasoning-model outputs. Written from the classes' descriptions: where the
# final answer is (after the last </think>; a cut-off thinking block has none), hedges,
# cut-off boxes, end-of-turn tokens, and the answer forms reasoning models write.
THINK = "<think>\nLet me work through this. {draft}\nWait, let me double-check that step.\n</think>\n\n"
EOS = "<\uff5cend\u2581of\u2581sentence\uff5c>"


def think(draft, final):
    return THINK.format(draft=draft) + final


ISSUE36_RESPONSES = {
    # A candidate inside closed thinking never beats the final answer.
    "think_final": [
        (think("So it is $\\boxed{8}$.", "Answer: 6"), "6", True),
        (think("So it is $\\boxed{8}$.", "Answer: 6"), "8", False),
        (think("Then $x = \\boxed{12}$ maybe.", "#### 15"), "15", True),
        (think("Then $x = \\boxed{12}$ maybe.", "#### 15"), "12", False),
        (think("I get \\boxed{40} hours.", "The answer is $45$ hours."), "45", True),
        (think("I get \\boxed{40} hours.", "The answer is $45$ hours."), "40", False),
        (think("So the answer is 40.", "The total is\n\\[ 42 \\]"), "42", True),
        (think("So the answer is 40.", "The total is\n\\[ 42 \\]"), "40", False),
        (think("Maybe \\boxed{7}.", "Therefore, there are 9 ways."), "9", True),
        (think("Maybe \\boxed{7}.", "Therefore, there are 9 ways."), "7", False),
        (think("Maybe 3/4.", "So the probability is $\\boxed{\\frac{3}{5}}$."), "\\frac{3}{5}", True),
        (think("Maybe 3/4.", "So the probability is $\\boxed{\\frac{3}{5}}$."), "\\frac{3}{4}", False),
        (think("The roots are 1 and 2.", "**Final Answer**\n\\[\\boxed{1, 3}\\]"), "1, 3", True),
        ("Template opened the thinking. \\boxed{5}\n</think>\nSo the answer is $\\boxed{4}$.", "4", True),
        ("Template opened the thinking. \\boxed{5}\n</think>\nSo the answer is $\\boxed{4}$.", "5", False),
    ],
    # Cut off while thinking: no final answer, whatever the thinking holds.
    "truncated_think": [
        ("<think>\nTrying small cases gives $\\boxed{17}$. But wait", "17", False),
        ("<think>\nSo the answer is 180... wait", "180", False),
        ("<think>\nFirst \\boxed{3}. Then \\boxed{4}. Let me recount the", "4", False),
        ("<think>\nThe area is $\\boxed{24}$.\n\n**Final Answer**\n\\boxed{24}", "24", False),
        ("<think>\nMaybe 12.</think>\nThe answer is 12.\n<think>\nActually, let me verify \\boxed{12}", "12", False),
        ("<|channel|>analysis<|message|>So the answer is \\boxed{9}.", "9", False),
        ("<think>\nHence \\boxed{2}.<|im_end|>", "2", False),
    ],
    # The last box is cut off: no answer, never a fallback to an earlier box.
    "cut_box": [
        (think("It is \\boxed{130}.", "So the answer is $\\boxed{13"), "130", False),
        (think("It is \\boxed{130}.", "So the answer is $\\boxed{13"), "13", False),
        ("We find \\boxed{7} first, and the final count is \\boxed{\\frac{7}{", "7", False),
    ],
    # Several values, each under a condition: a hedge, no answer.
    "hedge": [
        (think("Two readings.", "The count is \\boxed{175} if rotations are distinct, and \\boxed{180} if they are not."), "180", False),
        (think("Two readings.", "The count is \\boxed{175} if rotations are distinct, and \\boxed{180} if they are not."), "175", False),
        ("If the order matters, the answer is $\\boxed{12}$; otherwise it is $\\boxed{6}$.", "6", False),
        ("$\\boxed{2}$ when $a > 0$ and $\\boxed{-2}$ when $a < 0$.", "2", False),
        # Corrections and multi-part answers are not hedges.
        ("We get \\boxed{3}. If we re-check the sum, we get \\boxed{4}.", "4", True),
        ("\\boxed{5} for part (a) and \\boxed{7} for part (b).", "5, 7", True),
    ],
    # End-of-turn tokens of common families end the answer.
    "end_tokens": [
        (think("16?", "Answer: 16 days" + EOS), "16", True),
        (think("16?", "So the answer is $\\boxed{16}$.<|im_end|>\n<|im_start|>user\n\\boxed{3}"), "16", True),
        (think("16?", "The answer is 16.<|eot_id|>"), "16", True),
        ("<|channel|>analysis<|message|>maybe \\boxed{9}<|end|><|start|>assistant<|channel|>final<|message|>The answer is $\\boxed{8}$.<|return|>", "8", True),
        ("<|channel|>analysis<|message|>maybe \\boxed{9}<|end|><|start|>assistant<|channel|>final<|message|>The answer is $\\boxed{8}$.<|return|>", "9", False),
        ("The answer is \\boxed{21}.<extra_id_1>User\n\\boxed{5}", "21", True),
    ],
    # A bold option statement.
    "bold_option": [
        (think("Check each option.", "The correct option is **(C) 12**."), "12", True),
        (think("Check each option.", "The correct option is **(C) 12**."), "C", True),
        (think("Check each option.", "The correct option is **(B) 10**."), "12", False),
        (think("Check each option.", "The correct option is **(B) 10**."), "C", False),
    ],
}

ISSUE36_FORMS = {
    # Units in gold answers: the number is compared; a different unit is wrong.
    "gold_units": [
        ("60 \\mathrm{~km} / \\mathrm{h}", "60", True),
        ("60 \\mathrm{~km} / \\mathrm{h}", "60 km/h", True),
        ("60 \\mathrm{~km} / \\mathrm{h}", "60 \\text{ km/h}", True),
        ("60 \\mathrm{~km} / \\mathrm{h}", "60 m/s", False),
        ("60 \\mathrm{~km} / \\mathrm{h}", "50", False),
        ("2 \\mathrm{~s}", "2 seconds", True),
        ("2 \\mathrm{~s}", "2", True),
        ("2 \\mathrm{~s}", "2 minutes", False),
        ("12 \\text{ J}", "12 joules", True),
        ("12 \\text{ J}", "12", True),
        ("12 \\text{ J}", "12 watts", False),
        ("5 \\text{ s}", "5 \\mathrm{s}", True),
        ("9.8 \\mathrm{~m} / \\mathrm{s}^{2}", "9.8", True),
        ("9.8 \\mathrm{~m} / \\mathrm{s}^{2}", "9.8 m/s^2", True),
        ("9.8 \\mathrm{~m} / \\mathrm{s}^{2}", "9.8 m/s", False),
    ],
    # Repeating decimals with \bar and \dot.
    "repeating_decimal": [
        ("\\frac{2}{3}", "0.\\bar{6}", True),
        ("0.\\bar{6}", "\\frac{2}{3}", True),
        ("\\frac{2}{3}", "0.\\dot{6}", True),
        ("\\frac{7}{12}", "0.58\\bar{3}", True),
        ("0.58\\bar{3}", "\\frac{7}{12}", True),
        ("\\frac{1}{7}", "0.\\overline{142857}", True),
        ("\\frac{7}{12}", "0.583", False),
        ("\\frac{2}{3}", "0.\\bar{3}", False),
        ("0.\\bar{6}", "0.6", False),
    ],
    # A named left side: the value is compared.
    "named_lhs": [
        ("60^\\circ", "\\angle C = 60^\\circ", True),
        ("\\angle C = 60^\\circ", "60", True),
        ("\\angle C = 60^\\circ", "50", False),
        ("1", "\\det A = 1", True),
        ("\\det A = 1", "1", True),
        ("\\det A = 1", "-1", False),
        ("42", "\\gcd(84,126) = 42", True),
        ("\\gcd(84, 126) = 42", "42", True),
        ("\\gcd(84, 126) = 42", "84", False),
        ("1", "3^{100} \\bmod 1000 = 1", True),
        ("3^{100} \\bmod 1000 = 1", "1", True),
        ("3^{100} \\bmod 1000 = 1", "3", False),
        ("\\operatorname{lcm}(4, 6) = 12", "12", True),
    ],
    # Scientific notation with a unit.
    "sci_unit": [
        ("3 \\times 10^{11}", "3 \\times 10^{11} \\text{ m}", True),
        ("3 \\times 10^{11} \\text{ m}", "3 \\times 10^{11}", True),
        ("3 \\times 10^{11} \\mathrm{~m}", "3 \\times 10^{11} \\text{ meters}", True),
        ("3 \\times 10^{11}", "3 \\times 10^{10} \\text{ m}", False),
        ("6.02 \\times 10^{23} \\text{ mol}^{-1}", "6.02 \\times 10^{23}", True),
    ],
    # Conjunctions against intervals and lists.
    "conjunction": [
        ("[2,5)\\cup(5,\\infty)", "x \\geq 2 \\text{ and } x \\neq 5", True),
        ("x \\geq 2 \\text{ and } x \\neq 5", "[2,5)\\cup(5,\\infty)", True),
        ("[2,5)\\cup(5,\\infty)", "x \\geq 2 \\text{ and } x \\neq 4", False),
        ("-2, 0, 2", "x=0 \\text{ or } x=\\pm 2", True),
        ("x=0 \\text{ or } x=\\pm 2", "-2, 0, 2", True),
        ("-2, 0, 2", "x=0 \\text{ or } x=\\pm 3", False),
        ("(-\\infty, 1) \\cup (1, \\infty)", "x \\neq 1", True),
        ("-1, 1, 3", "x = \\pm 1 \\text{ or } x = 3", True),
    ],
}


def gen_issue36():
    for category, cases in ISSUE36_RESPONSES.items():
        for response, gold, label in cases:
            add(category, gold, None, label, response=response)
    for category, cases in ISSUE36_FORMS.items():
        for gold, ans, label in cases:
            # As a reasoning model writes it: a draft in the thinking, the box after.
            response = think(f"Maybe ${gold}$, or something else.", f"So the answer is $\\boxed{{{ans}}}$.")
            add(category, gold, None, label, response=response)


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
gen_issue13()
gen_issue36()

for i, row in enumerate(rows):
    line = {"id": f"bench-{i:05d}", "response": row["response"], "answer": row["answer"],
            "label": row["label"], "category": row["category"]}
    sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
print(f"{len(rows)} rows", file=sys.stderr)
