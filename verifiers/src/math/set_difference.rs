//! Set difference of an interval and points or an interval: `\mathbb{R}\setminus\{0\}`
//! = `(-\infty,0) \cup (0,\infty)`, `\mathbb{R}\setminus[-2,2]` = `(-\infty,-2) \cup
//! (2,\infty)`, `[0,5]\setminus\{1,3\}` = `[0,1) \cup (1,3) \cup (3,5]`.
//!
//! End points must have real values (to be put in order) and lie inside the
//! interval; anything else is not compared.

use super::expr::{Constant, Expr};
use super::limits::Budget;
use super::numeric;

/// One end point: its expression, closedness and value.
struct End {
    at: Expr,
    closed: bool,
    value: f64,
}

/// The real value of an end point (`±∞` included).
fn value_of(e: &Expr) -> Option<f64> {
    match e {
        Expr::Const(Constant::Infinity) => Some(f64::INFINITY),
        Expr::Neg(x) if matches!(**x, Expr::Const(Constant::Infinity)) => Some(f64::NEG_INFINITY),
        _ => numeric::constant_value(e, &mut Budget::new(2_000)),
    }
}

fn end(at: &Expr, closed: bool) -> Option<End> {
    Some(End {
        value: value_of(at)?,
        at: at.clone(),
        closed,
    })
}

/// `(lo, hi)` of a two-element interval.
fn bounds(e: &Expr) -> Option<(End, End)> {
    let Expr::Tuple { open, close, items } = e else {
        return None;
    };
    let [lo, hi] = items.as_slice() else {
        return None;
    };
    Some((end(lo, *open == '[')?, end(hi, *close == ']')?))
}

fn piece(lo: &End, hi: &End) -> Expr {
    Expr::Tuple {
        open: if lo.closed { '[' } else { '(' },
        close: if hi.closed { ']' } else { ')' },
        items: vec![lo.at.clone(), hi.at.clone()],
    }
}

/// `minuend \ removed`, as an interval or a union of intervals.
pub fn difference(minuend: Expr, removed: &Expr) -> Option<Expr> {
    let (lo, hi) = bounds(&minuend)?;
    // The cuts, in order: each is (left end of a gap, right end of a gap).
    let mut cuts: Vec<(End, End)> = match removed {
        Expr::Set(points) => points
            .iter()
            .map(|p| Some((end(p, false)?, end(p, false)?)))
            .collect::<Option<_>>()?,
        Expr::Tuple { .. } => {
            let (a, b) = bounds(removed)?;
            // Removing `[a, b]` leaves `… a)` and `(b …`.
            vec![(
                End {
                    closed: !a.closed,
                    ..a
                },
                End {
                    closed: !b.closed,
                    ..b
                },
            )]
        }
        _ => return None,
    };
    cuts.sort_by(|x, y| x.0.value.total_cmp(&y.0.value));
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut left = lo;
    for (gap_lo, gap_hi) in cuts {
        let inside = gap_lo.value > left.value && gap_hi.value < hi.value;
        if !inside || gap_hi.value < gap_lo.value {
            return None;
        }
        pieces.push(piece(&left, &gap_lo));
        left = gap_hi;
    }
    pieces.push(piece(&left, &hi));
    Some(if pieces.len() == 1 {
        pieces.pop()?
    } else {
        Expr::Union(pieces)
    })
}
