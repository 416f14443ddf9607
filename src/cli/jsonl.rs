//! Reading JSONL input: every non-blank line must be JSON, or the whole file is
//! refused with the file and line number (exit 2). Blank lines are skipped; nothing
//! else is dropped or reordered.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::{anyhow, Context};
use cascade_verifiers::Sample;

/// One input sample with its 1-based line number.
#[derive(Debug, Clone)]
pub struct NumberedSample {
    pub line: usize,
    pub sample: Sample,
}

/// Reads and parses a whole JSONL file.
pub fn read_samples(path: &Path) -> anyhow::Result<Vec<NumberedSample>> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    parse_lines(BufReader::new(file), &path.display().to_string())
}

/// Parses JSONL from any reader; `name` is used in error messages.
pub fn parse_lines(reader: impl BufRead, name: &str) -> anyhow::Result<Vec<NumberedSample>> {
    let mut samples = Vec::new();
    for (index, line) in reader.split(b'\n').enumerate() {
        let number = index + 1;
        let bytes = line.with_context(|| format!("cannot read {name}"))?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| anyhow!("{name}:{number}: not valid UTF-8 ({e})"))?;
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.trim().is_empty() {
            continue;
        }
        let sample = Sample::from_json_line(text)
            .map_err(|e| anyhow!("{name}:{number}: malformed JSON: {e}"))?;
        samples.push(NumberedSample {
            line: number,
            sample,
        });
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_the_bad_line() {
        let err = parse_lines("{\"id\":\"a\"}\n\n{oops\n".as_bytes(), "in.jsonl").unwrap_err();
        assert_eq!(
            err.to_string().split(": malformed").next(),
            Some("in.jsonl:3")
        );
    }

    #[test]
    fn keeps_order_and_skips_blank_lines() {
        let s = parse_lines("{\"id\":\"b\"}\r\n\n  \n{\"id\":\"a\"}".as_bytes(), "x").unwrap();
        let ids: Vec<_> = s.iter().map(|n| (n.line, n.sample.id().unwrap())).collect();
        assert_eq!(ids, vec![(1, "b"), (4, "a")]);
    }

    proptest! {
        // The reader never panics: any bytes give either samples or an error naming a line.
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            match parse_lines(bytes.as_slice(), "f") {
                Ok(samples) => prop_assert!(samples.iter().all(|s| s.line >= 1)),
                Err(e) => prop_assert!(e.to_string().starts_with("f")),
            }
        }

        #[test]
        fn valid_objects_round_trip(ids in proptest::collection::vec("[a-z0-9\\\\\"\\n]{0,12}", 0..40)) {
            let text: String = ids.iter()
                .map(|id| format!("{}\n", serde_json::json!({"id": id, "response": id})))
                .collect();
            let samples = parse_lines(text.as_bytes(), "f").unwrap();
            let got: Vec<_> = samples.iter().map(|s| s.sample.id().unwrap().to_owned()).collect();
            prop_assert_eq!(got, ids);
        }
    }
}
