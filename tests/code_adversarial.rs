//! Adversarial programs against the `code` environment: each must be contained, get
//! the right verdict, and leave the host and other runs alone. C/C++ cases need the
//! clang toolchain from `scripts/setup` (fragment `setup.d/code.sh`).

mod code_support;

use code_support::{assert_add, score, stderr, stdio, verdict};

fn py(code: &str, input: &str, output: &str) -> cascade_envs::Reward {
    score(stdio("python", code, input, output))
}

#[test]
fn infinite_loops_hit_the_time_limit() {
    assert_eq!(verdict(&py("while True:\n    pass", "", "")), "time_limit");
    assert_eq!(
        verdict(&score(stdio("c", "int main(){for(;;);}", "", ""))),
        "time_limit"
    );
}

#[test]
fn sleeping_spends_the_time_budget_instead_of_blocking() {
    let r = py("import time\ntime.sleep(60)\nprint('late')", "", "late");
    assert_eq!(verdict(&r), "time_limit");
    let r = py(
        "import time\nt=time.time()\ntime.sleep(0.5)\nprint(time.time()-t >= 0.5)",
        "",
        "True",
    );
    assert_eq!(verdict(&r), "accepted", "{r:?}");
}

#[test]
fn huge_allocations_hit_the_memory_limit() {
    assert_eq!(
        verdict(&py("x = bytearray(2 * 10**9)\nprint(len(x))", "", "")),
        "memory_limit"
    );
    // CPython refuses this one itself (over the 32-bit address space) without asking
    // for memory: the host saw no refusal, so it is an error, with CPython's reason.
    let r = py("x = [0] * (10**9)", "", "");
    assert_eq!(verdict(&r), "runtime_error");
    assert!(stderr(&r).contains("MemoryError"), "{r:?}");
    // (printing the pointer keeps clang from eliding the allocation)
    let c = "#include <stdlib.h>\n#include <string.h>\n#include <stdio.h>\nint main(){char*p=malloc(2000000000u);printf(\"%p\\n\",(void*)p);if(!p)return 3;memset(p,1,2000000000u);return p[5];}";
    assert_eq!(verdict(&score(stdio("c", c, "", ""))), "memory_limit");
}

#[test]
fn deep_recursion_runs() {
    let code = "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nprint(f(10**5))";
    let r = py(code, "", "100000");
    assert_eq!(verdict(&r), "accepted", "{r:?}");
    let cpp = "#include <bits/stdc++.h>\nusing namespace std;\nvector<vector<int>> g;vector<int> d;\nvoid dfs(int u,int p){for(int v:g[u]) if(v!=p){d[v]=d[u]+1;dfs(v,u);}}\nint main(){int n;cin>>n;g.resize(n);d.assign(n,0);for(int i=1;i<n;i++){g[i-1].push_back(i);g[i].push_back(i-1);}dfs(0,-1);cout<<d[n-1]<<endl;}";
    let r = score(stdio("cpp", cpp, "100000", "99999"));
    assert_eq!(verdict(&r), "accepted", "{r:?}");
}

#[test]
fn unbounded_recursion_is_an_error_not_a_crash() {
    let r = py(
        "import sys\nsys.setrecursionlimit(10**9)\ndef f(n):\n    return f(n+1)\nf(0)",
        "",
        "",
    );
    assert!(
        ["runtime_error", "memory_limit", "time_limit"].contains(&verdict(&r).as_str()),
        "{r:?}"
    );
    let r = score(stdio(
        "c",
        "int f(int n){return f(n+1)+1;}\nint main(){return f(0);}",
        "",
        "",
    ));
    assert!(
        ["runtime_error", "time_limit"].contains(&verdict(&r).as_str()),
        "{r:?}"
    );
}

#[test]
fn output_floods_are_cut() {
    let r = py(
        "import sys\nwhile True:\n    sys.stdout.write('x' * 100000)",
        "",
        "x",
    );
    assert_eq!(verdict(&r), "runtime_error");
    let r = py("print('y' * (100 * 2**20))", "", "y");
    assert_eq!(verdict(&r), "runtime_error");
}

#[test]
fn host_files_are_invisible() {
    for code in [
        "print(open('/etc/passwd').read())",
        "import os\nprint(os.listdir(os.path.expanduser('~/.ssh')))",
        "import os\nprint(os.listdir('/'))\nprint(open('/root/.bashrc').read())",
        "print(open('../../../../etc/hostname').read())",
    ] {
        let r = py(code, "", "");
        assert_eq!(verdict(&r), "runtime_error", "{code}: {r:?}");
        assert!(!stderr(&r).contains("root:x"), "{code}");
    }
    let r = py(
        "import os\nprint(os.environ.get('HOME'), os.environ.get('PATH'))",
        "",
        "None None",
    );
    assert_eq!(verdict(&r), "accepted", "host environment leaked: {r:?}");
}

#[test]
fn writes_outside_are_refused() {
    let marker = std::env::temp_dir().join("cascade_escape_probe");
    let _ = std::fs::remove_file(&marker);
    let code = format!("open({:?}, 'w').write('x')", marker.display().to_string());
    assert_eq!(verdict(&py(&code, "", "")), "runtime_error");
    assert!(!marker.exists());
    assert_eq!(
        verdict(&py("open('escape.txt', 'w').write('x')", "", "")),
        "runtime_error"
    );
}

#[test]
fn no_network_no_processes() {
    for code in [
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)",
        "import urllib.request\nurllib.request.urlopen('http://example.com')",
        "import os\nos.system('echo pwned')",
        "import subprocess\nsubprocess.run(['echo', 'pwned'])",
        "import os\nos.fork()",
        "import os\nos.execv('/bin/sh', ['sh'])",
    ] {
        let r = py(code, "", "pwned");
        assert_eq!(verdict(&r), "runtime_error", "{code}: {r:?}");
    }
}

#[test]
fn python_exits_behave_as_a_normal_interpreter_exit() {
    // The stdio wrapper skips interpreter finalization; what a program can see of a
    // normal exit must stay: exit codes, SystemExit messages, atexit, buffered output.
    for (code, want) in [
        ("print(42)\nimport sys\nsys.exit(0)", "accepted"),
        ("print(42)\nimport sys\nsys.exit()", "accepted"),
        ("print(42)\nraise SystemExit(None)", "accepted"),
        ("print(42)\nimport sys\nsys.exit(3)", "runtime_error"),
        ("print(42)\nimport sys\nsys.exit('bye')", "runtime_error"),
        (
            "import atexit\natexit.register(lambda: print(42))",
            "accepted",
        ),
        ("import sys\nsys.stdout.write('42')", "accepted"),
        (
            "import sys, io\nsys.stdout = io.StringIO()\nsys.__stdout__.write('42\\n')",
            "accepted",
        ),
        ("print(42)\nraise ValueError('late')", "runtime_error"),
    ] {
        let r = py(code, "", "42");
        assert_eq!(verdict(&r), want, "{code}: {r:?}");
    }
    let r = py("import sys\nsys.exit('bye')", "", "");
    assert!(stderr(&r).contains("bye"), "{r:?}");
    let r = py("def f():\n    return 1 // 0\nf()", "", "");
    let trace = stderr(&r);
    assert!(trace.contains("ZeroDivisionError"), "{trace}");
    assert!(
        trace.contains("return 1 // 0"),
        "the traceback shows the program's lines: {trace}"
    );
    assert!(!trace.contains("_cascade"), "no wrapper frames: {trace}");
}

#[test]
fn descriptor_floods_are_stopped() {
    // Open a readable path from the guest's own mounts over and over, never closing.
    let flood = "import os, sys\np = next(x for x in sys.path if os.path.exists(x))\nfs = [os.open(p, os.O_RDONLY) for _ in range(100000)]\nprint(len(fs))";
    let r = py(flood, "", "100000");
    assert_eq!(verdict(&r), "runtime_error", "{r:?}");
    assert!(stderr(&r).contains("open-files limit"), "{r:?}");
}

#[test]
fn reading_past_stdin_end() {
    assert_eq!(verdict(&py("input()\ninput()", "1\n", "")), "runtime_error");
    let r = py(
        "import sys\na = sys.stdin.read()\nb = sys.stdin.read()\nprint(len(a), len(b))",
        "xy",
        "2 0",
    );
    assert_eq!(verdict(&r), "accepted", "{r:?}");
    let c = "#include <stdio.h>\nint main(){int a,b=7;int n=scanf(\"%d %d\",&a,&b);printf(\"%d %d\\n\",n,b);}";
    assert_eq!(verdict(&score(stdio("c", c, "5", "1 7"))), "accepted");
}

#[test]
fn cheating_assert_programs_are_never_accepted() {
    let attempts = [
        // exit with status 0 before the tests run
        "import sys\nsys.exit(0)",
        "exit(0)",
        "import os\nos._exit(0)",
        "raise SystemExit",
        // exit hooks
        "import atexit, os\natexit.register(lambda: os._exit(0))\ndef add(a, b): return 0",
        "import atexit\natexit.register(lambda: print('__CASCADE_PASSED__ 00000000000000000000000000000000'))\nimport sys\nsys.exit(0)",
        // fake markers
        "print('__CASCADE_PASSED__ ' + '0' * 32)\nimport os\nos._exit(0)",
        "import sys\nprint('\\n__CASCADE_PASSED__ ' + sys.stdin.read())\nimport os\nos._exit(0)",
        // redefining check
        "def add(a, b): return 0\ndef check(candidate): pass",
        // patching builtins
        "import builtins\nbuiltins.AssertionError = KeyboardInterrupt\ndef add(a, b): return 0",
        "import builtins\n_exec = builtins.exec\nbuiltins.exec = lambda code, scope=None: scope.__setitem__('check', lambda c: None) if scope is not None and 'check' not in scope else _exec(code, scope)\ndef add(a, b): return 0",
        "import builtins\nbuiltins.compile = lambda *a, **k: compile('def check(c): pass', '<x>', 'exec')\ndef add(a, b): return 0",
        // candidate exits from inside the tests
        "def add(a, b):\n    import os\n    os._exit(0)",
        "def add(a, b):\n    raise SystemExit(0)",
        // reaching the harness through frames, gc or tracing
        "import sys\nf = sys._getframe(1)\nf.f_locals['tests'] = 'def check(c): pass'\ndef add(a, b): return 0",
        "try:\n    1/0\nexcept Exception as e:\n    fr = e.__traceback__.tb_frame.f_back\n    fr.f_locals['tests'] = 'def check(c): pass'\ndef add(a, b): return 0",
        "import gc\nfor o in gc.get_objects():\n    pass\ndef add(a, b): return 0",
        "import sys\nsys.settrace(lambda *a: None)\ndef add(a, b): return 0",
        "import sys\nsys.audit('cascade.run')\ndef add(a, b): return 0",
        // an object equal to everything (tests compare with ==): caught by the second assert? no;
        // but it must at least not crash the harness
    ];
    for program in attempts {
        let r = score(assert_add(program));
        assert_eq!(r.score, 0.0, "accepted a cheat:\n{program}\n{r:?}");
        assert_ne!(verdict(&r), "accepted");
    }
    let honest = score(assert_add("def add(a, b):\n    return a + b"));
    assert_eq!(verdict(&honest), "accepted", "{honest:?}");
    let wrong = score(assert_add("def add(a, b):\n    return a - b"));
    assert_eq!(verdict(&wrong), "wrong_answer");
    let syntax = score(assert_add("def add(a, b)\n    return a + b"));
    assert_eq!(verdict(&syntax), "compile_error");
}

#[test]
fn compile_bombs_and_include_leaks_are_compile_errors() {
    let bomb = "template<int N> struct F { static const long v = F<N-1>::v + F<N-2>::v; };\ntemplate<> struct F<0> { static const long v = 0; };\ntemplate<> struct F<1> { static const long v = 1; };\nint main(){ return (int)F<100000>::v; }";
    let r = score(stdio("cpp", bomb, "", ""));
    assert_eq!(verdict(&r), "compile_error", "{r:?}");
    for include in [
        "#include \"/etc/passwd\"",
        "#include </etc/passwd>",
        "#include \"/root/.bashrc\"",
    ] {
        let r = score(stdio(
            "c",
            &format!("{include}\nint main(){{return 0;}}"),
            "",
            "",
        ));
        assert_eq!(verdict(&r), "compile_error");
        assert!(!stderr(&r).contains("root:"), "{include} leaked: {r:?}");
    }
}

// ---------------------------------------------------------------------------------
// Issue 14, Python side: cheats a policy could learn against assert tests (lying
// values, patched modules, reading the tests, templating), verdicts from stderr text,
// and the stderr a failed assert shows. Each case here was accepted (or mis-judged)
// by the single-interpreter harness; see `sandboxes/README.md`, "Threat model".
mod python_assert_cheats {
    use super::code_support::{score, stderr, stdio, verdict};
    use serde_json::json;

    /// An assert sample with its own test code.
    fn assert_sample(code: &str, tests: &str, entry_point: &str) -> cascade_envs::Reward {
        score(json!({
            "id": "t",
            "language": "python",
            "response": format!("```python\n{code}\n```"),
            "tests": {"kind": "assert", "code": tests, "entry_point": entry_point},
        }))
    }

    /// Tests no honest program passes: `secret` has no rule, only the tests know it.
    const SECRET_TESTS: &str =
        "def check(candidate):\n    assert candidate(1) == 7\n    assert candidate(2) == 13\n";

    fn assert_wrong_answer_not_plain(program: &str, tests: &str, entry_point: &str) {
        let r = assert_sample(program, tests, entry_point);
        assert_eq!(verdict(&r), "wrong_answer", "{program}\n{r:?}");
        assert!(
            stderr(&r).contains("only exact built-in types"),
            "the reason is in details: {program}\n{r:?}"
        );
    }

    #[test]
    fn objects_that_compare_equal_to_everything_are_wrong_answers() {
        let tests = "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert not (candidate(1, 2) != 3)\n    assert candidate(0, 0) <= 0 and candidate(0, 0) >= 0\n";
        for program in [
            "class E:\n    __eq__ = lambda s, o: True\n    __ne__ = lambda s, o: False\n    __le__ = __ge__ = __eq__\n    __hash__ = object.__hash__\ndef add(a, b):\n    return E()",
            // nested inside a real list, still compared element by element
            "class E:\n    __eq__ = lambda s, o: True\n    __ne__ = lambda s, o: False\n    __le__ = __ge__ = __eq__\ndef add(a, b):\n    return [E()][0]",
        ] {
            assert_wrong_answer_not_plain(program, tests, "add");
        }
        let nested = "def check(candidate):\n    assert candidate() == [1, (2, 3)]\n";
        let program =
            "class E:\n    __eq__ = lambda s, o: True\ndef f():\n    return [1, (2, E())]";
        assert_wrong_answer_not_plain(program, nested, "f");
    }

    #[test]
    fn subclasses_of_builtins_are_wrong_answers() {
        let int_sub = "class I(int):\n    __eq__ = lambda s, o: True\n    __ne__ = lambda s, o: False\n    __hash__ = int.__hash__\ndef add(a, b):\n    return I(0)";
        assert_wrong_answer_not_plain(int_sub, crate::ADD_TESTS, "add");
        let str_sub = "class S(str):\n    __eq__ = lambda s, o: True\n    __hash__ = str.__hash__\ndef rev(s):\n    return S('')";
        let str_tests = "def check(candidate):\n    assert candidate('abc') == 'cba'\n";
        assert_wrong_answer_not_plain(str_sub, str_tests, "rev");
        let list_sub =
            "class L(list):\n    __eq__ = lambda s, o: True\ndef srt(xs):\n    return L()";
        let list_tests = "def check(candidate):\n    assert candidate([3, 1, 2]) == [1, 2, 3]\n";
        assert_wrong_answer_not_plain(list_sub, list_tests, "srt");
        // A float whose difference is always tiny passes any tolerance assert.
        let float_sub = "class F(float):\n    __sub__ = __rsub__ = lambda s, o: s\n    __abs__ = lambda s: 0.0\n    __lt__ = lambda s, o: True\ndef root(x):\n    return F(0.0)";
        let float_tests = "def check(candidate):\n    assert abs(candidate(2.0) - 1.41421356) < 1e-6\n    assert candidate(4.0) - 2.0 < 1e-9\n";
        assert_wrong_answer_not_plain(float_sub, float_tests, "root");
        // A truthiness liar against `assert candidate(...)` / `assert not ...`.
        let bool_liar = "class B:\n    n = 0\n    def __bool__(self):\n        B.n += 1\n        return B.n % 2 == 1\ndef is_even(x):\n    return B()";
        let bool_tests =
            "def check(candidate):\n    assert candidate(4)\n    assert not candidate(3)\n";
        assert_wrong_answer_not_plain(bool_liar, bool_tests, "is_even");
    }

    #[test]
    fn plain_values_of_every_builtin_kind_cross_intact() {
        let tests = "def check(candidate):\n    v = candidate()\n    assert type(v) is tuple and v[0] is None and v[1] is True\n    assert v[2] == [1, -2**100, 2.5, 'é\\U0001F600', b'\\x00', bytearray(b'z'), 1+2j]\n    assert v[3] == {(1, 2): {3}, 'k': frozenset({4})}\n    assert v[4] != v[4] and type(v[4]) is float\n    assert type(v[3]) is dict and type(v[2][1]) is int\n";
        let program = "def f():\n    return (None, True, [1, -2**100, 2.5, 'é\\U0001F600', b'\\x00', bytearray(b'z'), 1+2j], {(1, 2): {3}, 'k': frozenset({4})}, float('nan'))";
        let r = assert_sample(program, tests, "f");
        assert_eq!(verdict(&r), "accepted", "{r:?}");
        // The program's functions stay stateful across the tests' calls.
        let counter = "n = [0]\ndef tick():\n    n[0] += 1\n    return n[0]";
        let tests =
            "def check(candidate):\n    assert [candidate() for _ in range(3)] == [1, 2, 3]\n";
        assert_eq!(verdict(&assert_sample(counter, tests, "tick")), "accepted");
    }

    #[test]
    fn patched_shared_modules_do_not_reach_the_tests() {
        let isclose = "import math\ndef check(candidate):\n    assert math.isclose(candidate(2.0), 1.4142135623730951)\n";
        let fabs = "import math\ndef check(candidate):\n    assert math.fabs(candidate(2.0) - 1.4142135623730951) < 1e-9\n";
        let late_import = "def check(candidate):\n    import math\n    assert math.isclose(candidate(2.0), 1.4142135623730951)\n";
        for (program, tests) in [
            ("import math\nmath.isclose = lambda *a, **k: True\ndef root(x):\n    return 0.0", isclose),
            ("import math\nmath.fabs = lambda x: 0.0\ndef root(x):\n    return 0.0", fabs),
            ("import sys, types\nfake = types.ModuleType('math')\nfake.isclose = lambda *a, **k: True\nsys.modules['math'] = fake\ndef root(x):\n    return 0.0", late_import),
            ("import builtins\nbuiltins.abs = lambda x: 0.0\ndef root(x):\n    return 0.0", "def check(candidate):\n    assert abs(candidate(2.0) - 1.4142135623730951) < 1e-9\n"),
            // a program-level name that shadows a builtin the tests use
            ("def abs(x):\n    return 0.0\ndef root(x):\n    return 0.0", "def check(candidate):\n    assert abs(candidate(2.0) - 1.4142135623730951) < 1e-9\n"),
        ] {
            let r = assert_sample(program, tests, "root");
            assert_eq!(verdict(&r), "wrong_answer", "{program}\n{r:?}");
        }
        let counter_tests = "from collections import Counter\ndef check(candidate):\n    assert Counter(candidate('abc')) == Counter('xyz')\n";
        let program = "import collections\ncollections.Counter.__eq__ = lambda s, o: True\ndef letters(s):\n    return s";
        let r = assert_sample(program, counter_tests, "letters");
        assert_eq!(verdict(&r), "wrong_answer", "{r:?}");
        let honest = "import math\ndef root(x):\n    return math.sqrt(x)";
        assert_eq!(verdict(&assert_sample(honest, isclose, "root")), "accepted");
    }

    #[test]
    fn the_tests_are_not_observable_by_the_program() {
        for program in [
            // the harness command line
            "import sys, re\ntext = ' '.join(sys.orig_argv + sys.argv)\ntable = {int(a): int(b) for a, b in re.findall(r'candidate\\((\\d+)\\) == (\\d+)', text)}\ndef secret(x):\n    return table.get(x, -1)",
            // an audit hook seeing the test source compiled
            "import sys, re\ntable = {}\ndef hook(event, args):\n    if event == 'compile' and args and isinstance(args[0], (str, bytes)):\n        src = args[0].decode() if isinstance(args[0], bytes) else args[0]\n        for a, b in re.findall(r'candidate\\((\\d+)\\) == (\\d+)', src):\n            table[int(a)] = int(b)\nsys.addaudithook(hook)\ndef secret(x):\n    return table.get(x, -1)",
            // an audit hook seeing the tests' code object run
            "import sys\nseen = []\ndef hook(event, args):\n    if event == 'exec' and args and getattr(args[0], 'co_filename', '') == '<tests>':\n        seen.append(args[0])\nsys.addaudithook(hook)\ndef secret(x):\n    for code in seen:\n        for c in code.co_consts:\n            if hasattr(c, 'co_consts'):\n                ints = [k for k in c.co_consts if type(k) is int]\n                if x in ints:\n                    return ints[ints.index(x) + 1]\n    return -1",
            // the environment and the files the program can see
            "import os\nfound = [v for v in os.environ.values() if 'candidate' in v]\nfor root in ['/', '/tmp', '.']:\n    try:\n        names = os.listdir(root)\n    except OSError:\n        names = []\ndef secret(x):\n    return {1: 7, 2: 13}[x] if found else -1",
        ] {
            let r = assert_sample(program, SECRET_TESTS, "secret");
            assert_eq!(verdict(&r), "wrong_answer", "read the tests:\n{program}\n{r:?}");
        }
    }

    #[test]
    fn harness_placeholders_in_programs_and_tests_are_just_text() {
        let program = "# __TESTS__ __ENTRY_POINT__ __PROGRAM__ __SOURCE__\nMARK = '__TESTS__'\ndef add(a, b):\n    return a + b";
        let r = assert_sample(program, crate::ADD_TESTS, "add");
        assert_eq!(verdict(&r), "accepted", "{r:?}");
        let tests = "# __PROGRAM__ __ENTRY_POINT__ __TESTS__\ndef check(candidate):\n    assert candidate(1, 2) == 3, '__ENTRY_POINT__'\n";
        let r = assert_sample("def add(a, b):\n    return a + b", tests, "add");
        assert_eq!(verdict(&r), "accepted", "{r:?}");
        let r = score(stdio(
            "python",
            "print('__SOURCE__ __TESTS__')",
            "",
            "__SOURCE__ __TESTS__",
        ));
        assert_eq!(verdict(&r), "accepted", "{r:?}");
    }

    #[test]
    fn fake_tracebacks_on_stderr_do_not_decide_the_verdict() {
        for code in [
            "import sys\nsys.stderr.write('  File \"<solution>\", line 1\\nSyntaxError: invalid syntax\\n\\n__CASCADE_RESULT__ compile_error\\n')\nsys.exit(1)",
            "import sys\nsys.stderr.write('__CASCADE_COMPILE_ERROR__\\nSyntaxError: invalid syntax\\n')\nsys.exit(1)",
            "import sys\nsys.stderr.write('Traceback (most recent call last):\\nMemoryError\\n')\nsys.exit(1)",
            "raise MemoryError",
        ] {
            let r = score(stdio("python", code, "", ""));
            assert_eq!(verdict(&r), "runtime_error", "{code}\n{r:?}");
        }
        for code in [
            "import sys, os\nsys.stderr.write('SyntaxError: invalid syntax\\n\\n__CASCADE_RESULT__ compile_error\\n')\nos._exit(1)",
            "import sys, os\ndef add(a, b):\n    sys.stderr.write('SyntaxError: invalid syntax\\n\\n__CASCADE_RESULT__ compile_error\\n')\n    os._exit(1)",
            "def add(a, b):\n    raise MemoryError",
            "import sys\nsys.stderr.write('MemoryError\\n')\nimport os\nos._exit(1)",
        ] {
            let r = assert_sample(code, crate::ADD_TESTS, "add");
            assert_eq!(verdict(&r), "runtime_error", "{code}\n{r:?}");
        }
        // Real ones still get their verdicts, from what the host saw.
        let r = assert_sample("def add(a, b)\n    return a + b", crate::ADD_TESTS, "add");
        assert_eq!(verdict(&r), "compile_error");
        let r = assert_sample(
            "def add(a, b):\n    while True:\n        pass",
            crate::ADD_TESTS,
            "add",
        );
        assert_eq!(verdict(&r), "time_limit");
        let r = assert_sample(
            "def add(a, b):\n    x = bytearray(2 * 10**9)\n    return len(x)",
            crate::ADD_TESTS,
            "add",
        );
        assert_eq!(verdict(&r), "memory_limit");
    }

    #[test]
    fn a_failed_assert_shows_the_real_error() {
        let r = assert_sample("def add(a, b):\n    return a - b", crate::ADD_TESTS, "add");
        let trace = stderr(&r);
        assert_eq!(verdict(&r), "wrong_answer");
        assert!(trace.ends_with("AssertionError"), "{trace}");
        assert!(trace.contains("assert candidate(1, 2) == 3"), "{trace}");
        assert!(!trace.contains("not allowed in the sandbox"), "{trace}");
        let r = assert_sample("def add(a, b):\n    return a // 0", crate::ADD_TESTS, "add");
        let trace = stderr(&r);
        assert_eq!(verdict(&r), "runtime_error");
        assert!(
            trace.contains("return a // 0"),
            "the program's line: {trace}"
        );
        assert!(trace.contains("ZeroDivisionError"), "{trace}");
        assert!(!trace.contains("not allowed in the sandbox"), "{trace}");
    }

    #[test]
    fn reading_stdin_during_the_tests_sees_an_empty_stdin() {
        let program =
            "import sys\ndata = sys.stdin.read()\ndef add(a, b):\n    return a + b + len(data)";
        assert_eq!(
            verdict(&assert_sample(program, crate::ADD_TESTS, "add")),
            "accepted"
        );
        let r = assert_sample(
            "def add(a, b):\n    return int(input())",
            crate::ADD_TESTS,
            "add",
        );
        assert_eq!(verdict(&r), "runtime_error", "{r:?}");
        assert!(stderr(&r).contains("EOFError"), "{r:?}");
    }
}

/// A pool slot is reused for the next run of the same program: whatever a run wrote,
/// the next starts from the module's image. Each run reads 96 MiB of zero-initialised
/// memory, counts the pages that are not zero, then dirties every other page (thousands
/// of disjoint runs of dirty pages, past the 64 MiB a slot keeps resident), so both
/// the dirty-page reset and its give-back of memory beyond that are exercised.
#[test]
fn a_run_never_sees_what_an_earlier_run_wrote() {
    let c = "#include <stdio.h>\nstatic volatile unsigned char buf[96u << 20];\nint main(void){unsigned long seen = 0, i;\nfor (i = 0; i < sizeof buf; i += 4096) seen += buf[i] | buf[i + 4095];\nfor (i = 0; i < sizeof buf; i += 8192) { buf[i] = 0xAB; buf[i + 4095] = 0xCD; }\nprintf(\"%lu\\n\", seen);\nreturn 0;}";
    for run in 0..6 {
        let r = score(stdio("c", c, "", "0"));
        assert_eq!(verdict(&r), "accepted", "run {run}: {r:?}");
    }
    // The same for the interpreter: a Python run sees none of an earlier run's objects.
    let py_code = "import sys\nprint(len([m for m in sys.modules if m.startswith('cascade_marker')]))\nsys.modules['cascade_marker_x'] = sys\nglobal_marker = bytearray(b'x') * (8 << 20)";
    for run in 0..4 {
        let r = py(py_code, "", "0");
        assert_eq!(verdict(&r), "accepted", "run {run}: {r:?}");
    }
}

/// The tests of `code_support::assert_add`.
const ADD_TESTS: &str =
    "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n";
