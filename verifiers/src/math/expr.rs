//! The expression tree that parsed answers become, before normalisation.

use num_bigint::BigInt;
use num_rational::BigRational;

/// A written number. Keeps how it was written (decimal places) because the
/// decimal-vs-fraction rule depends on the digits shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numeral {
    /// All digits, without separators or the decimal point.
    pub digits: String,
    /// Digits after the decimal point (0 for an integer).
    pub places: u32,
    /// Whether a decimal point was written (`3.` and `3.0` are decimals).
    pub decimal: bool,
    /// Power of ten from scientific notation (`1.5e3` → 3).
    pub exp10: i64,
}

impl Numeral {
    /// The exact value, or `None` when the scale would exceed the size limit.
    pub fn value(&self) -> Option<BigRational> {
        let mantissa: BigInt = self.digits.parse().ok()?;
        let scale = self.exp10 - i64::from(self.places);
        if scale.unsigned_abs() > super::limits::MAX_NUMERAL_DIGITS as u64 {
            return None;
        }
        let ten = BigInt::from(10u32);
        let power = num_traits::pow(ten, scale.unsigned_abs() as usize);
        Some(if scale >= 0 {
            BigRational::from_integer(mantissa * power)
        } else {
            BigRational::new(mantissa, power)
        })
    }

    /// An integer numeral (no decimal point, no exponent).
    pub fn is_integer_literal(&self) -> bool {
        !self.decimal && self.exp10 == 0
    }

    /// Digits shown after the decimal point, once scientific notation is applied.
    pub fn shown_places(&self) -> i64 {
        i64::from(self.places) - self.exp10
    }
}

/// Named constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Constant {
    Pi,
    E,
    I,
    Infinity,
}

/// Functions without an exact normal form: compared numerically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Func {
    Sin,
    Cos,
    Tan,
    Cot,
    Sec,
    Csc,
    Arcsin,
    Arccos,
    Arctan,
    Sinh,
    Cosh,
    Tanh,
    Ln,
    /// Logarithm; base 10 unless written `\log_b`.
    Log,
    Exp,
}

impl Func {
    pub fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "sin" => Func::Sin,
            "cos" => Func::Cos,
            "tan" | "tg" => Func::Tan,
            "cot" | "ctg" => Func::Cot,
            "sec" => Func::Sec,
            "csc" => Func::Csc,
            "arcsin" => Func::Arcsin,
            "arccos" => Func::Arccos,
            "arctan" => Func::Arctan,
            "sinh" => Func::Sinh,
            "cosh" => Func::Cosh,
            "tanh" => Func::Tanh,
            "ln" => Func::Ln,
            "log" | "lg" => Func::Log,
            "exp" => Func::Exp,
            _ => return None,
        })
    }

    /// `sin`, `cos`, `tan` and their reciprocals (arguments in radians, or degrees
    /// when written with `^\circ`).
    pub fn is_trigonometric(self) -> bool {
        matches!(
            self,
            Func::Sin | Func::Cos | Func::Tan | Func::Cot | Func::Sec | Func::Csc
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Cot => "cot",
            Func::Sec => "sec",
            Func::Csc => "csc",
            Func::Arcsin => "arcsin",
            Func::Arccos => "arccos",
            Func::Arctan => "arctan",
            Func::Sinh => "sinh",
            Func::Cosh => "cosh",
            Func::Tanh => "tanh",
            Func::Ln => "ln",
            Func::Log => "log",
            Func::Exp => "exp",
        }
    }
}

/// Comparison operators of equations and inequalities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelOp {
    Eq,
    /// `\approx`: the chain's exact value is the side before it.
    Approx,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl RelOp {
    /// The operator seen from the other side (`a < b` ⇔ `b > a`).
    pub fn flipped(self) -> RelOp {
        match self {
            RelOp::Lt => RelOp::Gt,
            RelOp::Le => RelOp::Ge,
            RelOp::Gt => RelOp::Lt,
            RelOp::Ge => RelOp::Le,
            other => other,
        }
    }
}

/// A parsed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(Numeral),
    Var(String),
    Const(Constant),
    Neg(Box<Expr>),
    Add(Vec<Expr>),
    Mul(Vec<Expr>),
    Div(Box<Expr>, Box<Expr>),
    Pow(Box<Expr>, Box<Expr>),
    /// `\sqrt[index]{radicand}`.
    Root(Box<Expr>, Box<Expr>),
    /// A function applied to an argument; `Log` carries its base in `log_base`.
    Func(Func, Box<Expr>),
    LogBase(Box<Expr>, Box<Expr>),
    Factorial(Box<Expr>),
    Binom(Box<Expr>, Box<Expr>),
    Abs(Box<Expr>),
    /// `x\%`: the value `x/100`, remembered as a percentage.
    Percent(Box<Expr>),
    /// `x^\circ`: degrees, compared as the bare number.
    Degree(Box<Expr>),
    /// `a \pm b` (`a` is zero for a leading `\pm`): the set `{a+b, a-b}`.
    PlusMinus(Box<Expr>, Box<Expr>),
    /// A bare comma-separated list (`1, 2, 3`): compared as a set.
    List(Vec<Expr>),
    /// `\{…\}`: unordered.
    Set(Vec<Expr>),
    /// `(a, b)`, `[a, b)`, …: ordered; the brackets matter (intervals).
    Tuple {
        open: char,
        close: char,
        items: Vec<Expr>,
    },
    Union(Vec<Expr>),
    Matrix(Vec<Vec<Expr>>),
    /// `a = b`, `a < b ≤ c`, …: `sides.len() == ops.len() + 1`.
    Relation {
        sides: Vec<Expr>,
        ops: Vec<RelOp>,
    },
    /// Words: compared as normalised text.
    Text(String),
}

impl Expr {
    pub fn integer(n: i64) -> Expr {
        Expr::Num(Numeral {
            digits: n.unsigned_abs().to_string(),
            places: 0,
            decimal: false,
            exp10: 0,
        })
        .negated_if(n < 0)
    }

    fn negated_if(self, neg: bool) -> Expr {
        if neg {
            Expr::Neg(Box::new(self))
        } else {
            self
        }
    }

    /// The numeral when the expression is a (possibly negated) written number.
    pub fn as_signed_numeral(&self) -> Option<(bool, &Numeral)> {
        match self {
            Expr::Num(n) => Some((false, n)),
            Expr::Neg(inner) => match inner.as_ref() {
                Expr::Num(n) => Some((true, n)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Calls `f` on this node and every node below it.
    pub fn visit(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Num(_) | Expr::Var(_) | Expr::Const(_) | Expr::Text(_) => {}
            Expr::Neg(x)
            | Expr::Func(_, x)
            | Expr::Factorial(x)
            | Expr::Abs(x)
            | Expr::Percent(x)
            | Expr::Degree(x) => x.visit(f),
            Expr::Div(a, b)
            | Expr::Pow(a, b)
            | Expr::Root(a, b)
            | Expr::LogBase(a, b)
            | Expr::Binom(a, b)
            | Expr::PlusMinus(a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Expr::Add(xs)
            | Expr::Mul(xs)
            | Expr::List(xs)
            | Expr::Set(xs)
            | Expr::Union(xs)
            | Expr::Tuple { items: xs, .. }
            | Expr::Relation { sides: xs, .. } => xs.iter().for_each(|x| x.visit(f)),
            Expr::Matrix(rows) => rows.iter().flatten().for_each(|x| x.visit(f)),
        }
    }

    /// Whether this is a value (not a structure such as a set or relation).
    pub fn is_scalar(&self) -> bool {
        !matches!(
            self,
            Expr::List(_)
                | Expr::Set(_)
                | Expr::Tuple { .. }
                | Expr::Union(_)
                | Expr::Matrix(_)
                | Expr::Relation { .. }
                | Expr::Text(_)
                | Expr::PlusMinus(..)
        )
    }
}
