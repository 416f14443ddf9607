//! Long-context graders, exact and procedural (no judge model): needle retrieval and
//! variable tracking (RULER's tasks, [`grade_retrieval`]), graph walks (OpenAI's
//! GraphWalks, [`grade_graph`]) and multi-round coreference (OpenAI's MRCR,
//! [`grade_mrcr`], over a faithful port of difflib's [`ratio`]). Each module states its
//! exact rule and edge cases. Every grader is bounded: responses over
//! [`MAX_RESPONSE_BYTES`] (retrieval, graphs) or [`MAX_RATIO_CHARS`] (MRCR) are refused,
//! never read slowly. A retrieval or MRCR answer longer than its expected answer
//! allows is refused as an echo of the context ([`echo_refusal`]).

mod echo;
mod graph;
mod mrcr;
mod ratio;
mod retrieval;
mod task;

pub use echo::{answer_budget, echo_refusal, retrieval_chars, ECHO_FACTOR, ECHO_FLOOR_CHARS};
pub use graph::{grade_graph, parse_final_answer, set_f1, FinalAnswer};
pub use mrcr::{grade_mrcr, Mrcr};
pub use ratio::{ratio, RatioError, MAX_RATIO_CHARS, MAX_RATIO_STEPS};
pub use retrieval::{grade_retrieval, Retrieval, Shape, MAX_RESPONSE_BYTES};
pub use task::{Grader, Task};

#[cfg(test)]
mod tests;
