//! Big exact integers written as powers: `4^{5000}` = `2^{10000}`, a 3,011-digit
//! literal = `2^{10000}`, and towers by exponent arithmetic (`4^{2^{99}}` =
//! `2^{2^{100}}`).
//!
//! A *power product* is `±Π bᵢ^{eᵢ}`: integer bases, integer exponents (possibly
//! negative, from quotients), exponents themselves computed exactly (`2^{100}`). Two
//! power products whose bases all factor into primes are equal exactly when their
//! prime exponents agree, so no huge number is ever built. Otherwise (a base too big
//! to factor, such as a long literal) both sides are multiplied out, which only
//! happens when they have the same size and that size is under [`MAX_BUILT_BITS`].
//!
//! Limits: exponents up to [`MAX_EXPONENT_BITS`] bits (so `2^{2^{4000}}` is compared,
//! `10^{10^{10^{10}}}` is not), bases factored by trial division up to
//! [`TRIAL_LIMIT`]. Used only for values over [`LARGE_BITS`] bits; smaller ones take
//! the ordinary exact path.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::equivalence::Outcome;
use super::expr::Expr;
use super::limits::{Budget, LimitHit};

/// Largest exponent, in bits, computed exactly (towers beyond it are undecidable).
pub const MAX_EXPONENT_BITS: u64 = 4096;
/// Largest integer multiplied out when a base cannot be factored (≈ 20,000 digits;
/// a literal answer is at most 4,096 digits).
pub const MAX_BUILT_BITS: f64 = 65_536.0;
/// Values at least this large (estimated bits) are compared here.
pub const LARGE_BITS: f64 = 1024.0;
/// Trial division bound for factoring bases; a leftover below its square is prime.
const TRIAL_LIMIT: u64 = 100_000;

/// `±Π base^exp`.
#[derive(Debug, Clone, PartialEq)]
struct PowerProduct {
    negative: bool,
    factors: Vec<(BigInt, BigInt)>,
}

impl PowerProduct {
    /// Estimated `log2 |value|`.
    fn bits(&self) -> f64 {
        self.factors
            .iter()
            .map(|(b, e)| e.to_f64().unwrap_or(f64::INFINITY) * log2(b))
            .sum()
    }

    /// Estimated bits of the largest part (numerator or denominator).
    fn magnitude(&self) -> f64 {
        self.factors
            .iter()
            .map(|(b, e)| e.abs().to_f64().unwrap_or(f64::INFINITY) * log2(b))
            .sum()
    }
}

fn log2(b: &BigInt) -> f64 {
    let bits = b.bits();
    if bits < 1000 {
        b.to_f64().map_or(bits as f64, f64::log2)
    } else {
        bits as f64
    }
}

/// The power product an expression writes, when it is one.
fn power_product(e: &Expr) -> Option<PowerProduct> {
    match e {
        Expr::Num(n) if n.is_integer_literal() => {
            let v: BigInt = n.digits.parse().ok()?;
            if v.is_zero() {
                return None;
            }
            let factors = if v.is_one() {
                Vec::new()
            } else {
                vec![(v, BigInt::one())]
            };
            Some(PowerProduct {
                negative: false,
                factors,
            })
        }
        Expr::Neg(x) => {
            let mut p = power_product(x)?;
            p.negative = !p.negative;
            Some(p)
        }
        Expr::Mul(xs) => xs.iter().try_fold(
            PowerProduct {
                negative: false,
                factors: Vec::new(),
            },
            |mut acc, x| {
                let p = power_product(x)?;
                acc.negative ^= p.negative;
                acc.factors.extend(p.factors);
                Some(acc)
            },
        ),
        Expr::Div(a, b) => {
            let mut p = power_product(a)?;
            let q = power_product(b)?;
            p.negative ^= q.negative;
            p.factors
                .extend(q.factors.into_iter().map(|(b, e)| (b, -e)));
            Some(p)
        }
        Expr::Pow(base, exp) => {
            let k = exponent(exp)?;
            let mut p = power_product(base)?;
            p.negative &= k.is_odd();
            for (_, e) in &mut p.factors {
                *e *= &k;
                if e.bits() > MAX_EXPONENT_BITS {
                    return None;
                }
            }
            Some(p)
        }
        _ => None,
    }
}

/// An integer exponent, computed exactly up to [`MAX_EXPONENT_BITS`] bits.
fn exponent(e: &Expr) -> Option<BigInt> {
    let bounded = |v: BigInt| (v.bits() <= MAX_EXPONENT_BITS).then_some(v);
    match e {
        Expr::Num(n) if n.is_integer_literal() => n.digits.parse().ok(),
        Expr::Neg(x) => exponent(x).map(|v| -v),
        Expr::Add(xs) => xs
            .iter()
            .try_fold(BigInt::zero(), |acc, x| bounded(acc + exponent(x)?)),
        Expr::Mul(xs) => xs
            .iter()
            .try_fold(BigInt::one(), |acc, x| bounded(acc * exponent(x)?)),
        Expr::Pow(a, b) => {
            let base = exponent(a)?;
            let k = exponent(b)?.to_u64()?;
            if base.magnitude() <= &One::one() {
                return Some(num_traits::pow(base, k.min(2) as usize));
            }
            (k.saturating_mul(base.bits() - 1) <= MAX_EXPONENT_BITS)
                .then(|| num_traits::pow(base, k as usize))
        }
        _ => None,
    }
}

/// Prime exponents of a power product, when every base factors completely.
fn prime_exponents(
    p: &PowerProduct,
    budget: &mut Budget,
) -> Result<Option<BTreeMap<u64, BigInt>>, LimitHit> {
    let mut out: BTreeMap<u64, BigInt> = BTreeMap::new();
    for (base, e) in &p.factors {
        let Some(primes) = factor_small(base, budget)? else {
            return Ok(None);
        };
        for (prime, k) in primes {
            *out.entry(prime).or_default() += e * BigInt::from(k);
        }
    }
    out.retain(|_, e| !e.is_zero());
    Ok(Some(out))
}

/// `n = Π pᵏ` for `n < 2^64` whose cofactor after trial division is prime.
fn factor_small(n: &BigInt, budget: &mut Budget) -> Result<Option<Vec<(u64, u32)>>, LimitHit> {
    let Some(mut m) = n.to_u64() else {
        return Ok(None);
    };
    let mut out = trial_divide(&mut m, TRIAL_LIMIT, budget)?;
    if m > 1 {
        if m / TRIAL_LIMIT >= TRIAL_LIMIT {
            return Ok(None);
        }
        out.push((m, 1));
    }
    Ok(Some(out))
}

/// Divides out of `m` every prime `p ≤ limit` with `p² ≤ m`, returning `(p, k)` in
/// increasing order; `m` keeps the cofactor (1, a prime, or a product of primes above
/// `limit`). One budget unit per trial divisor.
pub(super) fn trial_divide(
    m: &mut u64,
    limit: u64,
    budget: &mut Budget,
) -> Result<Vec<(u64, u32)>, LimitHit> {
    let mut out = Vec::new();
    let mut rest = *m;
    let mut p = 2u64;
    while p <= limit && p * p <= rest {
        budget.charge(1)?;
        let mut k = 0;
        while rest.is_multiple_of(p) {
            rest /= p;
            k += 1;
        }
        if k > 0 {
            out.push((p, k));
        }
        p += if p == 2 { 1 } else { 2 };
    }
    *m = rest;
    Ok(out)
}

/// The value of a power product with non-negative exponents, built exactly.
fn build(p: &PowerProduct, budget: &mut Budget) -> Result<Option<BigInt>, LimitHit> {
    let mut acc = BigInt::one();
    for (b, e) in &p.factors {
        let Some(k) = e.to_u64() else {
            return Ok(None);
        };
        let words = (k as f64 * log2(b) / 64.0) as u64;
        budget.charge(10 + words.saturating_mul(words) / 64)?;
        acc *= num_traits::pow(b.clone(), k as usize);
    }
    Ok(Some(if p.negative { -acc } else { acc }))
}

/// An integer expression (`2^{10000}+1`, `3 \cdot 4^{5000} - 7`) computed exactly,
/// every intermediate under [`MAX_BUILT_BITS`] bits.
fn big_integer(e: &Expr, budget: &mut Budget) -> Result<Option<BigInt>, LimitHit> {
    let small = |v: BigInt| (v.bits() as f64 <= MAX_BUILT_BITS).then_some(v);
    Ok(match e {
        Expr::Num(n) if n.is_integer_literal() => n.digits.parse().ok(),
        Expr::Neg(x) => big_integer(x, budget)?.map(|v| -v),
        Expr::Add(xs) | Expr::Mul(xs) => {
            let sum = matches!(e, Expr::Add(_));
            let mut acc = if sum { BigInt::zero() } else { BigInt::one() };
            for x in xs {
                let Some(v) = big_integer(x, budget)? else {
                    return Ok(None);
                };
                budget.charge(10 + (acc.bits().max(v.bits()) / 64).pow(2) / 64)?;
                acc = if sum { acc + v } else { acc * v };
                if small(acc.clone()).is_none() {
                    return Ok(None);
                }
            }
            Some(acc)
        }
        Expr::Pow(..) => match power_product(e) {
            Some(p) if p.magnitude() <= MAX_BUILT_BITS => build(&p, budget)?,
            _ => None,
        },
        _ => None,
    })
}

/// Whether an expression contains a power of at least [`LARGE_BITS`] bits.
fn has_large_power(e: &Expr) -> bool {
    let mut large = false;
    e.visit(&mut |x| {
        if matches!(x, Expr::Pow(..)) {
            large |= power_product(x).is_some_and(|p| p.magnitude() >= LARGE_BITS);
        }
    });
    large
}

/// Compares two power products, or two integer expressions with a large power,
/// when at least one is large; `None` hands the pair to the ordinary exact comparison.
pub fn compare(g: &Expr, r: &Expr, budget: &mut Budget) -> Option<Outcome> {
    match (power_product(g), power_product(r)) {
        (Some(a), Some(b)) => compare_products(a, b, budget),
        _ if has_large_power(g) || has_large_power(r) => {
            match (big_integer(g, budget), big_integer(r, budget)) {
                (Ok(Some(x)), Ok(Some(y))) => Some(if x == y {
                    Outcome::Equal("same integer")
                } else {
                    Outcome::NotEqual("different integers")
                }),
                (Err(l), _) | (_, Err(l)) => Some(Outcome::Undecidable(l)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn compare_products(a: PowerProduct, b: PowerProduct, budget: &mut Budget) -> Option<Outcome> {
    if a.magnitude() < LARGE_BITS && b.magnitude() < LARGE_BITS {
        return None;
    }
    let decided = (|| -> Result<Option<Outcome>, LimitHit> {
        if let (Some(x), Some(y)) = (prime_exponents(&a, budget)?, prime_exponents(&b, budget)?) {
            return Ok(Some(if a.negative == b.negative && x == y {
                Outcome::Equal("same prime powers")
            } else {
                Outcome::NotEqual("different prime powers")
            }));
        }
        if (a.bits() - b.bits()).abs() > 2.0 {
            return Ok(Some(Outcome::NotEqual("different magnitudes")));
        }
        if a.bits() > MAX_BUILT_BITS || a.negative != b.negative {
            return Ok((a.negative != b.negative).then_some(Outcome::NotEqual("different signs")));
        }
        Ok(match (build(&a, budget)?, build(&b, budget)?) {
            (Some(x), Some(y)) if x == y => Some(Outcome::Equal("same integer")),
            (Some(_), Some(_)) => Some(Outcome::NotEqual("different integers")),
            _ => None,
        })
    })();
    match decided {
        Ok(outcome) => outcome,
        Err(limit) => Some(Outcome::Undecidable(limit)),
    }
}

/// Whether an expression is, or contains, a large power (its normal form is not built).
pub fn is_large(e: &Expr) -> bool {
    has_large_power(e)
}
