//! The long-context task kinds, shared by the generator that writes them and the
//! environment that grades them.

use std::fmt;

/// One kind of long-context task (the row's `task` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Task {
    /// One needle; answer its value.
    NiahSingle,
    /// The asked needle among distractor needles with other keys.
    NiahMultikey,
    /// One key with several values; answer them all.
    NiahMultivalue,
    /// Several keys asked at once, among distractors; answer every value.
    NiahMultiquery,
    /// Chains of `VAR X = …` assignments; answer every variable holding a value.
    VariableTracking,
    /// An edge list; answer the parents of a node.
    GraphParents,
    /// An edge list; answer the nodes at exactly BFS depth N from a node.
    GraphBfs,
    /// A long conversation; reproduce the Nth item of a kind behind a prefix.
    Mrcr,
}

/// How a task's answer is graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grader {
    /// [`grade_retrieval`](super::grade_retrieval) over `expected_answer`.
    Retrieval,
    /// [`grade_graph`](super::grade_graph): F1 of the `Final Answer: [...]` set.
    Graph,
    /// [`grade_mrcr`](super::grade_mrcr): prefix, then the similarity ratio.
    Mrcr,
}

impl Task {
    pub const ALL: [Task; 8] = [
        Task::NiahSingle,
        Task::NiahMultikey,
        Task::NiahMultivalue,
        Task::NiahMultiquery,
        Task::VariableTracking,
        Task::GraphParents,
        Task::GraphBfs,
        Task::Mrcr,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Task::NiahSingle => "niah_single",
            Task::NiahMultikey => "niah_multikey",
            Task::NiahMultivalue => "niah_multivalue",
            Task::NiahMultiquery => "niah_multiquery",
            Task::VariableTracking => "variable_tracking",
            Task::GraphParents => "graph_parents",
            Task::GraphBfs => "graph_bfs",
            Task::Mrcr => "mrcr",
        }
    }

    /// The task of a name written by [`Task::as_str`].
    pub fn parse(name: &str) -> Option<Task> {
        Task::ALL.into_iter().find(|t| t.as_str() == name)
    }

    pub fn grader(self) -> Grader {
        match self {
            Task::GraphParents | Task::GraphBfs => Grader::Graph,
            Task::Mrcr => Grader::Mrcr,
            _ => Grader::Retrieval,
        }
    }
}

impl fmt::Display for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
