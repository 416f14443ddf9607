//! Issue 34, `code` env: a program's StopIteration cannot silently end the tests'
//! loops, and honest programs a native judge accepts are accepted: tests that print,
//! exception subclasses and KeyError keys, `clock()`, `__gcd`/`__lg`, Python's
//! `threading.stack_size` + thread and `resource`.
//!
//! Needs the clang toolchain and CPython runtime from `scripts/setup`.

mod common;

use cascade_envs::{Reward, Sample};
use serde_json::{json, Value};

use common::code_env as env;

fn verdict(r: &Reward) -> String {
    r.details
        .get("verdict")
        .and_then(Value::as_str)
        .map_or_else(|| format!("no verdict: {r:?}"), str::to_owned)
}

fn assert_tests(program: &str, tests: &str, entry_point: &str) -> Reward {
    env().score(&Sample::new(json!({
        "id": "t",
        "language": "python",
        "response": format!("```python\n{program}\n```"),
        "tests": {"kind": "assert", "code": tests, "entry_point": entry_point},
    })))
}

fn stdio(language: &str, code: &str, output: &str) -> Reward {
    env().score(&Sample::new(json!({
        "id": "t",
        "language": language,
        "response": format!("```{language}\n{code}\n```"),
        "tests": {"kind": "stdio", "cases": [{"input": "", "output": output}]},
    })))
}

fn expect(r: &Reward, want: &str) {
    assert_eq!(verdict(r), want, "{}", serde_json::to_string(r).unwrap());
}

#[test]
fn stop_iteration_from_the_program_does_not_end_the_tests_loops() {
    let tests = [
        "def check(candidate):\n    assert all(map(lambda x: candidate(x) == x + 1, [1, 2]))\n",
        "def check(candidate):\n    for a, b in zip(map(candidate, [1, 2]), [2, 3]):\n        assert a == b\n    assert True\n",
        "def check(candidate):\n    assert not list(filter(lambda x: candidate(x) != x + 1, [1, 2]))\n",
        "import asyncio\n\
         class Items:\n    \
             def __init__(self, f):\n        \
                 self.f, self.i = f, 0\n    \
             def __aiter__(self):\n        \
                 return self\n    \
             async def __anext__(self):\n        \
                 self.i += 1\n        \
                 if self.i > 2:\n            \
                     raise StopAsyncIteration\n        \
                 return self.f(self.i)\n\
         def check(candidate):\n    \
             async def run():\n        \
                 return [v async for v in Items(candidate)]\n    \
             assert all(v == 0 for v in asyncio.run(run()))\n",
    ];
    for program in [
        "def inc(x):\n    raise StopIteration",
        "def inc(x):\n    raise StopAsyncIteration",
    ] {
        for t in tests {
            let r = assert_tests(program, t, "inc");
            assert_ne!(verdict(&r), "accepted", "{program}\n{t}");
        }
    }
    expect(
        &assert_tests("def inc(x):\n    return x + 1", tests[0], "inc"),
        "accepted",
    );
}

#[test]
fn tests_that_print_do_not_break_the_channel() {
    let program = "def inc(x):\n    return x + 1";
    let one = "import sys\ndef check(candidate):\n    print('checking', flush=True)\n    sys.stdout.flush()\n    assert candidate(1) == 2\n";
    let many = "def check(candidate):\n    for i in range(3000):\n        print('case', i, candidate(i))\n        assert candidate(i) == i + 1\n";
    expect(&assert_tests(program, one, "inc"), "accepted");
    expect(&assert_tests(program, many, "inc"), "accepted");
}

#[test]
fn exception_classes_and_keys_arrive_faithfully() {
    let subclass =
        "class BadInput(ValueError):\n    pass\n\ndef parse(x):\n    raise BadInput('no')";
    let tests = "def check(candidate):\n    try:\n        candidate(1)\n    except ValueError as e:\n        assert str(e) == 'no'\n    else:\n        assert False\n";
    expect(&assert_tests(subclass, tests, "parse"), "accepted");
    let key = "def get(d):\n    return d['missing']";
    let tests = "def check(candidate):\n    try:\n        candidate({})\n    except KeyError as e:\n        assert e.args[0] == 'missing', e.args\n    else:\n        assert False\n";
    expect(&assert_tests(key, tests, "get"), "accepted");
}

#[test]
fn c_and_cpp_have_what_native_judges_have() {
    let c = "#include <stdio.h>\n#include <time.h>\nint main(void) { clock_t c = clock(); printf(\"%d\\n\", c >= 0); return 0; }";
    expect(&stdio("c", c, "1"), "accepted");
    let cpp = "#include <bits/stdc++.h>\nusing namespace std;\nint main() { clock_t c = clock(); cout << __gcd(12LL, 18LL) << ' ' << __lg(1000) << ' ' << __lg(1LL << 40) << ' ' << (c >= 0) << endl; }";
    expect(&stdio("cpp", cpp, "6 9 40 1"), "accepted");
    let own = "#include <algorithm>\n#include <cstdio>\nint __gcd(int a, int b) { return b ? __gcd(b, a % b) : a; }\nint main() { printf(\"%d\\n\", __gcd(4, 6)); }";
    expect(&stdio("cpp", own, "2"), "accepted");
}

#[test]
fn python_threads_for_deep_recursion_and_resource_work() {
    let program = "import sys, threading, resource\n\
        resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n\
        sys.setrecursionlimit(1 << 20)\n\
        threading.stack_size(1 << 27)\n\
        def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n\
        def main():\n    print(depth(20000))\n\
        t = threading.Thread(target=main)\n\
        t.start()\n\
        t.join()\n";
    expect(&stdio("python", program, "20000"), "accepted");
}
