//! Graph walks (OpenAI's GraphWalks): a random directed graph as an edge list, and
//! either the parents of a node or the nodes at exactly BFS depth N from a node (the
//! start itself excluded). The answer is always a non-empty set.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{json, Value};

use cascade_verifiers::seeded::SplitMix64;

use super::text::{self, HEX};
use super::Built;

const INTRO: &str = "You are given a directed graph as a list of edges, and an operation to run on it. Run the operation and give the set of nodes it results in. For a breadth-first search (BFS) from a node with depth N, give only the nodes whose shortest distance from that node is exactly N, never the start node. For the parents of a node, give only the nodes with an edge leading to it, never the node itself.";

/// `size` distinct edges (no self-loops) over about `size / 2 + 2` nodes named by six
/// hex digits, in the order drawn.
fn edges(size: usize, rng: &mut SplitMix64) -> Vec<(String, String)> {
    let mut nodes: Vec<String> = Vec::new();
    for _ in 0..size / 2 + 2 {
        let node = text::distinct(rng, HEX, 6, &nodes);
        nodes.push(node);
    }
    let mut seen = BTreeSet::new();
    let mut edges = Vec::with_capacity(size);
    while edges.len() < size {
        let (u, v) = (rng.below(nodes.len()), rng.below(nodes.len()));
        if u != v && seen.insert((u, v)) {
            edges.push((nodes[u].clone(), nodes[v].clone()));
        }
    }
    edges
}

/// The nodes whose shortest distance from `start` is exactly `depth`.
pub fn bfs_layer(edges: &[(String, String)], start: &str, depth: usize) -> BTreeSet<String> {
    let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (u, v) in edges {
        out.entry(u.as_str()).or_default().push(v.as_str());
    }
    let mut distance: BTreeMap<&str, usize> = BTreeMap::from([(start, 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        let d = distance[node];
        for &next in out.get(node).into_iter().flatten() {
            if !distance.contains_key(next) {
                distance.insert(next, d + 1);
                queue.push_back(next);
            }
        }
    }
    distance
        .into_iter()
        .filter(|&(_, d)| d == depth)
        .map(|(n, _)| n.to_owned())
        .collect()
}

/// The graph task with `size` edges: parents of a node, or a BFS layer.
pub(super) fn walk(bfs: bool, size: usize, rng: &mut SplitMix64) -> Built {
    let edges = edges(size.max(1), rng);
    let (operation, answer, problem_type) = if bfs {
        let (start, depth, layer) = bfs_question(&edges, rng);
        (
            format!("Perform a BFS from node {start} with depth {depth}."),
            layer,
            "bfs",
        )
    } else {
        let target = edges[rng.below(edges.len())].1.clone();
        let parents: BTreeSet<String> = edges
            .iter()
            .filter(|(_, v)| *v == target)
            .map(|(u, _)| u.clone())
            .collect();
        (
            format!("Find the parents of node {target}."),
            parents,
            "parents",
        )
    };
    let list: String = edges.iter().map(|(u, v)| format!("{u} -> {v}\n")).collect();
    let content = format!(
        "{INTRO}\n\nThe graph has the following edges:\n{list}\nOperation:\n{operation}\n\nEnd your response with a line of the form: Final Answer: [node1, node2, ...]"
    );
    Built::user(content)
        .with(
            "expected_answer",
            Value::from(answer.into_iter().collect::<Vec<_>>()),
        )
        .with("problem_type", json!(problem_type))
}

/// A start node and depth (1–3) whose layer is not empty: the drawn depth if some
/// start reaches it, else a smaller one (depth 1 from any edge's tail always works).
fn bfs_question(
    edges: &[(String, String)],
    rng: &mut SplitMix64,
) -> (String, usize, BTreeSet<String>) {
    let drawn = rng.range(1, 3) as usize;
    let mut starts: Vec<&str> = edges.iter().map(|(u, _)| u.as_str()).collect();
    starts.dedup();
    let offset = rng.below(starts.len());
    for depth in (1..=drawn).rev() {
        for k in 0..starts.len() {
            let start = starts[(offset + k) % starts.len()];
            let layer = bfs_layer(edges, start, depth);
            if !layer.is_empty() {
                return (start.to_owned(), depth, layer);
            }
        }
    }
    // Not reached: depth 1 from an edge's tail holds its head (no self-loops).
    let (u, v) = edges[0].clone();
    (u, 1, BTreeSet::from([v]))
}
