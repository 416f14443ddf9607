//! Unicode mathematics rewritten as the LaTeX it stands for, before lexing.
//!
//! `½` → `\frac{1}{2}` (so `3½` is a mixed number), superscripts `x²`, `10⁻³` →
//! `x^{2}`, `10^{-3}`, subscripts `x₁` → `x_{1}`, `∛` → `\sqrt[3]`, `ℝ` → `\mathbb{R}`,
//! `∖` → `\setminus`, Greek letters → their commands (`θ` = `\theta`). `π` → `\pi`. Characters
//! the lexer reads directly (`√ − × · ≤ ≥ ∞ ∪ ∩ ∈ ±`) are left alone.

use std::borrow::Cow;

/// Vulgar fractions.
const FRACTIONS: [(char, &str); 18] = [
    ('½', "1}{2"),
    ('⅓', "1}{3"),
    ('⅔', "2}{3"),
    ('¼', "1}{4"),
    ('¾', "3}{4"),
    ('⅕', "1}{5"),
    ('⅖', "2}{5"),
    ('⅗', "3}{5"),
    ('⅘', "4}{5"),
    ('⅙', "1}{6"),
    ('⅚', "5}{6"),
    ('⅐', "1}{7"),
    ('⅛', "1}{8"),
    ('⅜', "3}{8"),
    ('⅝', "5}{8"),
    ('⅞', "7}{8"),
    ('⅑', "1}{9"),
    ('⅒', "1}{10"),
];

const SUPERSCRIPTS: &str = "⁰¹²³⁴⁵⁶⁷⁸⁹";
const SUBSCRIPTS: &str = "₀₁₂₃₄₅₆₇₈₉";

/// Other symbols and the LaTeX they stand for.
const SYMBOLS: [(char, &str); 34] = [
    ('π', "\\pi "),
    ('∛', "\\sqrt[3]"),
    ('∜', "\\sqrt[4]"),
    ('ℝ', "\\mathbb{R}"),
    ('ℤ', "\\mathbb{Z}"),
    ('ℕ', "\\mathbb{N}"),
    ('ℚ', "\\mathbb{Q}"),
    ('ℂ', "\\mathbb{C}"),
    ('∖', "\\setminus "),
    ('∅', "\\emptyset "),
    ('∓', "\\mp "),
    ('≈', "\\approx "),
    ('⁄', "/"),
    ('∕', "/"),
    ('∣', "|"),
    ('α', "\\alpha "),
    ('β', "\\beta "),
    ('γ', "\\gamma "),
    ('δ', "\\delta "),
    ('ε', "\\epsilon "),
    ('ζ', "\\zeta "),
    ('η', "\\eta "),
    ('θ', "\\theta "),
    ('κ', "\\kappa "),
    ('λ', "\\lambda "),
    ('μ', "\\mu "),
    ('ν', "\\nu "),
    ('ξ', "\\xi "),
    ('ρ', "\\rho "),
    ('σ', "\\sigma "),
    ('τ', "\\tau "),
    ('φ', "\\phi "),
    ('χ', "\\chi "),
    ('ω', "\\omega "),
];

fn is_script(c: char) -> bool {
    SUPERSCRIPTS.contains(c) || SUBSCRIPTS.contains(c) || matches!(c, '⁻' | '⁺' | '₋' | '₊')
}

fn special(c: char) -> bool {
    is_script(c) || FRACTIONS.iter().any(|(f, _)| *f == c) || SYMBOLS.iter().any(|(s, _)| *s == c)
}

/// `src` with Unicode mathematics written as LaTeX (borrowed when there is none).
pub fn to_latex(src: &str) -> Cow<'_, str> {
    if !src.chars().any(special) {
        return Cow::Borrowed(src);
    }
    let mut out = String::with_capacity(src.len() + 16);
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some((_, frac)) = FRACTIONS.iter().find(|(f, _)| *f == c) {
            out.push_str("\\frac{");
            out.push_str(frac);
            out.push('}');
        } else if let Some((_, latex)) = SYMBOLS.iter().find(|(s, _)| *s == c) {
            out.push_str(latex);
        } else if is_script(c) {
            let sub = SUBSCRIPTS.contains(c) || matches!(c, '₋' | '₊');
            out.push_str(if sub { "_{" } else { "^{" });
            out.push(script_digit(c));
            while let Some(&d) = chars.peek() {
                let same = if sub {
                    SUBSCRIPTS.contains(d) || matches!(d, '₋' | '₊')
                } else {
                    SUPERSCRIPTS.contains(d) || matches!(d, '⁻' | '⁺')
                };
                if !same {
                    break;
                }
                out.push(script_digit(d));
                chars.next();
            }
            out.push('}');
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The plain character a super- or subscript stands for.
fn script_digit(c: char) -> char {
    match c {
        '⁻' | '₋' => '-',
        '⁺' | '₊' => '+',
        _ => SUPERSCRIPTS
            .chars()
            .position(|s| s == c)
            .or_else(|| SUBSCRIPTS.chars().position(|s| s == c))
            .and_then(|k| char::from_digit(k as u32, 10))
            .unwrap_or(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites() {
        assert_eq!(to_latex("3½"), "3\\frac{1}{2}");
        assert_eq!(to_latex("x²+y³"), "x^{2}+y^{3}");
        assert_eq!(to_latex("10⁻¹²"), "10^{-12}");
        assert_eq!(to_latex("a₁₀"), "a_{10}");
        assert_eq!(to_latex("ℝ∖{0}"), "\\mathbb{R}\\setminus {0}");
        assert_eq!(to_latex("2π"), "2\\pi ");
        assert!(matches!(to_latex("x+1"), Cow::Borrowed(_)));
    }
}
