//! Lifts a `±` nested inside an expression to the top: `\frac{-1 \pm \sqrt5}{2}`
//! becomes the two-element list `[\frac{-1 + \sqrt5}{2}, \frac{-1 - \sqrt5}{2}]`.
//!
//! A top-level `a \pm b` is left as it is (the comparison reads it as `{a+b, a-b}`).
//! The lifted alternatives form a bare list nested in its parent, which the
//! comparison flattens: parsing never nests bare lists otherwise. At most
//! [`MAX_LIFTED`] signs are lifted per expression (2³ alternatives).

use super::expr::Expr;

/// Most `±` signs lifted from one expression.
pub const MAX_LIFTED: usize = 3;

/// Rewrites `e` so that no `±` is nested inside a scalar.
pub fn lift(e: Expr) -> Expr {
    match e {
        Expr::List(v) => Expr::List(v.into_iter().map(lift).collect()),
        Expr::Set(v) => Expr::Set(v.into_iter().map(lift).collect()),
        Expr::Union(v) => Expr::Union(v.into_iter().map(lift).collect()),
        Expr::Tuple { open, close, items } => Expr::Tuple {
            open,
            close,
            items: items.into_iter().map(lift).collect(),
        },
        Expr::Relation { sides, ops } => Expr::Relation {
            sides: sides.into_iter().map(lift).collect(),
            ops,
        },
        Expr::Matrix(rows) => Expr::Matrix(
            rows.into_iter()
                .map(|r| r.into_iter().map(lift).collect())
                .collect(),
        ),
        Expr::PlusMinus(a, b) => Expr::PlusMinus(a, b),
        scalar if count(&scalar) > 0 && count(&scalar) <= MAX_LIFTED => {
            Expr::List(alternatives(scalar))
        }
        other => other,
    }
}

/// Every sign choice of the `±` signs in `e`.
fn alternatives(e: Expr) -> Vec<Expr> {
    let Some((plus, minus)) = split_first(&e) else {
        return vec![e];
    };
    let mut out = alternatives(plus);
    out.extend(alternatives(minus));
    out
}

/// How many `±` signs `e` contains.
fn count(e: &Expr) -> usize {
    match e {
        Expr::PlusMinus(a, b) => 1 + count(a) + count(b),
        Expr::Neg(x)
        | Expr::Func(_, x)
        | Expr::Factorial(x)
        | Expr::Abs(x)
        | Expr::Percent(x)
        | Expr::Degree(x) => count(x),
        Expr::Div(a, b)
        | Expr::Pow(a, b)
        | Expr::Root(a, b)
        | Expr::LogBase(a, b)
        | Expr::Binom(a, b) => count(a) + count(b),
        Expr::Add(xs) | Expr::Mul(xs) => xs.iter().map(count).sum(),
        _ => 0,
    }
}

/// `e` with its first `±` replaced by `+`, and by `−`.
fn split_first(e: &Expr) -> Option<(Expr, Expr)> {
    let two = |f: &dyn Fn(Expr) -> Expr, x: &Expr| split_first(x).map(|(p, m)| (f(p), f(m)));
    match e {
        Expr::PlusMinus(a, b) => Some((
            Expr::Add(vec![(**a).clone(), (**b).clone()]),
            Expr::Add(vec![(**a).clone(), Expr::Neg(b.clone())]),
        )),
        Expr::Neg(x) => two(&|y| Expr::Neg(Box::new(y)), x),
        Expr::Func(f, x) => two(&|y| Expr::Func(*f, Box::new(y)), x),
        Expr::Factorial(x) => two(&|y| Expr::Factorial(Box::new(y)), x),
        Expr::Abs(x) => two(&|y| Expr::Abs(Box::new(y)), x),
        Expr::Percent(x) => two(&|y| Expr::Percent(Box::new(y)), x),
        Expr::Degree(x) => two(&|y| Expr::Degree(Box::new(y)), x),
        Expr::Div(a, b)
        | Expr::Pow(a, b)
        | Expr::Root(a, b)
        | Expr::LogBase(a, b)
        | Expr::Binom(a, b) => {
            let rebuild = |x: Expr, y: Expr| match e {
                Expr::Div(..) => Expr::Div(Box::new(x), Box::new(y)),
                Expr::Pow(..) => Expr::Pow(Box::new(x), Box::new(y)),
                Expr::Root(..) => Expr::Root(Box::new(x), Box::new(y)),
                Expr::LogBase(..) => Expr::LogBase(Box::new(x), Box::new(y)),
                _ => Expr::Binom(Box::new(x), Box::new(y)),
            };
            if let Some((p, m)) = split_first(a) {
                return Some((rebuild(p, (**b).clone()), rebuild(m, (**b).clone())));
            }
            split_first(b).map(|(p, m)| (rebuild((**a).clone(), p), rebuild((**a).clone(), m)))
        }
        Expr::Add(xs) | Expr::Mul(xs) => {
            let k = xs.iter().position(|x| count(x) > 0)?;
            let (p, m) = split_first(&xs[k])?;
            let with = |item: Expr| {
                let mut v = xs.clone();
                v[k] = item;
                if matches!(e, Expr::Add(_)) {
                    Expr::Add(v)
                } else {
                    Expr::Mul(v)
                }
            };
            Some((with(p), with(m)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::parser::parse;

    #[test]
    fn nested_signs_become_alternatives() {
        let e = parse("\\frac{-1\\pm\\sqrt{5}}{2}").unwrap().expr;
        assert!(matches!(e, Expr::List(v) if v.len() == 2));
        let e = parse("(1\\pm 2)(3 \\pm 4)").unwrap().expr;
        assert!(matches!(e, Expr::List(v) if v.len() == 4));
        let e = parse("\\pm 2").unwrap().expr;
        assert!(matches!(e, Expr::PlusMinus(..)));
    }
}
