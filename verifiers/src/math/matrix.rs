//! Matrix arithmetic written out in an answer: `A + B`, `-A`, `2A`, `AB` with explicit
//! matrices become the one matrix they equal, so `\begin{pmatrix}1&2\\3&4\end{pmatrix}
//! + \begin{pmatrix}5&6\\7&8\end{pmatrix}` compares as `\begin{pmatrix}6&8\\10&12\end{pmatrix}`.
//!
//! Entries are left as expression trees (sums of products) for the exact normal forms
//! to decide. Sizes are bounded by [`MAX_SIDE`] and every folded product by
//! [`MAX_FOLDED_NODES`] expression nodes; anything else (mismatched shapes, larger matrices) is left
//! unchanged and compares as written.

use super::expr::Expr;

/// Largest number of rows or columns folded.
pub const MAX_SIDE: usize = 8;

/// Most expression nodes a folded product may hold: products of products would
/// otherwise grow geometrically.
pub const MAX_FOLDED_NODES: usize = 4096;

type Rows = Vec<Vec<Expr>>;

/// `e` with sums, negations and products of explicit matrices carried out.
pub fn fold(e: Expr) -> Expr {
    match e {
        Expr::Add(terms) => {
            let terms: Vec<Expr> = terms.into_iter().map(fold).collect();
            sum(&terms).map_or(Expr::Add(terms), Expr::Matrix)
        }
        Expr::Neg(x) => match fold(*x) {
            Expr::Matrix(m) => Expr::Matrix(map(m, |x| Expr::Neg(Box::new(x)))),
            other => Expr::Neg(Box::new(other)),
        },
        Expr::Mul(factors) => {
            let factors: Vec<Expr> = factors.into_iter().map(fold).collect();
            product(&factors).map_or(Expr::Mul(factors), Expr::Matrix)
        }
        Expr::Relation { sides, ops } => Expr::Relation {
            sides: sides.into_iter().map(fold).collect(),
            ops,
        },
        other => other,
    }
}

fn shape(m: &Rows) -> Option<(usize, usize)> {
    let cols = m.first()?.len();
    let ok = (1..=MAX_SIDE).contains(&m.len())
        && (1..=MAX_SIDE).contains(&cols)
        && m.iter().all(|r| r.len() == cols);
    ok.then_some((m.len(), cols))
}

fn map(m: Rows, f: impl Fn(Expr) -> Expr + Copy) -> Rows {
    m.into_iter()
        .map(|row| row.into_iter().map(f).collect())
        .collect()
}

/// The elementwise sum, when every term is a matrix of one shape (and there are two+).
fn sum(terms: &[Expr]) -> Option<Rows> {
    let mats: Vec<&Rows> = terms
        .iter()
        .map(|t| match t {
            Expr::Matrix(m) => Some(m),
            Expr::Neg(x) => match &**x {
                Expr::Matrix(m) => Some(m),
                _ => None,
            },
            _ => None,
        })
        .collect::<Option<_>>()?;
    let (rows, cols) = shape(mats.first()?)?;
    if mats.len() < 2 || mats.iter().any(|m| shape(m) != Some((rows, cols))) {
        return None;
    }
    let entry = |i: usize, j: usize| {
        Expr::Add(
            terms
                .iter()
                .zip(&mats)
                .map(|(t, m)| match t {
                    Expr::Neg(_) => Expr::Neg(Box::new(m[i][j].clone())),
                    _ => m[i][j].clone(),
                })
                .collect(),
        )
    };
    Some(
        (0..rows)
            .map(|i| (0..cols).map(|j| entry(i, j)).collect())
            .collect(),
    )
}

/// The product, when at least two factors are matrices of compatible shapes; other
/// factors are scalars that multiply every entry.
fn product(factors: &[Expr]) -> Option<Rows> {
    let mut scalars = Vec::new();
    let mut acc: Option<Rows> = None;
    let mut matrices = 0;
    for f in factors {
        match f {
            Expr::Matrix(m) => {
                shape(m)?;
                matrices += 1;
                acc = Some(match acc {
                    None => m.clone(),
                    Some(a) => multiply(&a, m)?,
                });
            }
            Expr::List(_) | Expr::Set(_) | Expr::Tuple { .. } | Expr::Relation { .. } => {
                return None
            }
            scalar => scalars.push(scalar.clone()),
        }
    }
    // Two matrices multiply; one matrix needs a scalar factor to change.
    let folds = matrices >= 2 || (matrices == 1 && !scalars.is_empty());
    if !folds {
        return None;
    }
    let m = acc?;
    if scalars.is_empty() {
        return Some(m);
    }
    let entries = m.iter().map(Vec::len).sum::<usize>();
    let per_entry: usize = scalars.iter().map(nodes).sum();
    if per_entry.saturating_mul(entries) > MAX_FOLDED_NODES {
        return None;
    }
    Some(map(m, |x| {
        let mut factors = scalars.clone();
        factors.push(x);
        Expr::Mul(factors)
    }))
}

fn multiply(a: &Rows, b: &Rows) -> Option<Rows> {
    let (n, k) = shape(a)?;
    let (k2, m) = shape(b)?;
    if k != k2 {
        return None;
    }
    // Every entry of `a` is copied `m` times, every entry of `b` `n` times.
    let copied = m
        .saturating_mul(total_nodes(a))
        .saturating_add(n.saturating_mul(total_nodes(b)))
        .saturating_add(n * m * k);
    if copied > MAX_FOLDED_NODES {
        return None;
    }
    Some(
        (0..n)
            .map(|i| {
                (0..m)
                    .map(|j| {
                        Expr::Add(
                            (0..k)
                                .map(|t| Expr::Mul(vec![a[i][t].clone(), b[t][j].clone()]))
                                .collect(),
                        )
                    })
                    .collect()
            })
            .collect(),
    )
}

fn total_nodes(m: &Rows) -> usize {
    m.iter().flatten().map(nodes).fold(0, usize::saturating_add)
}

/// The number of nodes in an expression tree.
fn nodes(e: &Expr) -> usize {
    let children: usize = match e {
        Expr::Neg(x)
        | Expr::Func(_, x)
        | Expr::Factorial(x)
        | Expr::Abs(x)
        | Expr::Percent(x)
        | Expr::Degree(x) => nodes(x),
        Expr::Div(a, b)
        | Expr::Pow(a, b)
        | Expr::Root(a, b)
        | Expr::LogBase(a, b)
        | Expr::Binom(a, b)
        | Expr::PlusMinus(a, b) => nodes(a).saturating_add(nodes(b)),
        Expr::Add(xs) | Expr::Mul(xs) | Expr::List(xs) | Expr::Set(xs) | Expr::Union(xs) => {
            xs.iter().map(nodes).fold(0, usize::saturating_add)
        }
        Expr::Tuple { items, .. } => items.iter().map(nodes).fold(0, usize::saturating_add),
        Expr::Relation { sides, .. } => sides.iter().map(nodes).fold(0, usize::saturating_add),
        Expr::Matrix(m) => total_nodes(m),
        Expr::Num(_) | Expr::Var(_) | Expr::Const(_) | Expr::Text(_) => 0,
    };
    children.saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse;
    use super::*;

    fn folded(src: &str) -> Expr {
        parse(src).expect("parses").expr
    }

    #[test]
    fn sums_products_and_scalars_fold() {
        let m = |s: &str| folded(&format!("\\begin{{pmatrix}}{s}\\end{{pmatrix}}"));
        assert!(matches!(m("1&2\\\\3&4"), Expr::Matrix(_)));
        let sum =
            folded("\\begin{pmatrix}1\\\\2\\end{pmatrix}+\\begin{pmatrix}3\\\\4\\end{pmatrix}");
        assert!(matches!(sum, Expr::Matrix(ref r) if r.len() == 2));
        // Shapes that do not fit stay as written.
        let bad = folded("\\begin{pmatrix}1&2\\end{pmatrix}+\\begin{pmatrix}3\\\\4\\end{pmatrix}");
        assert!(matches!(bad, Expr::Add(_)));
    }

    #[test]
    fn long_products_stop_at_the_node_limit() {
        let a = "\\begin{pmatrix}1&2&3&4&5&6&7&8\\\\1&2&3&4&5&6&7&8\\\\1&2&3&4&5&6&7&8\\\\1&2&3&4&5&6&7&8\\\\1&2&3&4&5&6&7&8\\\\1&2&3&4&5&6&7&8\\\\1&2&3&4&5&6&7&8\\\\1&2&3&4&5&6&7&8\\end{pmatrix}";
        let src = format!("(({a}{a})({a}{a}))(({a}{a})({a}{a}))");
        let e = folded(&src);
        assert!(nodes(&e) < 4 * MAX_FOLDED_NODES);
    }
}
