//! A named left side: `\angle C = 60^\circ`, `\det A = 1`, `\gcd(84, 126) = 42`,
//! `3^{100} \bmod 1000 = 1`. The left side names what is asked for by an operation the
//! verifier does not evaluate (an angle, a determinant, a gcd, a residue), so the
//! answer is the value on the right, compared as any value is.

/// Commands that open a left side naming a quantity.
const NAMERS: [&str; 16] = [
    "\\angle",
    "\\measuredangle",
    "m\\angle",
    "\\det",
    "\\gcd",
    "\\lcm",
    "\\max",
    "\\min",
    "\\operatorname{gcd}",
    "\\operatorname{lcm}",
    "\\operatorname{GCD}",
    "\\operatorname{LCM}",
    "\\operatorname{det}",
    "\\mathrm{gcd}",
    "\\mathrm{lcm}",
    "\\text{gcd}",
];

/// A residue written on the left (`3^{100} \bmod 1000`).
const MODULO: [&str; 4] = ["\\bmod", "\\pmod", "\\mod", "\\operatorname{mod}"];

/// The right side of `name = value` when the left side is a named quantity; `None`
/// for any other text (one `=` only, no inequality).
pub(super) fn named_value(src: &str) -> Option<&str> {
    let (lhs, rhs) = src.split_once('=')?;
    if rhs.contains('=') || rhs.trim().is_empty() || lhs.contains(['<', '>', '!']) {
        return None;
    }
    // A comma outside brackets (`a, \max b = 4`) is a list, not one named side.
    let mut depth = 0i32;
    for c in lhs.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => return None,
            _ => {}
        }
    }
    let lhs = lhs.trim_start().trim_start_matches('$');
    let opens = NAMERS.iter().any(|n| {
        lhs.strip_prefix(n)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphabetic()))
    });
    let residue = MODULO.iter().any(|m| lhs.contains(m));
    (opens || residue).then_some(rhs)
}

#[cfg(test)]
mod tests {
    use super::named_value;

    #[test]
    fn named_quantities_give_their_value() {
        assert_eq!(named_value("\\angle C = 60^\\circ"), Some(" 60^\\circ"));
        assert_eq!(named_value("\\det A = 1"), Some(" 1"));
        assert_eq!(named_value("\\gcd(84,126) = 42"), Some(" 42"));
        assert_eq!(named_value("3^{100} \\bmod 1000 = 1"), Some(" 1"));
        assert_eq!(named_value("x = 4"), None);
        assert_eq!(named_value("\\angle C \\le 60"), None);
        assert_eq!(named_value("\\deta = 1"), None);
        assert_eq!(named_value("\\max(a, b) = c = 4"), None);
    }
}
