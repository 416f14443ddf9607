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
    assert_eq!(verdict(&py("x = [0] * (10**9)", "", "")), "memory_limit");
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
