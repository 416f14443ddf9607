//! A maximum bipartite matching between reference calls and predicted calls (Kuhn's
//! augmenting paths). BFCL's `parallel_function_checker_no_order` matches greedily,
//! reference by reference, and so can miss a complete matching that exists (when an
//! early reference takes a call a later one needed); this finds one whenever it exists.

/// `edges[i][j]`: reference `i` accepts call `j`. Returns, per call, the reference it
/// is matched to. Deterministic: references and calls are tried in index order.
pub fn maximum_matching(edges: &[Vec<bool>], calls: usize) -> Vec<Option<usize>> {
    let mut owner: Vec<Option<usize>> = vec![None; calls];
    for reference in 0..edges.len() {
        let mut seen = vec![false; calls];
        augment(reference, edges, &mut seen, &mut owner);
    }
    owner
}

fn augment(
    reference: usize,
    edges: &[Vec<bool>],
    seen: &mut [bool],
    owner: &mut [Option<usize>],
) -> bool {
    for call in 0..owner.len() {
        if !edges[reference][call] || seen[call] {
            continue;
        }
        seen[call] = true;
        // Recursion depth is at most the number of references (capped by MAX_CALLS).
        let free = match owner[call] {
            None => true,
            Some(other) => augment(other, edges, seen, owner),
        };
        if free {
            owner[call] = Some(reference);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_matching_greedy_misses() {
        // Reference 0 accepts calls 0 and 1, reference 1 only call 0: greedy gives
        // call 0 to reference 0 and leaves reference 1 without one.
        let edges = vec![vec![true, true], vec![true, false]];
        assert_eq!(maximum_matching(&edges, 2), vec![Some(1), Some(0)]);
        let none = vec![vec![false, false], vec![true, false]];
        assert_eq!(maximum_matching(&none, 2), vec![Some(1), None]);
        assert_eq!(maximum_matching(&[], 0), Vec::<Option<usize>>::new());
    }
}
