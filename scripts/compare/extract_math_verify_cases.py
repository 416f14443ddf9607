"""Rebuilds verifiers/tests/data/math_verify_cases.jsonl from Math-Verify's test suite.

Usage: python3 extract_math_verify_cases.py <unpacked math_verify-0.8.0 sdist> <out.jsonl>
(`pip download --no-binary :all: --no-deps math-verify==0.8.0` gives the sdist.)
Takes every @pytest.mark.parametrize case whose first parameters are
`gold, pred, expected` or `gold, pred, result` and whose gold and prediction are
string literals; files in name order, cases in file order. Apache-2.0 data, see
verifiers/tests/data/MATH_VERIFY_LICENSE.
"""
import ast
import glob
import json
import sys

NAMES = (["gold", "pred", "expected"], ["gold", "pred", "result"])


def main():
    sdist, out = sys.argv[1], sys.argv[2]
    rows = []
    for path in sorted(glob.glob(f"{sdist}/tests/test_*.py")):
        tree = ast.parse(open(path).read())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for dec in fn.decorator_list:
                if not (isinstance(dec, ast.Call) and getattr(dec.func, "attr", "") == "parametrize"):
                    continue
                names = ast.literal_eval(dec.args[0])
                names = [n.strip() for n in (names.split(",") if isinstance(names, str) else names)]
                if names[:3] not in NAMES:
                    continue
                try:
                    cases = ast.literal_eval(dec.args[1])
                except ValueError:
                    continue  # computed cases (f-strings) are not literals
                for c in cases:
                    if isinstance(c, (list, tuple)) and len(c) >= 3 and isinstance(c[0], str) and isinstance(c[1], str):
                        category = path.split("/")[-1][5:-3] + ":" + fn.name
                        rows.append({"id": f"mv-{len(rows):04d}", "response": c[1], "answer": c[0],
                                     "label": bool(c[2]), "category": category})
    with open(out, "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(len(rows), "cases,", sum(r["label"] for r in rows), "labelled true")


if __name__ == "__main__":
    main()
