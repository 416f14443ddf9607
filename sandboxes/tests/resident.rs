//! A resident CPython guest: loaded once, called many times through the door, each
//! call under its own limits; a call that runs out ends only that resident.

use std::sync::Arc;

use cascade_sandboxes::resident::{HOST, NEXT};
use cascade_sandboxes::{
    HostApi, Limits, Python, PythonRuntime, Resident, ResidentError, ResidentLimits, ResidentPool,
    Status,
};

/// Echoes each request upper-cased; `spin` loops forever, `host:X` asks the host API.
const GUEST: &str = r#"
import _host
loaded = 0
def main():
    global loaded
    loaded += 1
    request = _host.call(b"N" + b"ready %d" % loaded)
    while True:
        if request == b"spin":
            while True:
                pass
        if request.startswith(b"host:"):
            answer = _host.call(b"H" + request[5:])
        else:
            answer = request.upper()
        request = _host.call(b"N" + answer)
main()
"#;

fn start() -> Result<(Resident, Vec<u8>), ResidentError> {
    let python = Python::load(PythonRuntime::Cpython315Snapshot).expect("runtime");
    let api: HostApi = Arc::new(|body: &[u8]| Some([b"api:", body].concat()));
    let limits = ResidentLimits {
        load: Limits::new(5.0, 64),
        call: Limits::new(0.2, 64),
    };
    Resident::start(
        python.program(),
        python.source_invocation(GUEST, b""),
        &limits,
        api,
    )
}

#[test]
fn a_resident_answers_many_calls_and_the_host_api() {
    let (mut resident, report) = start().expect("start");
    assert_eq!(report, b"ready 1");
    for i in 0..50 {
        let request = format!("sample {i}");
        let answer = resident.call(request.as_bytes()).expect("call");
        assert_eq!(answer, request.to_uppercase().as_bytes());
    }
    assert_eq!(resident.call(b"host:x").unwrap(), b"api:x");
    assert_eq!([NEXT, HOST], *b"NH");
}

#[test]
fn each_call_has_its_own_time_limit_and_a_spinning_call_ends_the_resident() {
    let (mut resident, _) = start().expect("start");
    // 200 calls of a little work each: far beyond one call's 0.2 s of fuel in total.
    for _ in 0..200 {
        resident.call(b"x").expect("call within its own budget");
    }
    match resident.call(b"spin") {
        Err(ResidentError::Ended(run)) => assert_eq!(run.status, Status::TimeLimit),
        other => panic!("expected a time limit, got {other:?}"),
    }
    assert!(matches!(resident.call(b"x"), Err(ResidentError::Gone)));
}

#[test]
fn a_pool_replaces_a_resident_that_ended() {
    let pool = ResidentPool::new(2, Box::new(|| start().map(|(resident, _)| resident)));
    assert_eq!(pool.call(b"a").unwrap(), b"A");
    assert!(matches!(pool.call(b"spin"), Err(ResidentError::Ended(_))));
    assert_eq!(pool.call(b"b").unwrap(), b"B");
    let pool = &pool;
    std::thread::scope(|s| {
        let calls: Vec<_> = (0..8)
            .map(|i| s.spawn(move || pool.call(format!("t{i}").as_bytes()).unwrap()))
            .collect();
        for (i, c) in calls.into_iter().enumerate() {
            assert_eq!(c.join().unwrap(), format!("T{i}").as_bytes());
        }
    });
}
