//! Exact symbolic values: rational functions over monomials with rational exponents.
//!
//! A [`Value`] is `num / den`, each a [`Poly`]: a sum of terms `c · Π atomᵏ` with `c`
//! a big rational and `k` rational. Atoms are positive integers under a fractional
//! power (`√12 = 2·3^(1/2)`), `π`, `e`, `i`, `∞`, free variables, and *opaque* atoms
//! that stand for anything we cannot normalise (`sin(x)`, `√(x+1)`).
//!
//! Normal form rules, which make equal values (without opaque atoms) compare equal:
//! - integer bases are split into primes (trial division; a large leftover cofactor
//!   stays one atom) and their exponents reduced into `[0, 1)`, the integer part going
//!   into the coefficient;
//! - `i` keeps exponent 0 or 1 (`i² = -1`);
//! - a denominator that is a single term is divided into the numerator.
//!
//! Two values are equal iff `a.num·b.den − b.num·a.den` is the zero polynomial. Prime
//! radicals are linearly independent over ℚ and π, e and the variables are treated as
//! independent symbols, so for opaque-free values this test is exact.
//! Every operation checks the size limits and charges a [`Budget`].

use std::collections::BTreeMap;
use std::fmt;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::limits::{Budget, LimitHit, MAX_BITS, MAX_EXPAND_EXPONENT, MAX_TERMS};

/// A symbol in a monomial.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// A positive integer base (a prime, or an unfactored cofactor) under a fractional power.
    Int(BigInt),
    Pi,
    E,
    I,
    Infinity,
    Var(String),
    /// The canonical text of a sub-expression we do not normalise.
    Opaque(String),
}

/// Atoms with their (non-zero) exponents, sorted by atom.
pub type Factors = Vec<(Atom, BigRational)>;

/// A sum of monomials; coefficients are never zero.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Poly {
    terms: BTreeMap<Factors, BigRational>,
}

/// Why arithmetic stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArithError {
    Limit(LimitHit),
    /// Division by zero, `0^-1` and the like.
    Undefined,
}

impl From<LimitHit> for ArithError {
    fn from(l: LimitHit) -> Self {
        ArithError::Limit(l)
    }
}

pub type Arith<T> = Result<T, ArithError>;

fn rat(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

/// Fails when a rational has grown beyond the bit limit; charges for its size.
///
/// Every rational operation reduces by a gcd, whose cost grows with the square of the
/// operand length, so the charge does too: with `w` 64-bit words, `12 + w + w²`.
fn check_size(q: &BigRational, budget: &mut Budget) -> Arith<()> {
    let bits = q.numer().bits().max(q.denom().bits());
    if bits > MAX_BITS {
        return Err(LimitHit::NumberTooLarge.into());
    }
    let words = bits / 64;
    budget.charge(12 + words + words * words)?;
    Ok(())
}

/// `base^exp` for an integer exponent, refusing results beyond the bit limit.
pub fn pow_rational(base: &BigRational, exp: &BigInt, budget: &mut Budget) -> Arith<BigRational> {
    if base.is_zero() {
        return if exp.is_negative() {
            Err(ArithError::Undefined)
        } else if exp.is_zero() {
            Ok(BigRational::one())
        } else {
            Ok(BigRational::zero())
        };
    }
    let magnitude = base.numer().bits().max(base.denom().bits());
    let is_unit = base.numer().magnitude() == base.denom().magnitude();
    if is_unit {
        let odd = exp.is_odd();
        return Ok(if base.is_negative() && odd {
            -BigRational::one()
        } else {
            BigRational::one()
        });
    }
    let e = exp
        .abs()
        .to_u64()
        .filter(|e| e.saturating_mul(magnitude.saturating_sub(1)) <= MAX_BITS)
        .ok_or(LimitHit::NumberTooLarge)?;
    let words = e.saturating_mul(magnitude) / 64;
    budget.charge(12 + words + words.saturating_mul(words))?;
    let powered = num_traits::pow(base.clone(), e as usize);
    check_size(&powered, budget)?;
    Ok(if exp.is_negative() {
        powered.recip()
    } else {
        powered
    })
}

impl Poly {
    pub fn zero() -> Poly {
        Poly::default()
    }

    pub fn constant(c: BigRational) -> Poly {
        let mut terms = BTreeMap::new();
        if !c.is_zero() {
            terms.insert(Vec::new(), c);
        }
        Poly { terms }
    }

    pub fn one() -> Poly {
        Poly::constant(BigRational::one())
    }

    /// `atom^1`, with the normalisation rules applied.
    pub fn atom(atom: Atom, budget: &mut Budget) -> Arith<Poly> {
        let m = Monomial::one().times_atom(atom, BigRational::one(), budget)?;
        Ok(Poly::from_monomial(m))
    }

    pub fn from_monomial(m: Monomial) -> Poly {
        let mut p = Poly::zero();
        if !m.coeff.is_zero() {
            p.terms.insert(m.factors, m.coeff);
        }
        p
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether this is the constant 1.
    pub fn is_one(&self) -> bool {
        self.terms.len() == 1 && self.terms.get(&Vec::new()).is_some_and(|c| c.is_one())
    }

    /// The value when the polynomial is a rational constant.
    pub fn as_constant(&self) -> Option<BigRational> {
        match self.terms.len() {
            0 => Some(BigRational::zero()),
            1 => self.terms.get(&Vec::new()).cloned(),
            _ => None,
        }
    }

    /// The single term, when there is exactly one.
    pub fn as_monomial(&self) -> Option<Monomial> {
        if self.terms.len() != 1 {
            return None;
        }
        self.terms.iter().next().map(|(f, c)| Monomial {
            coeff: c.clone(),
            factors: f.clone(),
        })
    }

    pub fn monomials(&self) -> impl Iterator<Item = Monomial> + '_ {
        self.terms.iter().map(|(f, c)| Monomial {
            coeff: c.clone(),
            factors: f.clone(),
        })
    }

    /// Whether any atom matches `pred`.
    pub fn any_atom(&self, pred: &impl Fn(&Atom) -> bool) -> bool {
        self.terms.keys().any(|f| f.iter().any(|(a, _)| pred(a)))
    }

    fn add_term(&mut self, factors: Factors, coeff: BigRational, budget: &mut Budget) -> Arith<()> {
        budget.charge(12 + factors.len() as u64)?;
        match self.terms.get_mut(&factors) {
            Some(c) => {
                *c += coeff;
                check_size(c, budget)?;
                if c.is_zero() {
                    self.terms.remove(&factors);
                }
            }
            None => {
                if !coeff.is_zero() {
                    if self.terms.len() >= MAX_TERMS {
                        return Err(LimitHit::TooManyTerms.into());
                    }
                    self.terms.insert(factors, coeff);
                }
            }
        }
        Ok(())
    }

    pub fn add(&self, other: &Poly, budget: &mut Budget) -> Arith<Poly> {
        let mut out = self.clone();
        for (f, c) in &other.terms {
            out.add_term(f.clone(), c.clone(), budget)?;
        }
        Ok(out)
    }

    pub fn neg(&self) -> Poly {
        Poly {
            terms: self.terms.iter().map(|(f, c)| (f.clone(), -c)).collect(),
        }
    }

    pub fn sub(&self, other: &Poly, budget: &mut Budget) -> Arith<Poly> {
        self.add(&other.neg(), budget)
    }

    pub fn mul(&self, other: &Poly, budget: &mut Budget) -> Arith<Poly> {
        budget.charge(40 * (self.len() * other.len()) as u64)?;
        let mut out = Poly::zero();
        for a in self.monomials() {
            for b in other.monomials() {
                let m = a.mul(&b, budget)?;
                out.add_term(m.factors, m.coeff, budget)?;
            }
        }
        Ok(out)
    }

    pub fn mul_monomial(&self, m: &Monomial, budget: &mut Budget) -> Arith<Poly> {
        let mut out = Poly::zero();
        for a in self.monomials() {
            let p = a.mul(m, budget)?;
            out.add_term(p.factors, p.coeff, budget)?;
        }
        Ok(out)
    }

    /// `self^n` for `0 ≤ n ≤ MAX_EXPAND_EXPONENT`, by repeated squaring.
    pub fn pow_u64(&self, n: u64, budget: &mut Budget) -> Arith<Poly> {
        if let Some(m) = self.as_monomial() {
            return Ok(Poly::from_monomial(m.pow(&rat(n as i64), budget)?));
        }
        if n > MAX_EXPAND_EXPONENT {
            return Err(LimitHit::TooManyTerms.into());
        }
        let mut result = Poly::one();
        let mut base = self.clone();
        let mut e = n;
        while e > 0 {
            if e & 1 == 1 {
                result = result.mul(&base, budget)?;
            }
            e >>= 1;
            if e > 0 {
                base = base.mul(&base, budget)?;
            }
        }
        Ok(result)
    }
}

/// One term: a coefficient times atoms to rational powers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Monomial {
    pub coeff: BigRational,
    pub factors: Factors,
}

impl Monomial {
    pub fn one() -> Monomial {
        Monomial {
            coeff: BigRational::one(),
            factors: Vec::new(),
        }
    }

    /// Multiplies in `atom^exp`, applying the normalisation rules.
    pub fn times_atom(
        mut self,
        atom: Atom,
        exp: BigRational,
        budget: &mut Budget,
    ) -> Arith<Monomial> {
        budget.charge(12 + self.factors.len() as u64)?;
        let at = self.factors.binary_search_by(|(a, _)| a.cmp(&atom));
        let total = match at {
            Ok(k) => {
                let (_, e) = self.factors.remove(k);
                e + exp
            }
            Err(_) => exp,
        };
        let (coeff_factor, kept) = normalise_power(&atom, total, budget)?;
        self.coeff *= coeff_factor;
        check_size(&self.coeff, budget)?;
        if let Some(e) = kept {
            let pos = self
                .factors
                .binary_search_by(|(a, _)| a.cmp(&atom))
                .unwrap_or_else(|p| p);
            self.factors.insert(pos, (atom, e));
        }
        Ok(self)
    }

    pub fn mul(&self, other: &Monomial, budget: &mut Budget) -> Arith<Monomial> {
        let mut out = Monomial {
            coeff: &self.coeff * &other.coeff,
            factors: self.factors.clone(),
        };
        check_size(&out.coeff, budget)?;
        for (a, e) in &other.factors {
            out = out.times_atom(a.clone(), e.clone(), budget)?;
        }
        Ok(out)
    }

    /// `self^r` for rational `r`. Fails (`None` inside `Ok`) when the result has no
    /// normal form, e.g. an even root of a negative coefficient other than `√-x`.
    pub fn pow(&self, r: &BigRational, budget: &mut Budget) -> Arith<Monomial> {
        self.try_pow(r, budget)?.ok_or(ArithError::Undefined)
    }

    pub fn try_pow(&self, r: &BigRational, budget: &mut Budget) -> Arith<Option<Monomial>> {
        if self.coeff.is_zero() {
            return if r.is_positive() {
                Ok(Some(Monomial {
                    coeff: BigRational::zero(),
                    factors: Vec::new(),
                }))
            } else {
                Err(ArithError::Undefined)
            };
        }
        let Some(mut out) = coefficient_pow(&self.coeff, r, budget)? else {
            return Ok(None);
        };
        for (a, e) in &self.factors {
            out = out.times_atom(a.clone(), e * r, budget)?;
        }
        Ok(Some(out))
    }

    /// Whether the monomial involves no free variable and no opaque atom.
    pub fn is_constant(&self) -> bool {
        self.factors
            .iter()
            .all(|(a, _)| !matches!(a, Atom::Var(_) | Atom::Opaque(_)))
    }
}

/// The coefficient to multiply in and the exponent to keep for `atom^exp`.
fn normalise_power(
    atom: &Atom,
    exp: BigRational,
    budget: &mut Budget,
) -> Arith<(BigRational, Option<BigRational>)> {
    if exp.is_zero() {
        return Ok((BigRational::one(), None));
    }
    match atom {
        Atom::Int(base) => {
            let whole = exp.floor();
            let frac = &exp - &whole;
            let factor = pow_rational(
                &BigRational::from_integer(base.clone()),
                whole.numer(),
                budget,
            )?;
            Ok((factor, (!frac.is_zero()).then_some(frac)))
        }
        Atom::I if exp.is_integer() => {
            let k = exp.numer().mod_floor(&BigInt::from(4)).to_u8().unwrap_or(0);
            let sign = if k >= 2 { rat(-1) } else { rat(1) };
            Ok((sign, (k % 2 == 1).then(BigRational::one)))
        }
        _ => Ok((BigRational::one(), Some(exp))),
    }
}

/// `c^r` as a monomial: the integer part of the power exactly, the rest as prime radicals.
fn coefficient_pow(
    c: &BigRational,
    r: &BigRational,
    budget: &mut Budget,
) -> Arith<Option<Monomial>> {
    if r.is_integer() {
        return Ok(Some(Monomial {
            coeff: pow_rational(c, r.numer(), budget)?,
            factors: Vec::new(),
        }));
    }
    let mut out = Monomial::one();
    let mut magnitude = c.clone();
    if c.is_negative() {
        magnitude = -magnitude;
        let q = r.denom();
        if *q == BigInt::from(2) {
            // (-x)^(p/2) = i^p · x^(p/2)
            out = out.times_atom(
                Atom::I,
                BigRational::from_integer(r.numer().clone()),
                budget,
            )?;
        } else if q.is_odd() {
            // A real odd root: (-x)^(p/q) = (-1)^p · x^(p/q).
            if r.numer().is_odd() {
                out.coeff = -out.coeff;
            }
        } else {
            return Ok(None);
        }
    }
    for (n, sign) in [(magnitude.numer(), 1), (magnitude.denom(), -1)] {
        let Some(parts) = factorize(n, budget)? else {
            return Ok(None);
        };
        for (p, k) in parts {
            let e = r * BigRational::from_integer(BigInt::from(k * sign));
            out = out.times_atom(Atom::Int(p), e, budget)?;
        }
    }
    Ok(Some(out))
}

/// Largest number factored into primes for radicals; bigger ones have no normal form.
const MAX_FACTOR_BITS: u64 = 256;
/// Trial division bound; a leftover cofactor stays one atom.
const TRIAL_LIMIT: u64 = 10_000;

/// `n = Π pᵏ` by trial division; a leftover above the trial bound is kept as one factor.
fn factorize(n: &BigInt, budget: &mut Budget) -> Arith<Option<Vec<(BigInt, i64)>>> {
    if n.bits() > MAX_FACTOR_BITS {
        return Ok(None);
    }
    let mut rest = n.clone();
    let mut out = Vec::new();
    if let Some(small) = rest.to_u64() {
        let mut m = small;
        let primes = super::power::trial_divide(&mut m, TRIAL_LIMIT, budget)?;
        out.extend(
            primes
                .into_iter()
                .map(|(p, k)| (BigInt::from(p), i64::from(k))),
        );
        if m > 1 {
            out.push((BigInt::from(m), 1));
        }
        return Ok(Some(out));
    }
    let mut p = 2u64;
    while p <= TRIAL_LIMIT {
        budget.charge(1 + rest.bits() / 64)?;
        let bp = BigInt::from(p);
        let mut k = 0;
        loop {
            let (q, r) = rest.div_rem(&bp);
            if !r.is_zero() {
                break;
            }
            rest = q;
            k += 1;
        }
        if k > 0 {
            out.push((bp, k));
        }
        p += if p == 2 { 1 } else { 2 };
    }
    if rest > BigInt::one() {
        out.push((rest, 1));
    }
    Ok(Some(out))
}

/// A rational function `num / den`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub num: Poly,
    pub den: Poly,
}

impl Value {
    pub fn from_poly(p: Poly) -> Value {
        Value {
            num: p,
            den: Poly::one(),
        }
    }

    pub fn constant(c: BigRational) -> Value {
        Value::from_poly(Poly::constant(c))
    }

    pub fn atom(a: Atom, budget: &mut Budget) -> Arith<Value> {
        Ok(Value::from_poly(Poly::atom(a, budget)?))
    }

    /// Divides a single-term denominator into the numerator.
    fn tidy(self, budget: &mut Budget) -> Arith<Value> {
        if self.den.is_zero() {
            return Err(ArithError::Undefined);
        }
        if self.num.is_zero() {
            return Ok(Value::from_poly(Poly::zero()));
        }
        if self.den.is_one() {
            return Ok(self);
        }
        if let Some(m) = self.den.as_monomial() {
            let inv = m.pow(&rat(-1), budget)?;
            return Ok(Value::from_poly(self.num.mul_monomial(&inv, budget)?));
        }
        Ok(self)
    }

    /// `self + o`, reusing `self`'s storage (sums of many terms stay linear).
    pub fn add_owned(mut self, o: &Value, budget: &mut Budget) -> Arith<Value> {
        if self.den == o.den {
            for (f, c) in &o.num.terms {
                self.num.add_term(f.clone(), c.clone(), budget)?;
            }
            return self.tidy(budget);
        }
        self.add(o, budget)
    }

    pub fn add(&self, o: &Value, budget: &mut Budget) -> Arith<Value> {
        if self.den == o.den {
            return Value {
                num: self.num.add(&o.num, budget)?,
                den: self.den.clone(),
            }
            .tidy(budget);
        }
        let num = self
            .num
            .mul(&o.den, budget)?
            .add(&o.num.mul(&self.den, budget)?, budget)?;
        Value {
            num,
            den: self.den.mul(&o.den, budget)?,
        }
        .tidy(budget)
    }

    pub fn neg(&self) -> Value {
        Value {
            num: self.num.neg(),
            den: self.den.clone(),
        }
    }

    pub fn sub(&self, o: &Value, budget: &mut Budget) -> Arith<Value> {
        self.add(&o.neg(), budget)
    }

    pub fn mul(&self, o: &Value, budget: &mut Budget) -> Arith<Value> {
        Value {
            num: self.num.mul(&o.num, budget)?,
            den: self.den.mul(&o.den, budget)?,
        }
        .tidy(budget)
    }

    pub fn recip(&self, budget: &mut Budget) -> Arith<Value> {
        if self.num.is_zero() {
            return Err(ArithError::Undefined);
        }
        Value {
            num: self.den.clone(),
            den: self.num.clone(),
        }
        .tidy(budget)
    }

    pub fn div(&self, o: &Value, budget: &mut Budget) -> Arith<Value> {
        self.mul(&o.recip(budget)?, budget)
    }

    /// The value when it is a rational constant.
    pub fn as_rational(&self) -> Option<BigRational> {
        let n = self.num.as_constant()?;
        let d = self.den.as_constant()?;
        (!d.is_zero()).then(|| n / d)
    }

    /// The value as a single term, when it is one.
    pub fn as_monomial(&self) -> Option<Monomial> {
        if self.den.as_constant() != Some(BigRational::one()) {
            return None;
        }
        self.num.as_monomial()
    }

    /// `self^r` for a rational `r`; `None` when the power has no normal form.
    pub fn pow_rational(&self, r: &BigRational, budget: &mut Budget) -> Arith<Option<Value>> {
        if r.is_integer() {
            let n = r.numer();
            let e = n.abs().to_u64().ok_or(LimitHit::NumberTooLarge)?;
            if self.num.len() > 1 || self.den.len() > 1 {
                if e > MAX_EXPAND_EXPONENT {
                    return Err(LimitHit::TooManyTerms.into());
                }
                let v = Value {
                    num: self.num.pow_u64(e, budget)?,
                    den: self.den.pow_u64(e, budget)?,
                };
                let v = if n.is_negative() {
                    v.recip(budget)?
                } else {
                    v.tidy(budget)?
                };
                return Ok(Some(v));
            }
        }
        let (Some(num), Some(den)) = (self.num.as_monomial(), self.den.as_monomial()) else {
            return Ok(None);
        };
        let (Some(n), Some(d)) = (num.try_pow(r, budget)?, den.try_pow(r, budget)?) else {
            return Ok(None);
        };
        Value {
            num: Poly::from_monomial(n),
            den: Poly::from_monomial(d),
        }
        .tidy(budget)
        .map(Some)
    }

    /// Whether the value mentions an opaque atom (so its normal form is not canonical).
    pub fn has_opaque(&self) -> bool {
        let pred = |a: &Atom| matches!(a, Atom::Opaque(_));
        self.num.any_atom(&pred) || self.den.any_atom(&pred)
    }

    /// Whether the value mentions a free variable outside opaque atoms.
    pub fn has_vars(&self) -> bool {
        let pred = |a: &Atom| matches!(a, Atom::Var(_));
        self.num.any_atom(&pred) || self.den.any_atom(&pred)
    }

    /// Exact equality of normal forms (see the module docs).
    pub fn equals(&self, o: &Value, budget: &mut Budget) -> Arith<bool> {
        if self == o {
            return Ok(true);
        }
        // Polynomials without opaque atoms are canonical: no arithmetic needed.
        if self.den.is_one() && o.den.is_one() && !self.has_opaque() && !o.has_opaque() {
            return Ok(false);
        }
        let lhs = self.num.mul(&o.den, budget)?;
        let rhs = o.num.mul(&self.den, budget)?;
        Ok(lhs.sub(&rhs, budget)?.is_zero())
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Int(n) => write!(f, "{n}"),
            Atom::Pi => f.write_str("pi"),
            Atom::E => f.write_str("e"),
            Atom::I => f.write_str("i"),
            Atom::Infinity => f.write_str("oo"),
            Atom::Var(v) => f.write_str(v),
            Atom::Opaque(s) => write!(f, "[{s}]"),
        }
    }
}

/// Decimal for ordinary sizes; hexadecimal beyond [`DECIMAL_DISPLAY_BITS`], because
/// decimal conversion of a huge number costs more than the whole comparison.
fn fmt_rational(q: &BigRational) -> String {
    let int = |n: &BigInt| {
        if n.bits() > DECIMAL_DISPLAY_BITS {
            let sign = if n.is_negative() { "-" } else { "" };
            format!("{sign}0x{}", n.magnitude().to_str_radix(16))
        } else {
            n.to_string()
        }
    };
    if q.is_integer() {
        int(q.numer())
    } else {
        format!("{}/{}", int(q.numer()), int(q.denom()))
    }
}

/// Largest number shown in decimal in normal forms.
const DECIMAL_DISPLAY_BITS: u64 = 1024;

impl fmt::Display for Monomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if self.factors.is_empty() || !self.coeff.abs().is_one() {
            parts.push(fmt_rational(&self.coeff.abs()));
        }
        for (a, e) in &self.factors {
            if e.is_one() {
                parts.push(a.to_string());
            } else {
                parts.push(format!("{a}^({})", fmt_rational(e)));
            }
        }
        write!(f, "{}", parts.join("*"))
    }
}

impl fmt::Display for Poly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        for (k, m) in self.monomials().enumerate() {
            let negative = m.coeff.is_negative();
            match (k, negative) {
                (0, true) => f.write_str("-")?,
                (0, false) => {}
                (_, true) => f.write_str(" - ")?,
                (_, false) => f.write_str(" + ")?,
            }
            write!(f, "{m}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den.as_constant() == Some(BigRational::one()) {
            write!(f, "{}", self.num)
        } else {
            write!(f, "({})/({})", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(n: i64) -> Value {
        Value::constant(rat(n))
    }

    fn sqrt(v: &Value, b: &mut Budget) -> Value {
        v.pow_rational(&BigRational::new(1.into(), 2.into()), b)
            .unwrap()
            .unwrap()
    }

    #[test]
    fn radicals_normalise() {
        let b = &mut Budget::default();
        let s12 = sqrt(&int(12), b);
        let s3 = sqrt(&int(3), b);
        assert!(s12.equals(&int(2).mul(&s3, b).unwrap(), b).unwrap());
        assert_eq!(s12.to_string(), "2*3^(1/2)");
        // 1/√2 = √2/2
        let inv = sqrt(&int(2), b).recip(b).unwrap();
        let half_root = sqrt(&int(2), b).div(&int(2), b).unwrap();
        assert!(inv.equals(&half_root, b).unwrap());
        // √-4 = 2i, i² = -1
        let s = sqrt(&int(-4), b);
        assert_eq!(s.to_string(), "2*i");
        let sq = s.mul(&s, b).unwrap();
        assert!(sq.equals(&int(-4), b).unwrap());
    }

    #[test]
    fn rationalising_a_denominator_is_equal() {
        let b = &mut Budget::default();
        let r2 = sqrt(&int(2), b);
        let lhs = int(1).div(&int(1).add(&r2, b).unwrap(), b).unwrap();
        let rhs = r2.sub(&int(1), b).unwrap();
        assert!(lhs.equals(&rhs, b).unwrap());
        assert!(!lhs.equals(&r2, b).unwrap());
    }

    #[test]
    fn huge_powers_hit_the_limit() {
        let b = &mut Budget::default();
        let ten = rat(10);
        let e = BigInt::from(10u64).pow(10);
        assert_eq!(
            pow_rational(&ten, &e, b),
            Err(ArithError::Limit(LimitHit::NumberTooLarge))
        );
    }

    #[test]
    fn expansion_is_exact() {
        let b = &mut Budget::default();
        let x = Value::atom(Atom::Var("x".into()), b).unwrap();
        let xp1 = x.add(&int(1), b).unwrap();
        let sq = xp1.pow_rational(&rat(2), b).unwrap().unwrap();
        let expanded = x
            .mul(&x, b)
            .unwrap()
            .add(&x.mul(&int(2), b).unwrap(), b)
            .unwrap()
            .add(&int(1), b)
            .unwrap();
        assert!(sq.equals(&expanded, b).unwrap());
    }
}
