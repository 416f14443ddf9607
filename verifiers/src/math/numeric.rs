//! Floating-point evaluation: the backstop for values without a canonical exact form.
//!
//! Used only when a normal form contains an opaque atom (a function, a root of a
//! sum, a symbolic power) and the exact forms differ. Free variables are set to
//! values drawn from a fixed-seed generator, so results are the same on every run.
//! Tolerance: `|a − b| ≤ 1e-9 · max(1, |a|, |b|)` at every one of [`POINTS`] points;
//! a point where either side is not a finite real in `[1e-250, 1e250]` (or zero) makes
//! the comparison undecidable rather than equal.

use std::collections::BTreeMap;

use super::expr::{Constant, Expr, Func};
use super::limits::{Budget, LimitHit, MAX_DEPTH};
use crate::seeded::SplitMix64;

/// How many assignments of the free variables are tried.
pub const POINTS: usize = 5;
/// Relative tolerance of the numeric comparison.
pub const TOLERANCE: f64 = 1e-9;
/// Relative tolerance when a side contains a written decimal: only double-precision
/// rounding is forgiven, so a decimal rounded to its shown digits is not equal.
pub const STRICT_TOLERANCE: f64 = 1e-13;
/// Most significant digits of a decimal compared with an irrational-looking value;
/// longer decimals are rounded values (a program's output), never exact.
pub const MAX_STRICT_DIGITS: usize = 10;

/// The outcome of a numeric comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumericVerdict {
    Equal,
    Different,
    /// A side could not be evaluated to a usable real number.
    Unusable,
}

/// Compares two scalar expressions at [`POINTS`] seeded points; `strict` (a written
/// decimal on either side) uses [`STRICT_TOLERANCE`] and refuses decimals of more
/// than [`MAX_STRICT_DIGITS`] significant digits.
pub fn compare(
    a: &Expr,
    b: &Expr,
    strict: bool,
    budget: &mut Budget,
) -> Result<NumericVerdict, LimitHit> {
    if strict && (long_decimal(a) || long_decimal(b)) {
        return Ok(NumericVerdict::Different);
    }
    let tolerance = if strict { STRICT_TOLERANCE } else { TOLERANCE };
    let mut names = BTreeMap::new();
    collect_vars(a, &mut names);
    collect_vars(b, &mut names);
    let mut points = SplitMix64::new(0x9E37_79B9_7F4A_7C15);
    for _ in 0..POINTS {
        let env: BTreeMap<String, f64> = names
            .keys()
            .map(|n| (n.clone(), 0.5 + 2.5 * points.unit()))
            .collect();
        let (Some(x), Some(y)) = (eval(a, &env, budget, 0)?, eval(b, &env, budget, 0)?) else {
            return Ok(NumericVerdict::Unusable);
        };
        if !usable(x) || !usable(y) {
            return Ok(NumericVerdict::Unusable);
        }
        if (x - y).abs() > tolerance * 1f64.max(x.abs()).max(y.abs()) {
            return Ok(NumericVerdict::Different);
        }
    }
    Ok(NumericVerdict::Equal)
}

/// The value of a constant expression, when it is a usable real.
pub fn constant_value(e: &Expr, budget: &mut Budget) -> Option<f64> {
    eval(e, &BTreeMap::new(), budget, 0)
        .ok()
        .flatten()
        .filter(|v| usable(*v))
}

/// Whether a written decimal has more significant digits than [`MAX_STRICT_DIGITS`].
fn long_decimal(e: &Expr) -> bool {
    let mut long = false;
    e.visit(&mut |x| {
        if let Expr::Num(n) = x {
            let significant = n.digits.trim_start_matches('0').trim_end_matches('0').len();
            long |= (n.decimal || n.exp10 < 0) && significant > MAX_STRICT_DIGITS;
        }
    });
    long
}

fn usable(v: f64) -> bool {
    v == 0.0 || (v.is_finite() && v.abs() > 1e-250 && v.abs() < 1e250)
}

/// Every variable name in `e`. (Names found only inside structures that `eval` does not
/// evaluate, such as tuples, cannot change a verdict: those make the check unusable.)
fn collect_vars(e: &Expr, out: &mut BTreeMap<String, ()>) {
    e.visit(&mut |node| {
        if let Expr::Var(v) = node {
            out.insert(v.clone(), ());
        }
    });
}

type Eval = Result<Option<f64>, LimitHit>;

fn eval(e: &Expr, env: &BTreeMap<String, f64>, budget: &mut Budget, depth: usize) -> Eval {
    if depth > MAX_DEPTH * 2 {
        return Err(LimitHit::TooDeep);
    }
    budget.charge(2)?;
    let d = depth + 1;
    let go = |x: &Expr, budget: &mut Budget| eval(x, env, budget, d);
    Ok(Some(match e {
        Expr::Num(n) => {
            let text = format!("{}e{}", n.digits, n.exp10 - i64::from(n.places));
            match text.parse::<f64>() {
                Ok(v) => v,
                Err(_) => return Ok(None),
            }
        }
        Expr::Var(v) => match env.get(v) {
            Some(x) => *x,
            None => return Ok(None),
        },
        Expr::Const(Constant::Pi) => std::f64::consts::PI,
        Expr::Const(Constant::E) => std::f64::consts::E,
        Expr::Const(_) => return Ok(None),
        Expr::Neg(x) => match go(x, budget)? {
            Some(v) => -v,
            None => return Ok(None),
        },
        Expr::Add(xs) | Expr::Mul(xs) => {
            let is_sum = matches!(e, Expr::Add(_));
            let mut acc = if is_sum { 0.0 } else { 1.0 };
            for x in xs {
                let Some(v) = go(x, budget)? else {
                    return Ok(None);
                };
                acc = if is_sum { acc + v } else { acc * v };
            }
            acc
        }
        Expr::Div(a, b) => match (go(a, budget)?, go(b, budget)?) {
            (Some(x), Some(y)) if y != 0.0 => x / y,
            _ => return Ok(None),
        },
        Expr::Pow(a, b) => match (go(a, budget)?, go(b, budget)?) {
            (Some(x), Some(y)) => x.powf(y),
            _ => return Ok(None),
        },
        Expr::Root(n, x) => match (go(n, budget)?, go(x, budget)?) {
            (Some(n), Some(x)) if x < 0.0 && n.fract() == 0.0 && n % 2.0 == 1.0 => {
                -(-x).powf(1.0 / n)
            }
            (Some(n), Some(x)) => x.powf(1.0 / n),
            _ => return Ok(None),
        },
        Expr::Func(f, x) => match go(x, budget)? {
            Some(v) => apply(*f, v),
            None => return Ok(None),
        },
        Expr::LogBase(b, x) => match (go(b, budget)?, go(x, budget)?) {
            (Some(b), Some(x)) => x.ln() / b.ln(),
            _ => return Ok(None),
        },
        Expr::Factorial(x) => match go(x, budget)? {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 170.0 => {
                (1..=n as u64).map(|k| k as f64).product()
            }
            _ => return Ok(None),
        },
        Expr::Binom(n, k) => match (go(n, budget)?, go(k, budget)?) {
            (Some(n), Some(k))
                if n.fract() == 0.0
                    && k.fract() == 0.0
                    && (0.0..=1000.0).contains(&n)
                    && (0.0..=n).contains(&k) =>
            {
                (0..k as u64).fold(1.0, |acc, j| acc * (n - j as f64) / (j as f64 + 1.0))
            }
            _ => return Ok(None),
        },
        Expr::Abs(x) => match go(x, budget)? {
            Some(v) => v.abs(),
            None => return Ok(None),
        },
        Expr::Percent(x) => match go(x, budget)? {
            Some(v) => v / 100.0,
            None => return Ok(None),
        },
        Expr::Degree(x) => return go(x, budget),
        _ => return Ok(None),
    }))
}

fn apply(f: Func, v: f64) -> f64 {
    match f {
        Func::Sin => v.sin(),
        Func::Cos => v.cos(),
        Func::Tan => v.tan(),
        Func::Cot => 1.0 / v.tan(),
        Func::Sec => 1.0 / v.cos(),
        Func::Csc => 1.0 / v.sin(),
        Func::Arcsin => v.asin(),
        Func::Arccos => v.acos(),
        Func::Arctan => v.atan(),
        Func::Sinh => v.sinh(),
        Func::Cosh => v.cosh(),
        Func::Tanh => v.tanh(),
        Func::Ln => v.ln(),
        Func::Log => v.log10(),
        Func::Exp => v.exp(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::parser::parse;

    fn cmp(a: &str, b: &str) -> NumericVerdict {
        let a = parse(a).unwrap().expr;
        let b = parse(b).unwrap().expr;
        compare(&a, &b, false, &mut Budget::default()).unwrap()
    }

    #[test]
    fn trig_identities_hold_numerically() {
        assert_eq!(cmp("\\sin^2 x + \\cos^2 x", "1"), NumericVerdict::Equal);
        assert_eq!(cmp("\\sin(\\pi/6)", "1/2"), NumericVerdict::Equal);
        assert_eq!(cmp("\\sin x", "\\cos x"), NumericVerdict::Different);
        assert_eq!(cmp("\\ln(-1)", "1"), NumericVerdict::Unusable);
    }
}
