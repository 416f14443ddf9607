use std::collections::BTreeSet;

use super::*;

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Values computed with Python 3.11's `difflib.SequenceMatcher(None, a, b).ratio()`.
#[test]
fn ratio_equals_pythons_difflib() {
    let fox = "The quick brown fox jumps over the lazy dog. ".repeat(6);
    let cat = "The quick brown cat jumps over the lazy dog! ".repeat(5) + "The end.";
    let many_a = "a".repeat(250) + "b";
    let cases: [(&str, &str, f64); 8] = [
        ("abcd", "bcde", 0.75),
        ("", "", 1.0),
        ("abc", "", 0.0),
        (
            "private Thread currentThread;",
            "private volatile Thread currentThread;",
            0.8656716417910447,
        ),
        ("héllo wörld 🙂", "hello world 🙂", 0.8461538461538461),
        ("qwertyuiop", "poiuytrewq", 0.1),
        // `a` is popular in b (251 characters): the match on `b` widens over it.
        ("aaaaaaaaaab", &many_a, 0.08396946564885496),
        (&fox, &cat, 0.06759443339960239),
    ];
    for (a, b, expected) in cases {
        assert_eq!(ratio(a, b).unwrap(), expected, "{a:?} vs {b:?}");
    }
}

/// Autojunk: with `b` of 200+ characters, characters more frequent than 1% are left
/// out of the index, so the repeated sentences barely match (Python: 0.0676; with
/// `autojunk=False` it would be 0.8429).
#[test]
fn ratio_applies_autojunk_from_200_characters() {
    let fox = "The quick brown fox jumps over the lazy dog. ".repeat(6);
    let cat = "The quick brown cat jumps over the lazy dog! ".repeat(5) + "The end.";
    assert!(ratio(&fox, &cat).unwrap() < 0.1);
    // Below 200 characters nothing is junk: one sentence each matches closely.
    let short = ratio(&fox[..45], &cat[..45]).unwrap();
    assert!(short > 0.9, "{short}");
}

#[test]
fn ratio_edge_cases() {
    assert_eq!(ratio("", "").unwrap(), 1.0);
    assert_eq!(ratio("", "x").unwrap(), 0.0);
    assert_eq!(ratio("same text", "same text").unwrap(), 1.0);
    let long = "ab".repeat(MAX_RATIO_CHARS / 2 + 1);
    assert!(matches!(
        ratio(&long, "ab"),
        Err(RatioError::TooLong {
            side: "the response",
            ..
        })
    ));
    assert!(matches!(
        ratio("ab", &long),
        Err(RatioError::TooLong { .. })
    ));
}

/// The largest inputs allowed finish quickly (or are refused), whatever their shape.
#[test]
fn ratio_is_bounded_at_the_size_limit() {
    let distinct: Vec<char> = (0..200u32)
        .map(|i| char::from_u32(0x4E00 + i).unwrap())
        .collect();
    let a: String = (0..MAX_RATIO_CHARS)
        .map(|i| distinct[(i * 7) % 200])
        .collect();
    let b: String = (0..MAX_RATIO_CHARS)
        .map(|i| distinct[(i * 13) % 200])
        .collect();
    let start = std::time::Instant::now();
    let result = ratio(&a, &b);
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    assert!(result.is_ok() || result == Err(RatioError::TooMuchWork));
    assert_eq!(ratio(&a, &a).unwrap(), 1.0);
}

#[test]
fn mrcr_needs_the_prefix_then_grades_the_ratio() {
    let expected = "aYooSG8CQgA poem about tapirs.";
    let graded = grade_mrcr("aYooSG8CQgA poem about tapirs.", expected, "aYooSG8CQg").unwrap();
    assert_eq!(
        graded,
        Mrcr {
            score: 1.0,
            prefix_matched: true
        }
    );
    // Missing or misplaced prefix: 0, however good the rest.
    let missing = grade_mrcr("A poem about tapirs.", expected, "aYooSG8CQg").unwrap();
    assert_eq!(
        missing,
        Mrcr {
            score: 0.0,
            prefix_matched: false
        }
    );
    let late = grade_mrcr(
        "Sure! aYooSG8CQgA poem about tapirs.",
        expected,
        "aYooSG8CQg",
    )
    .unwrap();
    assert_eq!(late.score, 0.0);
    // Surrounding whitespace is trimmed (Gym's rule).
    assert_eq!(
        grade_mrcr(
            "\n aYooSG8CQgA poem about tapirs.\n",
            expected,
            "aYooSG8CQg"
        )
        .unwrap()
        .score,
        1.0
    );
    // Prefix alone against an empty item: both empty, 1; against a non-empty one, 0.
    assert_eq!(grade_mrcr("XY", "XY", "XY").unwrap().score, 1.0);
    assert_eq!(
        grade_mrcr("XY", "XYabc", "XY").unwrap(),
        Mrcr {
            score: 0.0,
            prefix_matched: true
        }
    );
    // Partial answers: the ratio of the rests ("abcd" vs "bcde").
    assert_eq!(grade_mrcr("XYabcd", "XYbcde", "XY").unwrap().score, 0.75);
    // An empty prefix is always there.
    assert_eq!(grade_mrcr("abcd", "bcde", "").unwrap().score, 0.75);
}

#[test]
fn final_answer_is_read_from_the_last_non_empty_line_only() {
    let nodes = |items: &[&str]| FinalAnswer::Nodes(items.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        parse_final_answer("Thinking...\nFinal Answer: [a1, b2]\n\n"),
        nodes(&["a1", "b2"])
    );
    assert_eq!(
        parse_final_answer("Final Answer:[a1,b2 ,a1]"),
        nodes(&["a1", "b2", "a1"])
    );
    // Several answer lines: only the last line counts.
    assert_eq!(
        parse_final_answer("Final Answer: [x]\nFinal Answer: [y]"),
        nodes(&["y"])
    );
    assert_eq!(
        parse_final_answer("Final Answer: [x]\nso that is it"),
        FinalAnswer::Missing
    );
    // Missing, malformed or empty responses.
    assert_eq!(parse_final_answer(""), FinalAnswer::Missing);
    assert_eq!(parse_final_answer("a1, b2"), FinalAnswer::Missing);
    assert_eq!(
        parse_final_answer("Final Answer: a1, b2"),
        FinalAnswer::Missing
    );
    assert_eq!(
        parse_final_answer("final answer: [a1]"),
        FinalAnswer::Missing
    );
    // Explicit empty answers.
    assert_eq!(parse_final_answer("Final Answer: []"), nodes(&[]));
    assert_eq!(parse_final_answer("Final Answer: [ , ]"), nodes(&[]));
    // Quotes are kept, as GraphWalks keeps them.
    assert_eq!(parse_final_answer("Final Answer: ['a1']"), nodes(&["'a1'"]));
}

#[test]
fn graph_f1_edge_cases() {
    let truth = set(&["a", "b", "c", "d"]);
    assert_eq!(set_f1(&set(&["a", "b", "c", "d"]), &truth), 1.0);
    // P = 1/2, R = 1/4: F1 = 1/3.
    assert!((set_f1(&set(&["a", "x"]), &truth) - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(set_f1(&set(&["x"]), &truth), 0.0);
    assert_eq!(set_f1(&set(&[]), &set(&[])), 1.0);
    assert_eq!(set_f1(&set(&[]), &truth), 0.0);
    assert_eq!(set_f1(&set(&["a"]), &set(&[])), 0.0);
    // Duplicates in the answer count once.
    let (score, _) = grade_graph("Final Answer: [a, a, a, b, c, d]", &truth);
    assert_eq!(score, 1.0);
    let (score, answer) = grade_graph("The parents are a, b, c, d.", &truth);
    assert_eq!((score, answer), (0.0, FinalAnswer::Missing));
    assert_eq!(grade_graph("Final Answer: []", &set(&[])).0, 1.0);
}

#[test]
fn retrieval_numbers_are_whole_runs_and_extras_cost() {
    let expected = set(&["4512"]);
    let one = grade_retrieval("The special magic number is 4512.", &expected);
    assert_eq!((one.score, one.shape), (1.0, Shape::Numbers));
    // Part of a longer number is not the number.
    assert_eq!(grade_retrieval("45123", &expected).score, 0.0);
    // Listing everything does not pay: Jaccard 1/3.
    let listed = grade_retrieval("4512, 7781 or 1200", &expected);
    assert!((listed.score - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(listed.extra, vec!["1200".to_string(), "7781".to_string()]);
    // Several values: the fraction found (RULER's string_match_all when no extras).
    let two = set(&["12", "7"]);
    assert_eq!(grade_retrieval("7", &two).score, 0.5);
    assert_eq!(grade_retrieval("7 and 12 and 7", &two).score, 1.0);
    assert_eq!(grade_retrieval("", &two).score, 0.0);
    // "0123456789" is one number, none of the asked ones.
    assert_eq!(grade_retrieval("0123456789", &set(&["7"])).score, 0.0);
}

#[test]
fn retrieval_names_are_capital_words_of_the_expected_lengths() {
    let expected = set(&["QWERT", "ASDFG"]);
    let graded = grade_retrieval("VAR QWERT and VAR ASDFG", &expected);
    assert_eq!((graded.score, graded.shape), (1.0, Shape::Names));
    assert_eq!(grade_retrieval("qwert asdfg", &expected).score, 0.0);
    let extra = grade_retrieval("QWERT, ASDFG, ZXCVB", &expected);
    assert!((extra.score - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(grade_retrieval("QWERTY", &expected).score, 0.0);
}

#[test]
fn retrieval_falls_back_to_rulers_substrings() {
    let expected = set(&["3f2a-9b", "Blue-Fish"]);
    let graded = grade_retrieval("the codes are 3F2A-9Bx and more", &expected);
    assert_eq!((graded.score, graded.shape), (0.5, Shape::Substrings));
}

#[test]
fn tasks_round_trip_their_names() {
    for task in Task::ALL {
        assert_eq!(Task::parse(task.as_str()), Some(task));
    }
    assert_eq!(Task::parse("niah"), None);
    assert_eq!(Task::GraphBfs.grader(), Grader::Graph);
    assert_eq!(Task::VariableTracking.grader(), Grader::Retrieval);
}
