//! The decimal-comma reading of a lone number such as `1,22` or `0,111`.
//!
//! A comma between digits is normally a thousands separator (`1,000`) or a list
//! separator (`1,22`). It is read as a decimal point only when context shows a decimal
//! is meant: one side is a single (optionally signed) number with exactly one comma
//! and the other side is a single number written with a decimal point or comma. Then
//! both are rewritten with a point and compared again.

/// Both texts rewritten with a decimal point, when the decimal-comma reading applies.
pub fn reading(answer: &str, gold: &str) -> Option<(String, String)> {
    let (a, g) = (answer.trim(), gold.trim());
    let comma_side = |s: &str| has_shape(s, ',') && !thousands_grouping(s);
    let decimal_side = |s: &str| has_shape(s, '.') || has_shape(s, ',');
    if (comma_side(a) && decimal_side(g)) || (comma_side(g) && decimal_side(a)) {
        return Some((a.replace(',', "."), g.replace(',', ".")));
    }
    None
}

/// `1,000`: a valid thousands grouping keeps its reading (`0,111` is not one).
fn thousands_grouping(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    body.split_once(',').is_some_and(|(int, frac)| {
        (1..=3).contains(&int.len()) && !int.starts_with('0') && frac.len() == 3
    })
}

/// `[+-]digits<sep>digits`, nothing else, with exactly one separator.
fn has_shape(s: &str, sep: char) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let Some((int, frac)) = body.split_once(sep) else {
        return false;
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    digits(int) && digits(frac)
}

#[cfg(test)]
mod tests {
    use super::reading;

    #[test]
    fn only_a_lone_number_against_a_decimal() {
        assert_eq!(
            reading("1,22", "1.22"),
            Some(("1.22".into(), "1.22".into()))
        );
        assert_eq!(
            reading("0.111", "0,111"),
            Some(("0.111".into(), "0.111".into()))
        );
        assert_eq!(reading("1,22", "122"), None);
        assert_eq!(reading("1,000", "1.000"), None);
        assert_eq!(reading("1,22", "1, 22"), None);
        assert_eq!(reading("1,2,3", "1.23"), None);
        assert_eq!(reading("x,2", "1.2"), None);
    }
}
