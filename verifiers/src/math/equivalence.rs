//! Decides whether a parsed answer equals a parsed gold answer.
//!
//! Structure first, then values:
//! - text against text: equal after lower-casing and removing spaces; text never
//!   equals math;
//! - relations: inequalities in one variable become intervals (`1<x<2` = `(1,2)`);
//!   `x = v` compares by `v` when the other side is a value; two equations are equal
//!   when `lhs − rhs` of one is a non-zero constant multiple of the other's (so
//!   `2x+4y-3=0` = `y=-x/2+3/4`, but `3x-y+13=0` ≠ `3x+4y+14=0`);
//! - sets and bare lists are unordered; tuples, intervals and matrices are ordered and
//!   the brackets must agree; `a \pm b` is the set `{a+b, a-b}`;
//! - scalars: exact normal forms ([`super::exact`]); the numeric check only when a
//!   normal form contains an opaque atom; plus the decimal and percentage rules of the
//!   `math` module docs.

use std::collections::HashMap;

use num_rational::BigRational;
use num_traits::{Signed, Zero};

use super::approx::{Approx, Real};
use super::exact::{Monomial, Poly, Value};
use super::expr::{Constant, Expr, RelOp};
use super::limits::{Budget, LimitHit};
use super::normal::{normalize, NormalError};
use super::numeric::{self, NumericVerdict};

/// The result of one comparison, with a short stable reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Equal(&'static str),
    NotEqual(&'static str),
    /// A size or work limit was hit before the comparison could be decided.
    Undecidable(LimitHit),
}

impl Outcome {
    pub fn is_equal(&self) -> bool {
        matches!(self, Outcome::Equal(_))
    }
}

/// Compares an answer expression with a gold expression.
#[cfg(test)]
pub fn compare(gold: &Expr, answer: &Expr, budget: &mut Budget) -> Outcome {
    compare_with_known(gold, answer, Vec::new(), None, budget)
}

/// Like [`compare`], reusing normal forms the caller already computed (keyed by the
/// identity of the sub-expression), so no value is normalised twice.
pub fn compare_with_known<'e>(
    gold: &'e Expr,
    answer: &'e Expr,
    known: Vec<(&'e Expr, Value)>,
    approx: Option<Approx>,
    budget: &mut Budget,
) -> Outcome {
    let known = known
        .into_iter()
        .map(|(e, v)| (std::ptr::from_ref(e) as usize, v))
        .collect();
    Comparer {
        budget,
        approx,
        known,
    }
    .compare(gold, answer)
}

struct Comparer<'b> {
    budget: &'b mut Budget,
    /// The opt-in rounding rule; `None` compares exactly.
    approx: Option<Approx>,
    /// Normal forms already computed, keyed by the address of their expression
    /// (the trees outlive the comparison and are not moved during it).
    known: HashMap<usize, Value>,
}

fn is_collection(e: &Expr) -> bool {
    matches!(
        e,
        Expr::List(_)
            | Expr::Set(_)
            | Expr::Tuple { .. }
            | Expr::Union(_)
            | Expr::Matrix(_)
            | Expr::PlusMinus(..)
    )
}

/// `a ± b` as the list `[a+b, a-b]`.
fn expand_plus_minus(e: &Expr) -> Option<Vec<Expr>> {
    let Expr::PlusMinus(a, b) = e else {
        return None;
    };
    Some(vec![
        Expr::Add(vec![(**a).clone(), (**b).clone()]),
        Expr::Add(vec![(**a).clone(), Expr::Neg(b.clone())]),
    ])
}

/// The items of a set or bare list, with `a ± b` items split in two and lifted
/// alternatives spliced in.
fn flatten_plus_minus(e: &Expr) -> Option<Vec<Expr>> {
    let (Expr::List(items) | Expr::Set(items)) = e else {
        return None;
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match (expand_plus_minus(item), item) {
            (Some(pair), _) => out.extend(pair),
            // Alternatives lifted out of a nested `±` (see `plus_minus`).
            (None, Expr::List(alternatives)) => out.extend(alternatives.iter().cloned()),
            (None, _) => out.push(item.clone()),
        }
    }
    Some(out)
}

/// An interval with its end points and closedness.
struct Interval {
    lo: Expr,
    lo_closed: bool,
    hi: Expr,
    hi_closed: bool,
}

fn infinity(negative: bool) -> Expr {
    let inf = Expr::Const(Constant::Infinity);
    if negative {
        Expr::Neg(Box::new(inf))
    } else {
        inf
    }
}

fn interval(lo: Expr, lo_closed: bool, hi: Expr, hi_closed: bool) -> Interval {
    Interval {
        lo,
        lo_closed,
        hi,
        hi_closed,
    }
}

/// Reads tuples of two, unions of them, and one-variable inequalities as intervals.
fn as_intervals(e: &Expr) -> Option<Vec<Interval>> {
    match e {
        Expr::Tuple { open, close, items } if items.len() == 2 => Some(vec![interval(
            items[0].clone(),
            *open == '[',
            items[1].clone(),
            *close == ']',
        )]),
        Expr::Union(parts) => {
            let mut out = Vec::new();
            for p in parts {
                out.extend(as_intervals(p)?);
            }
            Some(out)
        }
        Expr::List(items) if inequality_list(e) => {
            // `x \ge 2 \text{ and } x \ne 5`: the ranges, less the excluded points.
            let (points, ranges): (Vec<&Expr>, Vec<&Expr>) =
                items.iter().partition(|i| excluded_point(i).is_some());
            let mut out = Vec::new();
            for item in ranges {
                out.extend(as_intervals(item)?);
            }
            if out.is_empty() {
                out.push(interval(infinity(true), false, infinity(false), false));
            }
            let mut out = joined_half_lines(out);
            for point in points {
                out = without_point(out, excluded_point(point)?)?;
            }
            Some(out)
        }
        // `x \in [a, b]` (read as `x = [a, b]`).
        Expr::Relation { sides, ops } if ops == &[RelOp::Eq] && is_name_like(&sides[0]) => {
            as_intervals(&sides[1])
        }
        // `x \ne 2`: everything but one point.
        Expr::Relation { sides, ops } if ops == &[RelOp::Ne] && is_name_like(&sides[0]) => {
            Some(vec![
                interval(infinity(true), false, sides[1].clone(), false),
                interval(sides[1].clone(), false, infinity(false), false),
            ])
        }
        Expr::Relation { sides, ops } => {
            abs_intervals(sides, ops).or_else(|| inequality_interval(sides, ops).map(|i| vec![i]))
        }
        _ => None,
    }
}

/// Whether an expression is a list of inequalities in one variable (`x < -2, x > 3`,
/// from `x < -2 \text{ or } x > 3` or `… and …`); `x \ne c` items exclude points.
fn inequality_list(e: &Expr) -> bool {
    let Expr::List(items) = e else {
        return false;
    };
    let mut variable = None;
    items.len() >= 2
        && items.iter().all(|item| match item {
            Expr::Relation { sides, ops } if ops == &[RelOp::Ne] && is_name_like(&sides[0]) => {
                variable.get_or_insert(&sides[0]) == &&sides[0]
            }
            Expr::Relation { sides, ops }
                if ops
                    .iter()
                    .all(|o| matches!(o, RelOp::Lt | RelOp::Le | RelOp::Gt | RelOp::Ge)) =>
            {
                let Some(name) = sides.iter().find(|s| is_name_like(s)) else {
                    return false;
                };
                variable.get_or_insert(name) == &name
            }
            _ => false,
        })
}

/// The point an item `x \ne c` excludes.
fn excluded_point(item: &Expr) -> Option<&Expr> {
    match item {
        Expr::Relation { sides, ops } if ops == &[RelOp::Ne] && is_name_like(&sides[0]) => {
            sides.get(1)
        }
        _ => None,
    }
}

/// `parts` without the point `p` (an end point is opened, an interior point splits
/// its interval); `None` when a value cannot be computed.
fn without_point(parts: Vec<Interval>, p: &Expr) -> Option<Vec<Interval>> {
    let mut budget = Budget::new(2_000);
    let value = |e: &Expr, budget: &mut Budget| match e {
        e if *e == infinity(true) => Some(f64::NEG_INFINITY),
        e if *e == infinity(false) => Some(f64::INFINITY),
        e => numeric::constant_value(e, budget),
    };
    let at = value(p, &mut budget)?;
    let mut out = Vec::with_capacity(parts.len() + 1);
    for mut i in parts {
        let (lo, hi) = (value(&i.lo, &mut budget)?, value(&i.hi, &mut budget)?);
        if at < lo || at > hi {
            out.push(i);
        } else if at == lo || at == hi {
            i.lo_closed &= at != lo;
            i.hi_closed &= at != hi;
            out.push(i);
        } else {
            out.push(interval(i.lo, i.lo_closed, p.clone(), false));
            out.push(interval(p.clone(), false, i.hi, i.hi_closed));
        }
    }
    Some(out)
}

/// Two half-lines that overlap (`x > -2` and `x < 3`) mean their intersection,
/// `(-2, 3)`; half-lines that do not (`x \le -2` or `x \ge 3`) mean their union.
fn joined_half_lines(mut parts: Vec<Interval>) -> Vec<Interval> {
    let [a, b] = parts.as_slice() else {
        return parts;
    };
    let (below, above) = match (a.lo == infinity(true), b.hi == infinity(false)) {
        (true, true) if a.hi != infinity(false) && b.lo != infinity(true) => (a, b),
        _ if b.lo == infinity(true) && a.hi == infinity(false) => (b, a),
        _ => return parts,
    };
    let mut budget = Budget::new(2_000);
    let (Some(upper), Some(lower)) = (
        numeric::constant_value(&below.hi, &mut budget),
        numeric::constant_value(&above.lo, &mut budget),
    ) else {
        return parts;
    };
    if lower < upper {
        let (lo, lo_closed) = (above.lo.clone(), above.lo_closed);
        let (hi, hi_closed) = (below.hi.clone(), below.hi_closed);
        parts = vec![interval(lo, lo_closed, hi, hi_closed)];
    }
    parts
}

/// An inequality on `|x|` with numeric bounds: `1 \le |z| \le 2` is
/// `[-2,-1] ∪ [1,2]`, `|x| < 3` is `(-3,3)`, `|x| \ge 1` is `(-∞,-1] ∪ [1,∞)`.
fn abs_intervals(sides: &[Expr], ops: &[RelOp]) -> Option<Vec<Interval>> {
    let at = sides.iter().position(is_name_like)?;
    let Expr::Abs(inner) = &sides[at] else {
        return None;
    };
    if matches!(**inner, Expr::Abs(_)) || !is_name_like(inner) {
        return None;
    }
    let i = inequality_interval(sides, ops)?;
    let below = i.lo == infinity(true);
    let above = i.hi == infinity(false);
    let numeric = |e: &Expr| match e {
        Expr::Num(_) => true,
        Expr::Div(a, b) => matches!((&**a, &**b), (Expr::Num(_), Expr::Num(_))),
        _ => false,
    };
    if (!below && !numeric(&i.lo)) || (!above && !numeric(&i.hi)) || (below && above) {
        return None;
    }
    let neg = |e: &Expr| Expr::Neg(Box::new(e.clone()));
    let zero = matches!(&i.lo, Expr::Num(n) if n.digits.bytes().all(|d| d == b'0'));
    Some(if below || (zero && i.lo_closed) {
        vec![interval(neg(&i.hi), i.hi_closed, i.hi, i.hi_closed)]
    } else if above {
        vec![
            interval(infinity(true), false, neg(&i.lo), i.lo_closed),
            interval(i.lo, i.lo_closed, infinity(false), false),
        ]
    } else {
        vec![
            interval(neg(&i.hi), i.hi_closed, neg(&i.lo), i.lo_closed),
            interval(i.lo, i.lo_closed, i.hi, i.hi_closed),
        ]
    })
}

fn inequality_interval(sides: &[Expr], ops: &[RelOp]) -> Option<Interval> {
    let var_at = sides.iter().position(is_name_like)?;
    if ops
        .iter()
        .any(|o| matches!(o, RelOp::Eq | RelOp::Ne | RelOp::Approx))
    {
        return None;
    }
    // Normalise to ascending form: `a < x ≤ b`.
    let ascending = ops.iter().all(|o| matches!(o, RelOp::Lt | RelOp::Le));
    let descending = ops.iter().all(|o| matches!(o, RelOp::Gt | RelOp::Ge));
    let (sides, ops, var_at): (Vec<Expr>, Vec<RelOp>, usize) = if ascending {
        (sides.to_vec(), ops.to_vec(), var_at)
    } else if descending {
        (
            sides.iter().rev().cloned().collect(),
            ops.iter().rev().map(|o| o.flipped()).collect(),
            sides.len() - 1 - var_at,
        )
    } else {
        return None;
    };
    match (sides.len(), var_at) {
        (2, 0) => Some(interval(
            infinity(true),
            false,
            sides[1].clone(),
            ops[0] == RelOp::Le,
        )),
        (2, 1) => Some(interval(
            sides[0].clone(),
            ops[0] == RelOp::Le,
            infinity(false),
            false,
        )),
        (3, 1) => Some(interval(
            sides[0].clone(),
            ops[0] == RelOp::Le,
            sides[2].clone(),
            ops[1] == RelOp::Le,
        )),
        _ => None,
    }
}

/// `x = v` (or a chain `x = … = v`): the final value; with `\approx` in the chain, the
/// side before the first `\approx` (`x = 1/3 \approx 0.33` is `1/3`).
fn equation_value(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Relation { sides, ops }
            if ops.iter().all(|o| matches!(o, RelOp::Eq | RelOp::Approx)) =>
        {
            match ops.iter().position(|o| *o == RelOp::Approx) {
                // `x \approx 11`: the name is not the value.
                Some(0) if is_name_like(&sides[0]) => sides.get(1),
                Some(k) => sides.get(k),
                None => sides.last(),
            }
        }
        _ => None,
    }
}

/// Whether an expression only names something: variables combined without numbers
/// (`x`, `AB`, `f(x)`, `(p, q)`, `|AB|`, `NO/BO`), as on the left of `name = value`.
fn is_name_like(e: &Expr) -> bool {
    fn walk(e: &Expr, vars: &mut usize) -> bool {
        match e {
            Expr::Var(_) => {
                *vars += 1;
                true
            }
            Expr::Mul(xs) => xs.iter().all(|x| walk(x, vars)),
            Expr::Div(a, b) => walk(a, vars) && walk(b, vars),
            Expr::Abs(x) => walk(x, vars),
            // `f^{-1}(x)`, `x^2`: a named thing to a power still names it.
            Expr::Pow(base, _) => walk(base, vars),
            Expr::Tuple { items, .. } => items.iter().all(|x| walk(x, vars)),
            _ => false,
        }
    }
    let mut vars = 0;
    walk(e, &mut vars) && vars > 0
}

/// The left side, when an equation names what it defines (`x = …`, `f(x) = …`).
fn equation_variable(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Relation { sides, ops }
            if ops.iter().all(|o| matches!(o, RelOp::Eq | RelOp::Approx))
                && is_name_like(&sides[0]) =>
        {
            Some(&sides[0])
        }
        _ => None,
    }
}

impl Comparer<'_> {
    fn compare(&mut self, g: &Expr, r: &Expr) -> Outcome {
        // Each comparison clones and walks trees: charged so pairings stay bounded.
        if let Err(limit) = self.budget.charge(20) {
            return Outcome::Undecidable(limit);
        }
        match (g, r) {
            (Expr::Text(a), Expr::Text(b)) => {
                if a == b {
                    Outcome::Equal("same text")
                } else {
                    Outcome::NotEqual("different text")
                }
            }
            (Expr::Text(_), _) | (_, Expr::Text(_)) => Outcome::NotEqual("text against math"),
            (Expr::Relation { .. }, _) | (_, Expr::Relation { .. }) => self.relations(g, r),
            _ if is_collection(g) || is_collection(r) => self.collections(g, r),
            _ => self.scalars(g, r),
        }
    }

    fn relations(&mut self, g: &Expr, r: &Expr) -> Outcome {
        let g_rel = matches!(g, Expr::Relation { .. });
        let r_rel = matches!(r, Expr::Relation { .. });
        let g_ineq = g_rel && equation_value(g).is_none();
        let r_ineq = r_rel && equation_value(r).is_none();
        if g_ineq || r_ineq {
            return match (as_intervals(g), as_intervals(r)) {
                (Some(a), Some(b)) => self.interval_sets(&a, &b),
                _ if g_ineq && r_ineq => match self.same_relation(g, r) {
                    Outcome::Equal(why) => Outcome::Equal(why),
                    _ => self.scaled_inequalities(g, r),
                },
                _ => Outcome::NotEqual("inequality against a different kind of answer"),
            };
        }
        match (equation_value(g), equation_value(r)) {
            (Some(gv), Some(rv)) => match (equation_variable(g), equation_variable(r)) {
                (Some(a), Some(b)) if a == b => self.compare(gv, rv),
                _ => self.proportional_equations(g, r),
            },
            // `x = 5` against `5`; but `7 = 11a + c` is not the value `11a + c`.
            (Some(gv), None) if equation_variable(g).is_some() => self.compare(gv, r),
            (Some(_), None) => Outcome::NotEqual("equation against a value"),
            (None, Some(rv)) => self.compare(g, rv),
            (None, None) => Outcome::NotEqual("relations differ"),
        }
    }

    /// Two inequalities that are not intervals: same operators (or all flipped), same sides.
    fn same_relation(&mut self, g: &Expr, r: &Expr) -> Outcome {
        let (Expr::Relation { sides: gs, ops: go }, Expr::Relation { sides: rs, ops: ro }) = (g, r)
        else {
            return Outcome::NotEqual("relations differ");
        };
        if gs.len() != rs.len() {
            return Outcome::NotEqual("relations differ");
        }
        if go == ro {
            return self.ordered(gs, rs, "same relation");
        }
        let flipped: Vec<RelOp> = ro.iter().rev().map(|o| o.flipped()).collect();
        if *go == flipped {
            let reversed: Vec<Expr> = rs.iter().rev().cloned().collect();
            return self.ordered(gs, &reversed, "same relation");
        }
        Outcome::NotEqual("relation operators differ")
    }

    /// `l₁ op₁ r₁` against `l₂ op₂ r₂`: equal when `l₁ − r₁ = k·(l₂ − r₂)` with a
    /// rational `k > 0` and the same operator, or `k < 0` and the flipped one
    /// (`x < 1` = `-x > -1`).
    fn scaled_inequalities(&mut self, g: &Expr, r: &Expr) -> Outcome {
        let (Expr::Relation { sides: gs, ops: go }, Expr::Relation { sides: rs, ops: ro }) = (g, r)
        else {
            return Outcome::NotEqual("relations differ");
        };
        if gs.len() != 2 || rs.len() != 2 {
            return Outcome::NotEqual("relations differ");
        }
        let result = (|| -> Result<Option<BigRational>, NormalError> {
            let b = &mut *self.budget;
            let p = normalize(&gs[0], b)?.sub(&normalize(&gs[1], b)?, b)?;
            let q = normalize(&rs[0], b)?.sub(&normalize(&rs[1], b)?, b)?;
            // Only constant denominators keep the sign reasoning valid.
            let (Some(pd), Some(qd)) = (p.den.as_constant(), q.den.as_constant()) else {
                return Ok(None);
            };
            let n = p.num.mul(&Poly::constant(qd), b)?;
            let d = q.num.mul(&Poly::constant(pd), b)?;
            rational_multiple(&n, &d, b)
        })();
        match result {
            Ok(Some(k)) if k.is_positive() && go == ro => {
                Outcome::Equal("inequalities are positive multiples")
            }
            Ok(Some(k)) if k.is_negative() && go[0] == ro[0].flipped() => {
                Outcome::Equal("inequalities are negative multiples, flipped")
            }
            Ok(_) => Outcome::NotEqual("inequalities differ"),
            Err(NormalError::Limit(l)) => Outcome::Undecidable(l),
            Err(_) => Outcome::NotEqual("inequality has no normal form"),
        }
    }

    /// `l₁ − r₁ = k·(l₂ − r₂)` for a non-zero constant `k`.
    fn proportional_equations(&mut self, g: &Expr, r: &Expr) -> Outcome {
        let (Expr::Relation { sides: gs, .. }, Expr::Relation { sides: rs, .. }) = (g, r) else {
            return Outcome::NotEqual("equations differ");
        };
        if gs.len() != 2 || rs.len() != 2 {
            return Outcome::NotEqual("equation chains differ");
        }
        let result = (|| -> Result<bool, NormalError> {
            let b = &mut *self.budget;
            let p = normalize(&gs[0], b)?.sub(&normalize(&gs[1], b)?, b)?;
            let q = normalize(&rs[0], b)?.sub(&normalize(&rs[1], b)?, b)?;
            let n = p.num.mul(&q.den, b)?;
            let d = p.den.mul(&q.num, b)?;
            if n.is_zero() || d.is_zero() {
                return Ok(n.is_zero() && d.is_zero());
            }
            constant_multiple(&n, &d, b)
        })();
        match result {
            Ok(true) => Outcome::Equal("equations are proportional"),
            Ok(false) => Outcome::NotEqual("equations are not proportional"),
            Err(NormalError::Limit(l)) => Outcome::Undecidable(l),
            Err(_) => Outcome::NotEqual("equation has no normal form"),
        }
    }

    fn interval_sets(&mut self, a: &[Interval], b: &[Interval]) -> Outcome {
        if a.len() != b.len() {
            return Outcome::NotEqual("different number of intervals");
        }
        let mut used = vec![false; b.len()];
        for x in a {
            let mut found = false;
            for (k, y) in b.iter().enumerate() {
                if used[k] || x.lo_closed != y.lo_closed || x.hi_closed != y.hi_closed {
                    continue;
                }
                match (self.compare(&x.lo, &y.lo), self.compare(&x.hi, &y.hi)) {
                    (Outcome::Equal(_), Outcome::Equal(_)) => {
                        used[k] = true;
                        found = true;
                        break;
                    }
                    (Outcome::Undecidable(l), _) | (_, Outcome::Undecidable(l)) => {
                        return Outcome::Undecidable(l)
                    }
                    _ => {}
                }
            }
            if !found {
                return Outcome::NotEqual("intervals differ");
            }
        }
        Outcome::Equal("same intervals")
    }

    fn collections(&mut self, g: &Expr, r: &Expr) -> Outcome {
        // `x \le -2 \text{ or } x \ge 3` against `(-\infty,-2] \cup [3,\infty)`.
        if inequality_list(g) || inequality_list(r) {
            return match (as_intervals(g), as_intervals(r)) {
                (Some(a), Some(b)) => self.interval_sets(&a, &b),
                _ => Outcome::NotEqual("inequalities against a different kind of answer"),
            };
        }
        let g_pm = expand_plus_minus(g);
        let r_pm = expand_plus_minus(r);
        let g_flat = g_pm.or_else(|| flatten_plus_minus(g));
        let r_flat = r_pm.or_else(|| flatten_plus_minus(r));
        let g_items = g_flat.as_deref();
        let r_items = r_flat.as_deref();
        match (g, r, g_items, r_items) {
            (_, _, Some(a), Some(b)) => {
                // `\{-2, 3, 3\}` is the set {-2, 3}; a bare list keeps its repeats.
                let a = match self.set_elements(g, a) {
                    Ok(a) => a,
                    Err(o) => return o,
                };
                let b = match self.set_elements(r, b) {
                    Ok(b) => b,
                    Err(o) => return o,
                };
                self.unordered(&a, &b)
            }
            (
                Expr::Tuple {
                    open: o1,
                    close: c1,
                    items: a,
                },
                Expr::Tuple {
                    open: o2,
                    close: c2,
                    items: b,
                },
                _,
                _,
            ) => {
                if o1 != o2 || c1 != c2 {
                    return Outcome::NotEqual("brackets differ");
                }
                self.ordered(a, b, "same tuple")
            }
            // A point written without parentheses (`1, 2` for `(1, 2)`).
            (
                Expr::Tuple {
                    open: '(',
                    close: ')',
                    items: a,
                },
                Expr::List(b),
                _,
                _,
            )
            | (
                Expr::List(a),
                Expr::Tuple {
                    open: '(',
                    close: ')',
                    items: b,
                },
                _,
                _,
            ) => self.ordered(a, b, "same tuple"),
            (Expr::Union(_), _, _, _) | (_, Expr::Union(_), _, _) => {
                match (as_intervals(g), as_intervals(r)) {
                    (Some(a), Some(b)) => self.interval_sets(&a, &b),
                    _ => Outcome::NotEqual("unions differ"),
                }
            }
            // A vector written as a one-column or one-row matrix against a tuple.
            (
                Expr::Matrix(m),
                Expr::Tuple {
                    open: '(',
                    close: ')',
                    items,
                },
                _,
                _,
            )
            | (
                Expr::Tuple {
                    open: '(',
                    close: ')',
                    items,
                },
                Expr::Matrix(m),
                _,
                _,
            ) if m.len() == 1 || m.iter().all(|row| row.len() == 1) => {
                let flat: Vec<Expr> = m.iter().flatten().cloned().collect();
                self.ordered(&flat, items, "same vector")
            }
            (Expr::Matrix(a), Expr::Matrix(b), _, _) => {
                if a.len() != b.len() || a.iter().zip(b).any(|(x, y)| x.len() != y.len()) {
                    return Outcome::NotEqual("matrix shapes differ");
                }
                let a: Vec<Expr> = a.iter().flatten().cloned().collect();
                let b: Vec<Expr> = b.iter().flatten().cloned().collect();
                self.ordered(&a, &b, "same matrix")
            }
            // A one-element set against a value.
            (_, _, Some([only]), None) if r.is_scalar() => self.compare(only, r),
            (_, _, None, Some([only])) if g.is_scalar() => self.compare(g, only),
            _ => Outcome::NotEqual("different structure"),
        }
    }

    /// The distinct elements of a set written with `\{…\}` (equal elements count
    /// once); the items of anything else unchanged.
    fn set_elements(&mut self, e: &Expr, items: &[Expr]) -> Result<Vec<Expr>, Outcome> {
        if !matches!(e, Expr::Set(_)) {
            return Ok(items.to_vec());
        }
        let mut out: Vec<Expr> = Vec::with_capacity(items.len());
        for item in items {
            let mut repeated = false;
            for kept in &out {
                match self.compare(kept, item) {
                    Outcome::Equal(_) => {
                        repeated = true;
                        break;
                    }
                    Outcome::Undecidable(l) => return Err(Outcome::Undecidable(l)),
                    Outcome::NotEqual(_) => {}
                }
            }
            if !repeated {
                out.push(item.clone());
            }
        }
        Ok(out)
    }

    fn ordered(&mut self, a: &[Expr], b: &[Expr], reason: &'static str) -> Outcome {
        if a.len() != b.len() {
            return Outcome::NotEqual("different number of elements");
        }
        for (x, y) in a.iter().zip(b) {
            match self.compare(x, y) {
                Outcome::Equal(_) => {}
                other => return other,
            }
        }
        Outcome::Equal(reason)
    }

    /// Set equality under equivalence (greedy matching is exact for an equivalence).
    /// A tuple written twice the same way counts once (`(3,17), (3, 17)` is one pair).
    fn unordered(&mut self, a: &[Expr], b: &[Expr]) -> Outcome {
        let (a, b) = (distinct(a), distinct(b));
        if a.len() != b.len() {
            return Outcome::NotEqual("different number of elements");
        }
        // Identical items pair up first, for free.
        let mut used = vec![false; b.len()];
        let mut pending = Vec::with_capacity(a.len());
        for x in a {
            match (0..b.len()).find(|&k| !used[k] && b[k] == x) {
                Some(k) => used[k] = true,
                None => pending.push(x),
            }
        }
        for x in pending {
            let mut found = false;
            for (k, y) in b.iter().enumerate() {
                if used[k] {
                    continue;
                }
                match self.compare(x, y) {
                    Outcome::Equal(_) => {
                        used[k] = true;
                        found = true;
                        break;
                    }
                    Outcome::Undecidable(l) => return Outcome::Undecidable(l),
                    Outcome::NotEqual(_) => {}
                }
            }
            if !found {
                return Outcome::NotEqual("sets differ");
            }
        }
        Outcome::Equal("same set")
    }

    fn scalars(&mut self, g: &Expr, r: &Expr) -> Outcome {
        let g = strip_degree(g);
        let r = strip_degree(r);
        // Percentage convention: `50\%` equals `50` (the % dropped on both sides) and
        // equals `0.5` (the % read as /100).
        if matches!(g, Expr::Percent(_)) || matches!(r, Expr::Percent(_)) {
            let (g0, r0) = (strip_percent(g), strip_percent(r));
            if let Outcome::Equal(_) = self.values(g0, r0) {
                return Outcome::Equal("equal with the percent sign dropped");
            }
        }
        self.values(g, r)
    }

    fn normal(&mut self, e: &Expr) -> Result<Value, NormalError> {
        let key = std::ptr::from_ref(e) as usize;
        if let Some(v) = self.known.get(&key) {
            return Ok(v.clone());
        }
        let v = normalize(e, self.budget)?;
        self.known.insert(key, v.clone());
        Ok(v)
    }

    fn values(&mut self, g: &Expr, r: &Expr) -> Outcome {
        // `4^{5000}` against `2^{10000}`: compared by prime exponents, never built.
        if let Some(outcome) = super::power::compare(g, r, self.budget) {
            return outcome;
        }
        let (gv, rv) = match (self.normal(g), self.normal(r)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(NormalError::Limit(l)), _) | (_, Err(NormalError::Limit(l))) => {
                return Outcome::Undecidable(l)
            }
            (Err(NormalError::Undefined), _) | (_, Err(NormalError::Undefined)) => {
                return Outcome::NotEqual("undefined value")
            }
            _ => return Outcome::NotEqual("not a value"),
        };
        match gv.equals(&rv, self.budget) {
            Ok(true) => return Outcome::Equal("exact normal forms equal"),
            Ok(false) => {}
            Err(super::exact::ArithError::Limit(l)) => return Outcome::Undecidable(l),
            Err(_) => return Outcome::NotEqual("undefined value"),
        }
        if let Some(outcome) = self.approximately(g, &gv, r, &rv) {
            return outcome;
        }
        if gv.has_opaque() || rv.has_opaque() {
            // A decimal is a rational number: against a value we can only evaluate
            // (a function, a root of a sum) it must agree to double precision, so a
            // rounded decimal (`0.8415` for `\sin 1`) is never taken for the value.
            let strict = has_decimal(g) || has_decimal(r);
            return match numeric::compare(g, r, strict, self.budget) {
                Ok(NumericVerdict::Equal) => Outcome::Equal("numerically equal"),
                Ok(NumericVerdict::Different) => Outcome::NotEqual("numerically different"),
                Ok(NumericVerdict::Unusable) => Outcome::NotEqual("not numerically comparable"),
                Err(l) => Outcome::Undecidable(l),
            };
        }
        Outcome::NotEqual("exact normal forms differ")
    }

    /// The opt-in `approx` rule (see [`super::approx`]): two constant values that are
    /// not exactly equal match when they agree to the configured precision.
    fn approximately(&mut self, g: &Expr, gv: &Value, r: &Expr, rv: &Value) -> Option<Outcome> {
        let approx = self.approx?;
        if gv.has_vars() || rv.has_vars() {
            return None;
        }
        let mut real = |e: &Expr, v: &Value| match v.as_rational() {
            Some(q) => Some(Real::Exact(q)),
            None => numeric::constant_value(e, self.budget).map(Real::Float),
        };
        let gold = real(g, gv)?;
        let answer = real(r, rv)?;
        Some(if approx.accepts(&gold, &answer) {
            Outcome::Equal("equal to the precision of the approx setting")
        } else {
            Outcome::NotEqual("not equal to the precision of the approx setting")
        })
    }
}

/// The elements without exact repeats of a tuple, in order. A solution tuple written
/// twice is one solution; a repeated number in a bare list may be a multiplicity
/// (`1, 2, 2` stays different from `1, 2`; sets drop repeats in `set_elements`).
fn distinct(items: &[Expr]) -> Vec<&Expr> {
    let mut out: Vec<&Expr> = Vec::with_capacity(items.len());
    for item in items {
        if !(matches!(item, Expr::Tuple { .. }) && out.contains(&item)) {
            out.push(item);
        }
    }
    out
}

/// Whether a written decimal (`0.8415`, `1.5e-3`) occurs in the expression.
fn has_decimal(e: &Expr) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        if let Expr::Num(n) = x {
            found |= n.decimal || n.exp10 < 0;
        }
    });
    found
}

fn strip_degree(e: &Expr) -> &Expr {
    match e {
        Expr::Degree(x) => x,
        other => other,
    }
}

fn strip_percent(e: &Expr) -> &Expr {
    match e {
        Expr::Percent(x) => x,
        other => other,
    }
}

/// The rational `k ≠ 0` with `n = k·d`, if there is one.
fn rational_multiple(
    n: &Poly,
    d: &Poly,
    budget: &mut Budget,
) -> Result<Option<BigRational>, NormalError> {
    let (Some(nl), Some(dl)) = (n.monomials().next(), d.monomials().next()) else {
        return Ok(None);
    };
    if nl.factors != dl.factors {
        return Ok(None);
    }
    let k = &nl.coeff / &dl.coeff;
    if k.is_zero() {
        return Ok(None);
    }
    let scaled = d.mul(&Poly::constant(k.clone()), budget)?;
    Ok(scaled.sub(n, budget)?.is_zero().then_some(k))
}

/// Whether `n = k·d` for a constant monomial `k ≠ 0`.
fn constant_multiple(n: &Poly, d: &Poly, budget: &mut Budget) -> Result<bool, NormalError> {
    let Some(lead) = d.monomials().next() else {
        return Ok(false);
    };
    let inv = lead.pow(&BigRational::from_integer((-1).into()), budget)?;
    for term in n.monomials() {
        let k: Monomial = term.mul(&inv, budget)?;
        if !k.is_constant() || k.coeff.is_zero() {
            continue;
        }
        if d.mul_monomial(&k, budget)?.sub(n, budget)?.is_zero() {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::parser::parse;

    fn eq(g: &str, r: &str) -> bool {
        let g = parse(g).unwrap().expr;
        let r = parse(r).unwrap().expr;
        compare(&g, &r, &mut Budget::default()).is_equal()
    }

    #[test]
    fn intervals_and_inequalities() {
        assert!(eq("(1,2)", "1<x<2"));
        assert!(eq("x \\ge 3", "[3, \\infty)"));
        assert!(!eq("[1,2)", "[1,2]"));
        assert!(eq(
            "(-\\infty,0)\\cup(1,\\infty)",
            "(1,\\infty)\\cup(-\\infty,0)"
        ));
    }

    #[test]
    fn equations() {
        assert!(eq("2x+4y-3=0", "y=-x/2+3/4"));
        assert!(!eq("3x-y+13=0", "3x+4y+14=0"));
        assert!(eq("x=5", "5"));
        assert!(!eq("n=1,2,3", "n=2,3,4"));
        assert!(eq("n=1,2,3", "n=3,2,1"));
    }

    #[test]
    fn decimals_are_exact() {
        assert!(!eq("\\frac13", "0.33"));
        assert!(eq("\\frac13", "0.\\overline{3}"));
        assert!(eq("\\frac58", "0.625"));
        assert!(!eq("\\frac58", "0.63"));
        assert!(!eq("\\pi", "3.14"));
        assert!(!eq("3.14", "\\pi"));
        assert!(!eq("0.45", "\\frac{5}{11}"));
        assert!(!eq("0.5", "0.49"));
        assert!(!eq("\\sin 1", "0.8415"));
        assert!(!eq("\\sin 1", "0.8414709848078965"));
    }
}
