//! The opt-in `approx` setting: for datasets whose gold answers are themselves rounded.
//!
//! By default a decimal equals a value only when it is exactly equal (`0.625` = `5/8`,
//! `0.\overline{3}` = `1/3`, but `0.63` ≠ `5/8` and `3.14` ≠ `π`). With `approx`, two
//! constant values that are not exactly equal still match when they agree to a number
//! of significant digits, or within a relative tolerance of the gold value.

use std::fmt;
use std::str::FromStr;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{FromPrimitive, Signed, ToPrimitive, Zero};
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

    /// Whether `answer` is close enough to `gold`.
    pub fn accepts(self, gold: &Real, answer: &Real) -> bool {
        let (g, a) = (gold.to_f64(), answer.to_f64());
        if !g.is_finite() || !a.is_finite() {
            return false;
        }
        match self {
            Approx::SignificantDigits(d) => {
                let (Some(x), Some(y)) = (gold.significant(d), answer.significant(d)) else {
                    return false;
                };
                x == y
            }
            Approx::RelativeTolerance(r) => (a - g).abs() <= r * g.abs(),
        }
    }
}

/// A real value: exact when rational (so `0.625` rounds up to `0.63`, as written),
/// else a double.
#[derive(Debug, Clone, PartialEq)]
pub enum Real {
    Exact(BigRational),
    Float(f64),
}

impl Real {
    fn to_f64(&self) -> f64 {
        match self {
            Real::Exact(q) => q.to_f64().unwrap_or(f64::NAN),
            Real::Float(v) => *v,
        }
    }

    /// The value rounded (halves away from zero) to `d` significant digits, as
    /// `(digits, exponent)`: `0.625` to two digits is `(63, -1)`.
    fn significant(&self, d: u32) -> Option<(BigInt, i64)> {
        let v = self.to_f64();
        if v == 0.0 {
            return Some((BigInt::zero(), 0));
        }
        let low = num_traits::pow(BigInt::from(10), d as usize - 1);
        let high = &low * 10;
        let mut e = v.abs().log10().floor() as i64;
        // The estimate of the exponent can be off by one next to a power of ten.
        for _ in 0..3 {
            let m = self.scaled_round(i64::from(d) - 1 - e)?;
            if m.abs() >= high {
                e += 1;
            } else if m.abs() < low {
                e -= 1;
            } else {
                return Some((m, e));
            }
        }
        None
    }

    /// `round(value · 10^k)`, halves away from zero.
    fn scaled_round(&self, k: i64) -> Option<BigInt> {
        let ten = BigRational::from_integer(BigInt::from(10));
        match self {
            Real::Exact(q) => {
                let scale = num_traits::pow(ten, k.unsigned_abs() as usize);
                let scaled = if k >= 0 { q * scale } else { q / scale };
                Some(scaled.round().to_integer())
            }
            Real::Float(v) => BigInt::from_f64((v * 10f64.powi(k as i32)).round()),
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
            ApproxSpec::Number(n) => Approx::tolerance(n).ok_or_else(|| ApproxError(n.to_string())),
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
        let pi = Real::Float(std::f64::consts::PI);
        let q = |n: i64, d: i64| Real::Exact(BigRational::new(n.into(), d.into()));
        assert!(Approx::SignificantDigits(3).accepts(&q(314, 100), &pi));
        assert!(!Approx::SignificantDigits(4).accepts(&q(314, 100), &pi));
        assert!(Approx::SignificantDigits(2).accepts(&q(45, 100), &q(5, 11)));
        assert!(!Approx::SignificantDigits(3).accepts(&q(1, 3), &q(33, 100)));
        assert!(Approx::SignificantDigits(2).accepts(&q(5, 8), &q(63, 100)));
        assert!(Approx::SignificantDigits(1).accepts(&q(99, 100), &q(1, 1)));
        assert!(Approx::RelativeTolerance(1e-3).accepts(&pi, &q(31416, 10000)));
        assert!(!Approx::RelativeTolerance(1e-4).accepts(&pi, &q(314, 100)));
    }
}
