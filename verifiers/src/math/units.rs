//! Units written after a value (`5 cm`, `12 ft`, `3 hrs`, `8 sq ft`, `60 km/h`).
//!
//! A unit is recognised from [`UNITS`], each with its spellings (`h`, `hr`, `hrs`,
//! `hour`, `hours` are one unit). Areas and volumes may be written `sq ft`,
//! `square feet`, `ft^2` or `ft²` (all `ft^2`), rates `km/h` or `km per hour`.
//! Values are never converted: `5 m` and `500 cm` are different answers, and when both
//! sides carry units the units must be the same. A one-letter unit (`m`, `s`, `h`, …)
//! counts only when a space separates it from the number (`5 m`) or it carries a power
//! (`3m²`): `5m` stays the product of 5 and `m`.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Canonical unit names and their spellings (multi-letter spellings match in any case;
/// one-letter ones only as written).
pub const UNITS: &[(&str, &[&str])] = &[
    (
        "mm",
        &[
            "mm",
            "millimeter",
            "millimeters",
            "millimetre",
            "millimetres",
        ],
    ),
    (
        "cm",
        &[
            "cm",
            "centimeter",
            "centimeters",
            "centimetre",
            "centimetres",
        ],
    ),
    ("m", &["m", "meter", "meters", "metre", "metres"]),
    (
        "km",
        &["km", "kilometer", "kilometers", "kilometre", "kilometres"],
    ),
    ("in", &["in", "inch", "inches"]),
    ("ft", &["ft", "foot", "feet"]),
    ("yd", &["yd", "yds", "yard", "yards"]),
    ("mi", &["mi", "mile", "miles"]),
    ("mg", &["mg", "milligram", "milligrams"]),
    ("g", &["g", "gram", "grams"]),
    ("kg", &["kg", "kgs", "kilogram", "kilograms"]),
    ("lb", &["lb", "lbs", "pound", "pounds"]),
    ("oz", &["oz", "ounce", "ounces"]),
    (
        "ml",
        &[
            "ml",
            "milliliter",
            "milliliters",
            "millilitre",
            "millilitres",
        ],
    ),
    ("L", &["L", "liter", "liters", "litre", "litres"]),
    ("gal", &["gal", "gallon", "gallons"]),
    ("s", &["s", "sec", "secs", "second", "seconds"]),
    ("min", &["min", "mins", "minute", "minutes"]),
    ("h", &["h", "hr", "hrs", "hour", "hours"]),
    ("day", &["day", "days"]),
    ("week", &["wk", "wks", "week", "weeks"]),
    ("month", &["month", "months"]),
    ("year", &["yr", "yrs", "year", "years"]),
    ("mph", &["mph"]),
    ("kph", &["kph", "kmh"]),
    ("dollar", &["dollar", "dollars", "usd"]),
    ("cent", &["cent", "cents"]),
    ("deg", &["deg", "degree", "degrees"]),
    ("rad", &["rad", "rads", "radian", "radians"]),
    ("unit", &["unit", "units"]),
    ("acre", &["acre", "acres"]),
    ("N", &["N", "newton", "newtons"]),
    ("J", &["J", "joule", "joules"]),
    ("W", &["W", "watt", "watts"]),
    ("V", &["V", "volt", "volts"]),
    ("K", &["K", "kelvin"]),
    ("mol", &["mol", "mole", "moles"]),
    ("Pa", &["Pa", "pascal", "pascals"]),
    ("Hz", &["Hz", "hertz"]),
];

/// The canonical name of a unit spelling, if it is one.
pub fn canonical(word: &str) -> Option<&'static str> {
    let one_letter = word.chars().count() == 1;
    UNITS.iter().find_map(|(key, spellings)| {
        spellings
            .iter()
            .any(|s| {
                if one_letter {
                    *s == word
                } else {
                    s.chars().count() > 1 && s.eq_ignore_ascii_case(word)
                }
            })
            .then_some(*key)
    })
}

/// Unit words as stripped from an answer (`["square", "feet"]`, `["cm^2"]`), reduced
/// to canonical keys (`["ft^2"]`, `["cm^2"]`); words that are not units (`apples`)
/// keep their spelling without a plural `s`.
pub fn keys(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut power = "";
    for w in words {
        let (word, written_power) = match w.split_once('^') {
            Some((u, p)) => (u, p),
            None => (w.as_str(), ""),
        };
        match word.to_ascii_lowercase().trim_end_matches('.') {
            "sq" | "square" => power = "2",
            "cu" | "cubic" => power = "3",
            "per" => {}
            lower => {
                let key = canonical(word)
                    .or_else(|| canonical(lower))
                    .map_or_else(|| lower.trim_end_matches('s').to_owned(), str::to_owned);
                let p = if written_power.is_empty() {
                    power
                } else {
                    written_power
                };
                out.push(if p.is_empty() {
                    key
                } else {
                    format!("{key}^{p}")
                });
                power = "";
            }
        }
    }
    out
}

/// A plain-text unit phrase at the end of an answer, after a value.
static TRAILING_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    let power = r"(?:\s*(?:\^\s*\{?\s*(-?[1-9])\s*\}?|([²³])))?";
    let unit = format!(r"(?:(sq|square|cubic|cu)\.?\s+)?([A-Za-z]+)\.?{power}");
    let rate = format!(r"(?:\s*(?:/|\s+per\s+)\s*([A-Za-z]+){power})?");
    Regex::new(&format!(r"^(.*?(?:[0-9}})π%]|\\pi))(\s*){unit}{rate}\s*$"))
        .expect("the unit pattern is valid")
});

/// Splits a plain-text unit off the end of an answer: `("8", ["ft^2"])` for `8 sq ft`.
/// `None` when the answer does not end with a known unit after a value.
pub fn split_trailing(src: &str) -> Option<(&str, Vec<String>)> {
    let trimmed = src.trim_end().trim_end_matches(['.', '$']).trim_end();
    if trimmed.len() > 512 {
        return None;
    }
    let caps = TRAILING_UNIT.captures(trimmed)?;
    let value = caps.get(1)?.as_str();
    let spaced = !caps.get(2)?.as_str().is_empty() || caps.get(3).is_some();
    let word = caps.get(4)?.as_str();
    let key = canonical(word)?;
    let squared = |k: usize| {
        caps.get(k).map(|m| m.as_str()).or_else(|| {
            caps.get(k + 1)
                .map(|m| if m.as_str() == "²" { "2" } else { "3" })
        })
    };
    let mut power = squared(5);
    if let Some(prefix) = caps.get(3) {
        power = Some(if prefix.as_str().starts_with('s') {
            "2"
        } else {
            "3"
        });
    }
    // `5m` stays a product; `5 m` and `3m²` are metres.
    if word.chars().count() == 1 && !spaced && power.is_none() {
        return None;
    }
    let mut out = vec![match power {
        Some(p) => format!("{key}^{p}"),
        None => key.to_owned(),
    }];
    if let Some(per) = caps.get(7) {
        let per_key = canonical(per.as_str())?;
        out[0] = match squared(8) {
            Some(p) => format!("{}/{per_key}^{p}", out[0]),
            None => format!("{}/{per_key}", out[0]),
        };
    }
    Some((value.trim_end(), out))
}

/// Text wrappers whose content may be a unit (`\mathrm{~km}`, `\text{ s}`).
const WRAPPERS: [&str; 5] = ["\\mathrm{", "\\text{", "\\textrm{", "\\mbox{", "\\rm{"];

/// `src` with every text wrapper that holds only a unit phrase written as plain text:
/// `60 \mathrm{~km} / \mathrm{h}` → `60  km /  h`, `2 \text{ s}` → `2  s`, so that
/// [`split_trailing`] reads the unit (`km/h`, `s`) and a one-letter unit inside a
/// wrapper is not taken for a variable. Other wrappers are kept.
pub fn plain_unit_wrappers(src: &str) -> Cow<'_, str> {
    if !WRAPPERS.iter().any(|w| src.contains(w)) {
        return Cow::Borrowed(src);
    }
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some((at, w)) = WRAPPERS
        .iter()
        .filter_map(|w| rest.find(w).map(|at| (at, *w)))
        .min()
    {
        let body = &rest[at + w.len()..];
        let close = body
            .find(['{', '}'])
            .filter(|&k| body.as_bytes()[k] == b'}');
        match close.map(|k| &body[..k]).filter(|c| is_unit_phrase(c)) {
            Some(content) => {
                out.push_str(&rest[..at]);
                out.push(' ');
                out.push_str(content.replace('~', " ").trim());
                rest = &body[content.len() + 1..];
            }
            None => {
                out.push_str(&rest[..at + w.len()]);
                rest = body;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Whether wrapper content is only unit words (`~km`, ` s`, `km/h`, `m/s^2`).
fn is_unit_phrase(content: &str) -> bool {
    let words: Vec<&str> = content
        .split(|c: char| c.is_whitespace() || c == '~' || c == '/')
        .filter(|w| !w.is_empty())
        .collect();
    !words.is_empty()
        && words.len() <= 4
        && words.iter().all(|w| {
            let word = w.split_once('^').map_or(*w, |(u, _)| u);
            // `\text{ in }` is the word, far more often than inches.
            matches!(word, "per" | "sq" | "square" | "cubic")
                || (word != "in" && canonical(word).is_some())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_wrappers_become_plain_text() {
        assert_eq!(
            plain_unit_wrappers("60 \\mathrm{~km} / \\mathrm{h}"),
            "60  km /  h"
        );
        assert_eq!(plain_unit_wrappers("2 \\text{ s}"), "2  s");
        assert_eq!(plain_unit_wrappers("\\text{(C) } 12"), "\\text{(C) } 12");
        assert_eq!(plain_unit_wrappers("x \\text{ if } y"), "x \\text{ if } y");
        assert_eq!(
            split("60  km /  h"),
            Some(("60".into(), vec!["km/h".into()]))
        );
    }

    fn split(s: &str) -> Option<(String, Vec<String>)> {
        split_trailing(s).map(|(v, u)| (v.to_owned(), u))
    }

    #[test]
    fn trailing_units() {
        assert_eq!(split("5 cm"), Some(("5".into(), vec!["cm".into()])));
        assert_eq!(split("12ft"), Some(("12".into(), vec!["ft".into()])));
        assert_eq!(split("3 hrs."), Some(("3".into(), vec!["h".into()])));
        assert_eq!(split("8 sq ft"), Some(("8".into(), vec!["ft^2".into()])));
        assert_eq!(split("8 ft^2"), Some(("8".into(), vec!["ft^2".into()])));
        assert_eq!(split("8 ft²"), Some(("8".into(), vec!["ft^2".into()])));
        assert_eq!(split("60 km/h"), Some(("60".into(), vec!["km/h".into()])));
        assert_eq!(
            split("60 miles per hour"),
            Some(("60".into(), vec!["mi/h".into()]))
        );
        assert_eq!(
            split("2\\sqrt{3} cm"),
            Some(("2\\sqrt{3}".into(), vec!["cm".into()]))
        );
        assert_eq!(split("5 m"), Some(("5".into(), vec!["m".into()])));
        assert_eq!(split("5m"), None);
        assert_eq!(split("5 apples"), None);
        assert_eq!(split("x + y"), None);
        assert_eq!(split("5\\text{ cm}"), None);
    }

    #[test]
    fn keys_unify_spellings() {
        let k = |ws: &[&str]| keys(&ws.iter().map(|w| w.to_string()).collect::<Vec<_>>());
        assert_eq!(k(&["square", "feet"]), vec!["ft^2"]);
        assert_eq!(k(&["cm^2"]), vec!["cm^2"]);
        assert_eq!(k(&["hours"]), vec!["h"]);
        assert_eq!(k(&["apples"]), vec!["apple"]);
    }
}
