use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// A stand-in for a byte-level tokenizer with a ChatML template: one token per
/// content byte plus a fixed overhead per message and for the generation prompt.
fn bytes(messages: &[Value]) -> Result<usize, String> {
    let content: usize = messages
        .iter()
        .map(|m| m["content"].as_str().unwrap().len() + 8)
        .sum();
    Ok(content + 11)
}

fn options(tasks: &[Task], tokens: usize, seed: u64) -> Options {
    Options {
        count: 2 * tasks.len().max(1),
        seed,
        tokens,
        tasks: tasks.to_vec(),
        terse: false,
    }
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

fn prompt(row: &Value) -> &str {
    row["responses_create_params"]["input"][0]["content"]
        .as_str()
        .unwrap()
}

#[test]
fn same_options_same_rows_and_lengths_are_true_and_near_the_target() {
    let opts = Options {
        count: 16,
        ..options(&[], 1500, 9)
    };
    let rows = generate(&opts, &bytes).unwrap();
    assert_eq!(rows, generate(&opts, &bytes).unwrap());
    assert_ne!(
        rows,
        generate(
            &Options {
                seed: 10,
                ..opts.clone()
            },
            &bytes
        )
        .unwrap()
    );
    assert_eq!(rows.len(), 16);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["task"], Task::ALL[i % 8].as_str());
        let messages = row["responses_create_params"]["input"].as_array().unwrap();
        let length = row["token_length"].as_u64().unwrap() as usize;
        assert_eq!(length, bytes(messages).unwrap(), "{row}");
        // Within one filler unit (an MRCR exchange is the largest, ~300 bytes).
        assert!(length <= 1500 && length > 1100, "{} {length}", row["task"]);
        assert_eq!(row["target_tokens"], 1500);
    }
}

#[test]
fn too_few_tokens_is_an_error_naming_the_task() {
    let err = generate(&options(&[Task::GraphBfs], 40, 1), &bytes).unwrap_err();
    assert!(
        matches!(
            err,
            GenError::TooFewTokens {
                task: Task::GraphBfs,
                tokens: 40,
                ..
            }
        ),
        "{err}"
    );
    let failing = |_: &[Value]| -> Result<usize, String> { Err("no tokenizer".into()) };
    assert_eq!(
        generate(&options(&[], 100, 1), &failing).unwrap_err(),
        GenError::Count("no tokenizer".into())
    );
}

/// Needles: every expected value is hidden under an asked key; distractors are not
/// expected; the layouts have the right counts.
#[test]
fn needle_rows_hide_exactly_their_answers() {
    let tasks = [
        Task::NiahSingle,
        Task::NiahMultikey,
        Task::NiahMultivalue,
        Task::NiahMultiquery,
    ];
    for row in generate(&options(&tasks, 800, 3), &bytes).unwrap() {
        let text = prompt(&row);
        let (haystack, question) = text.rsplit_once("\n\n").unwrap();
        let mut by_key: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for needle in haystack
            .split("One of the special magic numbers for ")
            .skip(1)
        {
            let (key, rest) = needle.split_once(" is: ").unwrap();
            let value: String = rest.chars().take_while(char::is_ascii_digit).collect();
            assert_eq!(value.len(), 7);
            by_key.entry(key.to_owned()).or_default().push(value);
        }
        let asked: Vec<&String> = by_key
            .keys()
            .filter(|k| question.contains(k.as_str()))
            .collect();
        let expected: BTreeSet<String> = asked.iter().flat_map(|k| by_key[*k].clone()).collect();
        assert_eq!(expected, strings(&row["expected_answer"]), "{row}");
        let (keys, values) = (by_key.len(), by_key.values().map(Vec::len).sum::<usize>());
        match Task::parse(row["task"].as_str().unwrap()).unwrap() {
            Task::NiahSingle => assert_eq!((keys, values, asked.len()), (1, 1, 1)),
            Task::NiahMultikey => assert!(keys >= 3 && asked.len() == 1 && values == keys),
            Task::NiahMultivalue => assert!(keys == 1 && values >= 2),
            _ => assert!(asked.len() >= 2 && keys > asked.len()),
        }
    }
}

/// Terse rows (the tiny model's): `k=V. ` needles with 1–2 digit values, `k=?` last,
/// and no other digit anywhere.
#[test]
fn terse_needles_are_short_and_the_only_digits() {
    let opts = Options {
        count: 40,
        seed: 5,
        tokens: 96,
        tasks: vec![Task::NiahSingle],
        terse: true,
    };
    let rows = generate(&opts, &bytes).unwrap();
    let mut one_digit = 0;
    for row in &rows {
        let text = prompt(row);
        let expected = strings(&row["expected_answer"]);
        let value = expected.iter().next().unwrap();
        assert!(value.len() <= 2 && expected.len() == 1);
        one_digit += usize::from(value.len() == 1);
        let (haystack, question) = text.rsplit_once('\n').unwrap();
        let key = question.strip_suffix("=?").unwrap();
        assert_eq!(key.len(), 1);
        assert!(haystack.contains(&format!("{key}={value}.")), "{text}");
        let digits: String = text.chars().filter(char::is_ascii_digit).collect();
        assert_eq!(&digits, value);
        assert!(row["token_length"].as_u64().unwrap() <= 96);
    }
    assert!(one_digit > 5 && one_digit < 35, "{one_digit}");
}

/// Variable tracking: resolving the statements of the prompt gives the answer.
#[test]
fn variable_rows_answer_every_variable_holding_the_value() {
    for row in generate(&options(&[Task::VariableTracking], 900, 4), &bytes).unwrap() {
        let text = prompt(&row);
        let mut value: BTreeMap<String, String> = BTreeMap::new();
        for piece in text.lines().flat_map(|line| line.split(". ")) {
            let Some((name, rhs)) = piece.strip_prefix("VAR ").and_then(|p| p.split_once(" = "))
            else {
                continue;
            };
            let rhs = rhs.strip_prefix("VAR ").unwrap_or(rhs);
            let rhs: String = rhs
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            let resolved = value.get(&rhs).cloned().unwrap_or(rhs);
            value.insert(name.to_owned(), resolved);
        }
        let asked: String = text
            .split("the value ")
            .nth(1)
            .unwrap()
            .chars()
            .take(5)
            .collect();
        let holding: BTreeSet<String> = value
            .iter()
            .filter(|(_, v)| **v == asked)
            .map(|(k, _)| k.clone())
            .collect();
        assert!(holding.len() >= 2);
        assert_eq!(holding, strings(&row["expected_answer"]), "{text}");
    }
}

/// Graphs: recomputing the operation from the printed edges gives the answer.
#[test]
fn graph_rows_answer_their_operation() {
    for row in generate(
        &options(&[Task::GraphParents, Task::GraphBfs], 1200, 6),
        &bytes,
    )
    .unwrap()
    {
        let text = prompt(&row);
        let edges: Vec<(String, String)> = text
            .lines()
            .filter_map(|l| l.split_once(" -> "))
            .map(|(u, v)| (u.to_owned(), v.to_owned()))
            .collect();
        assert!(edges.len() > 10);
        let operation = text
            .split("Operation:\n")
            .nth(1)
            .unwrap()
            .lines()
            .next()
            .unwrap();
        let words: Vec<&str> = operation.trim_end_matches('.').split(' ').collect();
        let answer: BTreeSet<String> = if row["problem_type"] == "bfs" {
            bfs_layer(&edges, words[5], words[8].parse().unwrap())
        } else {
            let target = words[5];
            edges
                .iter()
                .filter(|(_, v)| v == target)
                .map(|(u, _)| u.clone())
                .collect()
        };
        assert!(!answer.is_empty());
        assert_eq!(answer, strings(&row["expected_answer"]), "{operation}");
    }
}

#[test]
fn bfs_layers_are_exact_shortest_distances() {
    let e = |u: &str, v: &str| (u.to_owned(), v.to_owned());
    let edges = [
        e("a", "b"),
        e("b", "c"),
        e("a", "c"),
        e("c", "d"),
        e("d", "a"),
    ];
    let layer = |d| bfs_layer(&edges, "a", d).into_iter().collect::<Vec<_>>();
    assert_eq!(layer(1), ["b", "c"]);
    assert_eq!(layer(2), ["d"]);
    // The start is never in a layer, even when a cycle leads back to it.
    assert!(layer(3).is_empty());
}

/// MRCR: the expected answer is the prefix and the asked occurrence's reply.
#[test]
fn mrcr_rows_ask_for_the_nth_occurrence() {
    for row in generate(&options(&[Task::Mrcr], 2500, 8), &bytes).unwrap() {
        let messages = row["responses_create_params"]["input"].as_array().unwrap();
        let content = |m: &Value| m["content"].as_str().unwrap().to_owned();
        let question = content(messages.last().unwrap());
        let prefix = row["random_string_to_prepend"].as_str().unwrap();
        let rest = question
            .strip_prefix(&format!("Prepend {prefix} to the "))
            .unwrap();
        let (ordinal, rest) = rest.split_once(" (1 indexed) ").unwrap();
        let n: usize = ordinal
            .trim_end_matches(char::is_alphabetic)
            .parse()
            .unwrap();
        let request = format!("Write a {}.", rest.split_once(". Do not").unwrap().0);
        let replies: Vec<String> = messages
            .chunks(2)
            .filter(|pair| pair.len() == 2 && content(&pair[0]) == request)
            .map(|pair| content(&pair[1]))
            .collect();
        assert_eq!(replies.len() as u64, row["n_needles"].as_u64().unwrap());
        assert!(replies.len() >= 2 && messages.len() > 2 * replies.len() + 1);
        assert_eq!(
            row["expected_answer"].as_str().unwrap(),
            format!("{prefix}{}", replies[n - 1])
        );
    }
}

#[test]
fn ordinals() {
    let names: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101]
        .into_iter()
        .map(text::ordinal)
        .collect();
    assert_eq!(
        names,
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]
    );
}
