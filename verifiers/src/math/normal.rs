//! Turns a scalar [`Expr`] into its exact normal form, a [`Value`].
//!
//! Sums, products, quotients, integer powers (expanded up to a limit), rational
//! powers and roots of single terms, factorials and binomials of integers are exact.
//! Functions (`sin`, `log`, …), roots of sums and symbolic exponents become opaque
//! atoms keyed by their normalised argument: equal when written the same way, and
//! otherwise left to the numeric check.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::exact::{Arith, ArithError, Atom, Value};
use super::expr::{Constant, Expr, Func};
use super::limits::{Budget, LimitHit, MAX_BITS, MAX_DEPTH, MAX_FACTORIAL};

/// Why an expression has no normal form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NormalError {
    Limit(LimitHit),
    /// Undefined (division by zero, `0^{-1}`).
    Undefined,
    /// A structure (set, tuple, relation, text) where a value was expected.
    NotScalar,
}

impl From<ArithError> for NormalError {
    fn from(e: ArithError) -> Self {
        match e {
            ArithError::Limit(l) => NormalError::Limit(l),
            ArithError::Undefined => NormalError::Undefined,
        }
    }
}

impl From<LimitHit> for NormalError {
    fn from(l: LimitHit) -> Self {
        NormalError::Limit(l)
    }
}

/// The exact normal form of a scalar expression.
pub fn normalize(expr: &Expr, budget: &mut Budget) -> Result<Value, NormalError> {
    Normalizer { budget, depth: 0 }.value(expr)
}

struct Normalizer<'b> {
    budget: &'b mut Budget,
    depth: usize,
}

impl Normalizer<'_> {
    fn value(&mut self, e: &Expr) -> Result<Value, NormalError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH * 2 {
            return Err(LimitHit::TooDeep.into());
        }
        self.budget.charge(10)?;
        let out = self.value_inner(e);
        self.depth -= 1;
        out
    }

    fn value_inner(&mut self, e: &Expr) -> Result<Value, NormalError> {
        let b = &mut *self.budget;
        Ok(match e {
            Expr::Num(n) => Value::constant(n.value().ok_or(LimitHit::NumberTooLarge)?),
            Expr::Var(v) => Value::atom(Atom::Var(v.clone()), b)?,
            Expr::Const(c) => Value::atom(
                match c {
                    Constant::Pi => Atom::Pi,
                    Constant::E => Atom::E,
                    Constant::I => Atom::I,
                    Constant::Infinity => Atom::Infinity,
                },
                b,
            )?,
            Expr::Neg(x) => self.value(x)?.neg(),
            Expr::Add(xs) => {
                let mut acc = Value::constant(BigRational::zero());
                for x in xs {
                    let v = self.value(x)?;
                    acc = acc.add_owned(&v, self.budget)?;
                }
                acc
            }
            Expr::Mul(xs) => {
                let mut acc = Value::constant(BigRational::one());
                for x in xs {
                    let v = self.value(x)?;
                    acc = acc.mul(&v, self.budget)?;
                }
                acc
            }
            Expr::Div(a, d) => {
                let a = self.value(a)?;
                let d = self.value(d)?;
                a.div(&d, self.budget)?
            }
            Expr::Pow(base, exp) => self.power(base, exp)?,
            Expr::Root(index, radicand) => {
                let index = self.value(index)?;
                let r = index
                    .as_rational()
                    .filter(|r| !r.is_zero())
                    .ok_or(NormalError::Undefined)?;
                let base = self.value(radicand)?;
                self.rational_power(base, &r.recip(), "root")?
            }
            Expr::Func(f, arg) => self.function(*f, arg)?,
            Expr::LogBase(base, arg) => {
                let base = self.value(base)?;
                let arg = self.value(arg)?;
                Value::atom(Atom::Opaque(format!("log_({base})({arg})")), self.budget)?
            }
            Expr::Factorial(n) => {
                let n = self.value(n)?;
                match n
                    .as_rational()
                    .filter(|q| q.is_integer() && !q.is_negative())
                {
                    Some(q) => Value::constant(factorial(q.numer(), self.budget)?),
                    None => Value::atom(Atom::Opaque(format!("({n})!")), self.budget)?,
                }
            }
            Expr::Binom(n, k) => {
                let n = self.value(n)?;
                let k = self.value(k)?;
                match (n.as_rational(), k.as_rational()) {
                    (Some(n), Some(k)) if n.is_integer() && k.is_integer() => {
                        Value::constant(binomial(n.numer(), k.numer(), self.budget)?)
                    }
                    _ => Value::atom(Atom::Opaque(format!("binom({n},{k})")), self.budget)?,
                }
            }
            Expr::Abs(x) => {
                let v = self.value(x)?;
                if let Some(modulus) = self.complex_modulus(&v)? {
                    return Ok(modulus);
                }
                match v.as_rational() {
                    Some(q) => Value::constant(q.abs()),
                    None => match v
                        .as_monomial()
                        .filter(|m| m.is_constant() && positive_atoms(m))
                    {
                        Some(m) => {
                            if m.coeff.is_negative() {
                                v.neg()
                            } else {
                                v
                            }
                        }
                        None => Value::atom(Atom::Opaque(format!("|{v}|")), self.budget)?,
                    },
                }
            }
            Expr::Percent(x) => {
                let v = self.value(x)?;
                v.div(
                    &Value::constant(BigRational::from_integer(100.into())),
                    self.budget,
                )?
            }
            Expr::Degree(x) => self.value(x)?,
            _ => return Err(NormalError::NotScalar),
        })
    }

    fn power(&mut self, base: &Expr, exp: &Expr) -> Result<Value, NormalError> {
        let exp_v = self.value(exp)?;
        if let Some(r) = exp_v.as_rational() {
            let base_v = self.value(base)?;
            return self.rational_power(base_v, &r, "pow");
        }
        let base_v = self.value(base)?;
        if matches!(base, Expr::Const(Constant::E)) {
            if let Some(z) = self.unit_complex(&exp_v)? {
                return Ok(z);
            }
            return Ok(Value::atom(
                Atom::Opaque(format!("exp({exp_v})")),
                self.budget,
            )?);
        }
        Ok(Value::atom(
            Atom::Opaque(format!("({base_v})^({exp_v})")),
            self.budget,
        )?)
    }

    fn rational_power(
        &mut self,
        base: Value,
        r: &BigRational,
        what: &str,
    ) -> Result<Value, NormalError> {
        match base.pow_rational(r, self.budget)? {
            Some(v) => Ok(v),
            None => {
                let key = format!("{what}({base};{}/{})", r.numer(), r.denom());
                Ok(Value::atom(Atom::Opaque(key), self.budget)?)
            }
        }
    }

    fn function(&mut self, f: Func, arg: &Expr) -> Result<Value, NormalError> {
        let v = self.value(arg)?;
        if f.is_trigonometric() {
            if let Some(exact) = self.exact_trig(f, &v)? {
                return Ok(exact);
            }
        }
        if f == Func::Exp {
            if let Some(z) = self.unit_complex(&v)? {
                return Ok(z);
            }
            if let Some(r) = v.as_rational() {
                let e = Value::atom(Atom::E, self.budget)?;
                return self.rational_power(e, &r, "pow");
            }
            return Ok(Value::atom(Atom::Opaque(format!("exp({v})")), self.budget)?);
        }
        if matches!(f, Func::Ln | Func::Log) && v.as_rational() == Some(BigRational::one()) {
            return Ok(Value::constant(BigRational::zero()));
        }
        if f == Func::Ln {
            if let Some(m) = v.as_monomial() {
                // ln(e^q) = q
                if m.coeff.is_one() && m.factors.len() == 1 && m.factors[0].0 == Atom::E {
                    return Ok(Value::constant(m.factors[0].1.clone()));
                }
            }
        }
        self.opaque_function(f, &v)
    }

    /// `f(v)` as an opaque atom keyed by the normal form of its argument.
    fn opaque_function(&mut self, f: Func, v: &Value) -> Result<Value, NormalError> {
        Ok(Value::atom(
            Atom::Opaque(format!("{}({v})", f.name())),
            self.budget,
        )?)
    }
}

/// `sin(kπ/12)` for `k = 0..=6`, from which every multiple of `π/12` follows.
const SIN_TWELFTHS: [&str; 7] = [
    "0",
    "\\frac{\\sqrt{6}-\\sqrt{2}}{4}",
    "\\frac{1}{2}",
    "\\frac{\\sqrt{2}}{2}",
    "\\frac{\\sqrt{3}}{2}",
    "\\frac{\\sqrt{6}+\\sqrt{2}}{4}",
    "1",
];

/// `q` when `v = q·π` (including `v = 0`).
fn pi_multiple(v: &Value) -> Option<BigRational> {
    if let Some(q) = v.as_rational() {
        return q.is_zero().then(BigRational::zero);
    }
    let m = v.as_monomial()?;
    (m.factors == [(Atom::Pi, BigRational::one())]).then_some(m.coeff)
}

/// `q` when `v = i·q·π`.
fn imaginary_pi_multiple(v: &Value) -> Option<BigRational> {
    let m = v.as_monomial()?;
    let one = BigRational::one();
    (m.factors == [(Atom::Pi, one.clone()), (Atom::I, one)]
        || m.factors
            == [
                (Atom::I, BigRational::one()),
                (Atom::Pi, BigRational::one()),
            ])
    .then_some(m.coeff)
}

impl Normalizer<'_> {
    /// `sin(kπ/12)` exactly, for any integer `k`.
    fn sin_twelfths(&mut self, k: &BigInt) -> Result<Value, NormalError> {
        let k = k.mod_floor(&BigInt::from(24)).to_usize().unwrap_or(0);
        let (negative, k) = if k >= 12 { (true, k - 12) } else { (false, k) };
        let k = if k > 6 { 12 - k } else { k };
        let parsed = super::parser::parse(SIN_TWELFTHS[k])
            .map_err(|_| NormalError::NotScalar)?
            .expr;
        let v = self.value(&parsed)?;
        Ok(if negative { v.neg() } else { v })
    }

    /// The exact value of a trigonometric function at a multiple of `π/12`
    /// (`\\cos\\frac{\\pi}{6}`, `\\sin 30^\\circ`); `None` at other arguments.
    fn exact_trig(&mut self, f: Func, v: &Value) -> Result<Option<Value>, NormalError> {
        let Some(q) = pi_multiple(v) else {
            return Ok(None);
        };
        let twelfths = q * BigRational::from_integer(12.into());
        if !twelfths.is_integer() {
            return Ok(None);
        }
        let k = twelfths.to_integer();
        let sin = self.sin_twelfths(&k)?;
        let cos = self.sin_twelfths(&(k + 6))?;
        let one = Value::constant(BigRational::one());
        let b = &mut *self.budget;
        Ok(Some(match f {
            Func::Sin => sin,
            Func::Cos => cos,
            Func::Tan => sin.div(&cos, b)?,
            Func::Cot => cos.div(&sin, b)?,
            Func::Sec => one.div(&cos, b)?,
            Func::Csc => one.div(&sin, b)?,
            _ => return Ok(None),
        }))
    }

    /// `e^{iθ}` = `cos θ + i sin θ` for `θ` a multiple of `π/12` (`e^{i\\pi}` = −1).
    fn unit_complex(&mut self, exponent: &Value) -> Result<Option<Value>, NormalError> {
        let Some(q) = imaginary_pi_multiple(exponent) else {
            return Ok(None);
        };
        let theta = Value::atom(Atom::Pi, self.budget)?.mul(&Value::constant(q), self.budget)?;
        // Other angles keep `cos θ`, `sin θ` as atoms, as `\\cos θ + i \\sin θ` does.
        let cos = match self.exact_trig(Func::Cos, &theta)? {
            Some(v) => v,
            None => self.opaque_function(Func::Cos, &theta)?,
        };
        let sin = match self.exact_trig(Func::Sin, &theta)? {
            Some(v) => v,
            None => self.opaque_function(Func::Sin, &theta)?,
        };
        let i = Value::atom(Atom::I, self.budget)?;
        Ok(Some(cos.add(&sin.mul(&i, self.budget)?, self.budget)?))
    }

    /// `|a + bi|` = `√(a² + b²)` for a complex constant made of radicals and `i`.
    fn complex_modulus(&mut self, v: &Value) -> Result<Option<Value>, NormalError> {
        let Some(den) = v.den.as_constant() else {
            return Ok(None);
        };
        let mut re = Value::constant(BigRational::zero());
        let mut im = Value::constant(BigRational::zero());
        let mut complex = false;
        for mut m in v.num.monomials() {
            if !m
                .factors
                .iter()
                .all(|(a, _)| matches!(a, Atom::Int(_) | Atom::I))
            {
                return Ok(None);
            }
            let imaginary = m.factors.iter().any(|(a, _)| *a == Atom::I);
            m.factors.retain(|(a, _)| *a != Atom::I);
            let part = Value::from_poly(super::exact::Poly::from_monomial(m));
            if imaginary {
                complex = true;
                im = im.add(&part, self.budget)?;
            } else {
                re = re.add(&part, self.budget)?;
            }
        }
        if !complex {
            return Ok(None);
        }
        let b = &mut *self.budget;
        let square = re.mul(&re, b)?.add(&im.mul(&im, b)?, b)?;
        let square = square.div(&Value::constant(&den * &den), b)?;
        let half = BigRational::new(1.into(), 2.into());
        self.rational_power(square, &half, "root").map(Some)
    }
}

/// Whether every atom of a constant monomial is a positive real (primes, π, e).
fn positive_atoms(m: &super::exact::Monomial) -> bool {
    m.factors
        .iter()
        .all(|(a, _)| matches!(a, Atom::Int(_) | Atom::Pi | Atom::E))
}

fn factorial(n: &BigInt, budget: &mut Budget) -> Arith<BigRational> {
    let n = n
        .to_u64()
        .filter(|&n| n <= MAX_FACTORIAL)
        .ok_or(LimitHit::NumberTooLarge)?;
    let mut acc = BigInt::one();
    for k in 2..=n {
        budget.charge(1 + acc.bits() / 64)?;
        acc *= k;
        if acc.bits() > MAX_BITS {
            return Err(LimitHit::NumberTooLarge.into());
        }
    }
    Ok(BigRational::from_integer(acc))
}

fn binomial(n: &BigInt, k: &BigInt, budget: &mut Budget) -> Arith<BigRational> {
    if k.is_negative() || k > n || n.is_negative() {
        return Ok(BigRational::zero());
    }
    let n = n
        .to_u64()
        .filter(|&n| n <= MAX_FACTORIAL)
        .ok_or(LimitHit::NumberTooLarge)?;
    let k = k.to_u64().unwrap_or(0).min(n - k.to_u64().unwrap_or(0));
    let mut acc = BigInt::one();
    for j in 0..k {
        budget.charge(1 + acc.bits() / 64)?;
        acc = acc * (n - j) / (j + 1);
    }
    Ok(BigRational::from_integer(acc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::parser::parse;

    fn nf(s: &str) -> String {
        let e = parse(s).unwrap().expr;
        normalize(&e, &mut Budget::default()).unwrap().to_string()
    }

    #[test]
    fn normal_forms() {
        assert_eq!(nf("\\frac{6}{4}"), "3/2");
        assert_eq!(nf("0.25"), "1/4");
        assert_eq!(nf("\\sqrt{8}"), "2*2^(1/2)");
        assert_eq!(nf("\\sqrt{1/2}"), "1/2*2^(1/2)");
        assert_eq!(nf("2^{-2}"), "1/4");
        assert_eq!(nf("5!"), "120");
        assert_eq!(nf("\\binom{5}{2}"), "10");
        assert_eq!(nf("e^{2}\\pi"), "pi*e^(2)");
        assert_eq!(nf("\\ln(e^3)"), "3");
        assert_eq!(nf("\\sqrt[3]{-8}"), "-2");
    }

    #[test]
    fn limits_are_errors_not_hangs() {
        let e = parse("10^{10^{10^{10}}}").unwrap().expr;
        assert!(matches!(
            normalize(&e, &mut Budget::default()),
            Err(NormalError::Limit(_))
        ));
        let e = parse("100000!").unwrap().expr;
        assert!(matches!(
            normalize(&e, &mut Budget::default()),
            Err(NormalError::Limit(_))
        ));
    }
}
