//! Dates and times as the tools accept them: `YYYY-MM-DD`, optionally followed by
//! ` HH:MM`, ` HH:MM:SS` (or `T` instead of the space, and fractional seconds).
//! pandas' `Timestamp` parses more spellings ("Dec 1 2023"); cascade takes the ISO
//! forms only, which is what the tool descriptions ask for.

/// The time Gym's workplace treats as now: sent emails carry it.
pub const NOW: &str = "2023-11-30 23:59:00";

/// The canonical `YYYY-MM-DD HH:MM:SS` of a timestamp, or `None` when it is not one.
/// Canonical strings order as the times they stand for.
pub fn canonical(text: &str) -> Option<String> {
    let text = text.trim();
    let (date, time) = match text.find([' ', 'T']) {
        Some(i) => (&text[..i], text[i + 1..].trim()),
        None => (text, ""),
    };
    let (y, m, d) = date_parts(date)?;
    let (hh, mm, ss) = if time.is_empty() {
        (0, 0, 0)
    } else {
        time_parts(time)?
    };
    Some(format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02}"))
}

/// The `YYYY-MM-DD` date of a timestamp, or `None`.
pub fn date(text: &str) -> Option<String> {
    canonical(text).map(|c| c[..10].to_owned())
}

fn number(part: &str, digits: usize) -> Option<u32> {
    if part.len() != digits || !part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    part.parse().ok()
}

fn date_parts(date: &str) -> Option<(u32, u32, u32)> {
    let mut parts = date.split('-');
    let y = number(parts.next()?, 4)?;
    let m = number(parts.next()?, 2)?;
    let d = number(parts.next()?, 2)?;
    if parts.next().is_some() || !(1..=12).contains(&m) {
        return None;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (1..=days).contains(&d).then_some((y, m, d))
}

fn time_parts(time: &str) -> Option<(u32, u32, u32)> {
    let time = time.split('.').next()?;
    let mut parts = time.split(':');
    let hh = number(parts.next()?, 2)?;
    let mm = number(parts.next()?, 2)?;
    let ss = match parts.next() {
        Some(s) => number(s, 2)?,
        None => 0,
    };
    if parts.next().is_some() || hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    Some((hh, mm, ss))
}

/// Python's `int(text)` for the decimal forms tools meet: surrounding spaces and a sign
/// allowed.
pub fn python_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_iso_timestamps_only() {
        assert_eq!(canonical("2023-12-01").unwrap(), "2023-12-01 00:00:00");
        assert_eq!(
            canonical("2023-12-01T09:30").unwrap(),
            "2023-12-01 09:30:00"
        );
        assert_eq!(
            canonical("2024-02-29 18:00:05.5").unwrap(),
            "2024-02-29 18:00:05"
        );
        for bad in [
            "2023-02-29",
            "2023-13-01",
            "tomorrow",
            "2023-12-01 25:00",
            "",
        ] {
            assert_eq!(canonical(bad), None, "{bad}");
        }
        assert_eq!(python_int(" +30 "), Some(30));
        assert_eq!(python_int("3.5"), None);
    }
}
