//! Verdicts of the `code` environment, as written in `details.verdict`.

/// How a response fared, in the order a judge reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    WrongAnswer,
    TimeLimit,
    MemoryLimit,
    RuntimeError,
    CompileError,
    NoCode,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::WrongAnswer => "wrong_answer",
            Verdict::TimeLimit => "time_limit",
            Verdict::MemoryLimit => "memory_limit",
            Verdict::RuntimeError => "runtime_error",
            Verdict::CompileError => "compile_error",
            Verdict::NoCode => "no_code",
        }
    }
}
