//! The Python project API other environments (SWE) build on: a host directory mounted
//! read-write at /work, importable, writable, and nothing else visible.

use cascade_sandboxes::{Limits, Python, PythonRuntime};

#[test]
fn runs_code_in_a_mounted_project() {
    let project = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        project.path().join("mod_under_test.py"),
        "X = 'from the project'\n",
    )
    .expect("write");
    let extra = tempfile::tempdir().expect("tempdir");
    std::fs::write(extra.path().join("data.txt"), "read only\n").expect("write");
    let python = Python::load(PythonRuntime::default()).expect("runtime (run scripts/setup)");
    let program =
        "import os, sys\nos.chdir('/work')\nsys.path.insert(0, '/work')\nimport mod_under_test\n\
        open('out.txt', 'w').write(mod_under_test.X)\n\
        print(open('/extra/data.txt').read().strip())\n\
        try:\n    open('/extra/new.txt', 'w')\nexcept OSError:\n    print('extra is read-only')\n";
    let inv = python.project_invocation(
        &["-c", program],
        project.path(),
        &[(extra.path().to_path_buf(), "/extra".to_owned())],
    );
    let run = python.run(&inv, &Limits::new(10.0, 256)).expect("run");
    assert!(run.status.success(), "{run:?}");
    assert_eq!(run.stdout_text(), "read only\nextra is read-only\n");
    let written = std::fs::read_to_string(project.path().join("out.txt")).expect("out.txt");
    assert_eq!(written, "from the project");
    assert!(!extra.path().join("new.txt").exists());
}
