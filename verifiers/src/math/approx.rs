//! The opt-in `approx` setting: for datasets whose gold answers are themselves rounded.
//!
//! By default a decimal equals a value only when it is exactly equal (`0.625` = `5/8`,
//! `0.\overline{3}` = `1/3`, but `0.63` ≠ `5/8` and `3.14` ≠ `π`). With `approx`, two
//! constant values that are not exactly equal still match when they agree to a number
//! of significant digits, or within a relative tolerance of the gold value.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

/// How close a value must be to a gold value under the `approx` setting.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "ApproxSpec")]
pub enum Approx {
    /// Both values rounded to this many significant digits are the same number
    /// (`3` digits: `3.14` = `π`, `0.333` = `1/3`, `0.33` ≠ `1/3`).
    SignificantDigits(u32),
    /// `|answer − gold| ≤ tolerance · |gold|` (`|answer| ≤ tolerance` for a zero gold).
    RelativeTolerance(f64),
}

/// Options of one check. The default is exact comparison.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MathOptions {
    /// Opt-in rounding for rounded gold answers; `None` compares exactly.
    pub approx: Option<Approx>,
}

/// Why an `approx` setting was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("approx must be a number of significant digits (1 to 17, e.g. `3` or `sig:3`) or a relative tolerance below 1 (e.g. `1e-3` or `rel:1e-3`), not `{0}`")]
pub struct ApproxError(String);

/// Most significant digits a double-precision comparison resolves.
const MAX_DIGITS: u32 = 17;

impl FromStr for Approx {
    type Err = ApproxError;

    /// `3` or `sig:3` (significant digits), `0.001`, `1e-3` or `rel:1e-3` (tolerance).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ApproxError(s.to_owned());
        let t = s.trim();
        if let Some(d) = t.strip_prefix("sig:") {
            let d: u32 = d.trim().parse().map_err(|_| bad())?;
            return Approx::digits(d).ok_or_else(bad);
        }
        if let Some(r) = t.strip_prefix("rel:") {
            let r: f64 = r.trim().parse().map_err(|_| bad())?;
            return Approx::tolerance(r).ok_or_else(bad);
        }
        if let Ok(d) = t.parse::<u32>() {
            return Approx::digits(d).ok_or_else(bad);
        }
        let r: f64 = t.parse().map_err(|_| bad())?;
        Approx::tolerance(r).ok_or_else(bad)
    }
}

impl Approx {
    fn digits(d: u32) -> Option<Approx> {
        (1..=MAX_DIGITS)
            .contains(&d)
            .then_some(Approx::SignificantDigits(d))
    }

    fn tolerance(r: f64) -> Option<Approx> {
        (r.is_finite() && r > 0.0 && r < 1.0).then_some(Approx::RelativeTolerance(r))
    }

    /// Whether `answer` is close enough to `gold` (both finite reals).
    pub fn accepts(self, gold: f64, answer: f64) -> bool {
        if !gold.is_finite() || !answer.is_finite() {
            return false;
        }
        match self {
            Approx::SignificantDigits(d) => {
                let round = |v: f64| format!("{:.*e}", (d - 1) as usize, v);
                round(gold) == round(answer)
            }
            Approx::RelativeTolerance(r) => (answer - gold).abs() <= r * gold.abs(),
        }
    }
}

impl fmt::Display for Approx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Approx::SignificantDigits(d) => write!(f, "sig:{d}"),
            Approx::RelativeTolerance(r) => write!(f, "rel:{r}"),
        }
    }
}

/// What a config file or `--config approx=…` may hold: a number or a string.
#[derive(Deserialize)]
#[serde(untagged)]
enum ApproxSpec {
    Number(f64),
    Text(String),
}

impl TryFrom<ApproxSpec> for Approx {
    type Error = ApproxError;

    fn try_from(spec: ApproxSpec) -> Result<Self, Self::Error> {
        match spec {
            ApproxSpec::Number(n) if n.fract() == 0.0 && n >= 1.0 => {
                Approx::digits(n as u32).ok_or_else(|| ApproxError(n.to_string()))
            }
            ApproxSpec::Number(n) => {
                Approx::tolerance(n).ok_or_else(|| ApproxError(n.to_string()))
            }
            ApproxSpec::Text(s) => s.parse(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!("3".parse(), Ok(Approx::SignificantDigits(3)));
        assert_eq!("sig:4".parse(), Ok(Approx::SignificantDigits(4)));
        assert_eq!("1e-3".parse(), Ok(Approx::RelativeTolerance(1e-3)));
        assert_eq!("rel:0.01".parse(), Ok(Approx::RelativeTolerance(0.01)));
        assert!("0".parse::<Approx>().is_err());
        assert!("2.5".parse::<Approx>().is_err());
        assert!("sig:30".parse::<Approx>().is_err());
        assert!("loose".parse::<Approx>().is_err());
        let o: MathOptions = serde_json::from_str(r#"{"approx": 3}"#).unwrap();
        assert_eq!(o.approx, Some(Approx::SignificantDigits(3)));
        let o: MathOptions = serde_json::from_str(r#"{"approx": 0.001}"#).unwrap();
        assert_eq!(o.approx, Some(Approx::RelativeTolerance(0.001)));
        let o: MathOptions = serde_json::from_str(r#"{"approx": "sig:2"}"#).unwrap();
        assert_eq!(o.approx, Some(Approx::SignificantDigits(2)));
    }

    #[test]
    fn closeness() {
        let pi = std::f64::consts::PI;
        assert!(Approx::SignificantDigits(3).accepts(3.14, pi));
        assert!(!Approx::SignificantDigits(4).accepts(3.14, pi));
        assert!(Approx::SignificantDigits(2).accepts(0.45, 5.0 / 11.0));
        assert!(!Approx::SignificantDigits(3).accepts(1.0 / 3.0, 0.33));
        assert!(Approx::RelativeTolerance(1e-3).accepts(pi, 3.1416));
        assert!(!Approx::RelativeTolerance(1e-4).accepts(pi, 3.14));
    }
}
