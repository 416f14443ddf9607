//! Recursive-descent parser from tokens to an [`Expr`] tree.
//!
//! Precedence, loosest first: lists (`,` `;`) → relations (`=` `<` `\le` `\in` …) →
//! set union/intersection → sums (`+` `-` `\pm`) → products (`\cdot` `\times` `/`,
//! implicit) → unary signs → powers → postfix (`!` `\%` `^\circ`) → primaries.
//! Every recursion counts depth against [`MAX_DEPTH`], so deep nesting is an error,
//! never a stack overflow.

use super::expr::{Constant, Expr, Func, Numeral, RelOp};
use super::lexer::{tokenize, LexError, Tok};
use super::limits::{LimitHit, MAX_ANSWER_BYTES, MAX_DEPTH, MAX_ELEMENTS};

/// Why an answer is not a parseable expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// A size limit was hit: the answer is undecidable within limits.
    Limit(LimitHit),
    /// The text is not an expression we understand (compared as text instead).
    Syntax(String),
}

impl From<LexError> for ParseError {
    fn from(e: LexError) -> Self {
        match e {
            LexError::Limit(l) => ParseError::Limit(l),
            LexError::Unclosed => ParseError::Syntax("unclosed text wrapper".into()),
        }
    }
}

/// A parsed answer plus the unit words stripped from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub expr: Expr,
    /// Unit words removed from the answer (`cm`, `dollars`, …), lower-cased, in order.
    pub units: Vec<String>,
}

/// Parses an answer (LaTeX or plain text).
pub fn parse(src: &str) -> Result<Parsed, ParseError> {
    if src.len() > MAX_ANSWER_BYTES {
        return Err(ParseError::Limit(LimitHit::AnswerTooLong));
    }
    let converted = super::unicode::to_latex(src);
    // `\angle C = 60^\circ`, `\gcd(84, 126) = 42`: the value; `60 \mathrm{~km} /
    // \mathrm{h}`: units as plain text, which `units` reads.
    let named = super::named::named_value(&converted).unwrap_or(&converted);
    let plain = super::units::plain_unit_wrappers(named);
    let src: &str = &plain;
    if let Some(groups) = solution_groups(src) {
        return Ok(groups);
    }
    let (tokens, units) = strip_units(tokenize(src)?);
    let (tokens, units) = match super::units::split_trailing(src) {
        Some((value, unit)) => {
            // Only a value without names may carry a plain-text unit: `5 m` is 5
            // metres, `\pi r^2 h` is a product.
            let (value_tokens, mut value_units) = strip_units(tokenize(value)?);
            if value_tokens
                .iter()
                .any(|t| matches!(t, Tok::Letter(_) | Tok::Word(_)))
            {
                (tokens, units)
            } else {
                value_units.extend(unit);
                (value_tokens, value_units)
            }
        }
        None => (tokens, units),
    };
    if tokens.is_empty() {
        return Err(ParseError::Syntax("empty answer".into()));
    }
    if let Some(letter) = choice_letter(&tokens) {
        return Ok(Parsed {
            expr: Expr::Text(letter.to_string()),
            units,
        });
    }
    if has_prose(&tokens) {
        return Ok(Parsed {
            expr: Expr::Text(normalize_text(src)),
            units,
        });
    }
    // In `\{x : x > 0\}` the colon reads "such that"; elsewhere `a:b` is a ratio.
    let ratios = !tokens.contains(&Tok::LSet);
    let mut p = Parser {
        toks: tokens,
        pos: 0,
        depth: 0,
        ratios,
    };
    let expr = p.list()?;
    if p.pos != p.toks.len() {
        return Err(ParseError::Syntax(format!(
            "unexpected {:?}",
            p.toks[p.pos]
        )));
    }
    Ok(Parsed {
        expr: values_of_one_unknown(super::plus_minus::lift(super::matrix::fold(
            reshape_equation_list(expr),
        ))),
        units,
    })
}

/// Whether a word of prose remains (environment names such as `pmatrix` and
/// subscripts such as `S_{MBCN}` do not count).
fn has_prose(tokens: &[Tok]) -> bool {
    tokens.iter().enumerate().any(|(k, t)| {
        matches!(t, Tok::Word(_))
            && !(k >= 2
                && tokens[k - 1] == Tok::LBrace
                && (matches!(&tokens[k - 2], Tok::Cmd(c) if c == "begin" || c == "end")
                    || tokens[k - 2] == Tok::Underscore))
            && !(k >= 1 && tokens[k - 1] == Tok::Underscore)
    })
}

/// Lower-cased text with spacing, braces and `\text` wrappers removed.
pub fn normalize_text(src: &str) -> String {
    let mut s = src.to_lowercase();
    for wrapper in ["\\text", "\\mathrm", "\\textbf", "\\mathbf", "\\mbox"] {
        s = s.replace(wrapper, "");
    }
    s.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '{' | '}' | '$' | '.' | '~'))
        .collect()
}

/// Units and currency, stripped before parsing (see the module docs of `math`).
const UNITS: [&str; 58] = [
    "cm",
    "mm",
    "km",
    "m",
    "meter",
    "meters",
    "metre",
    "metres",
    "centimeters",
    "kilometers",
    "inch",
    "inches",
    "in",
    "ft",
    "foot",
    "feet",
    "yard",
    "yards",
    "yd",
    "mile",
    "miles",
    "mi",
    "units",
    "unit",
    "sq",
    "square",
    "cubic",
    "degrees",
    "degree",
    "deg",
    "radians",
    "rad",
    "dollars",
    "dollar",
    "cents",
    "cent",
    "hours",
    "hour",
    "hr",
    "minutes",
    "minute",
    "min",
    "seconds",
    "second",
    "sec",
    "s",
    "days",
    "day",
    "weeks",
    "years",
    "kg",
    "g",
    "grams",
    "pounds",
    "lbs",
    "mph",
    "liters",
    "ml",
];

fn is_unit(word: &str) -> bool {
    let lower = word.to_lowercase();
    UNITS.contains(&lower.as_str()) || super::units::canonical(word).is_some()
}

/// Removes unit words (with a following `^2`/`^3`), currency signs and the words
/// that trail a value (`5 apples`); `and`/`or` between items become commas.
fn strip_units(mut tokens: Vec<Tok>) -> (Vec<Tok>, Vec<String>) {
    let mut units = Vec::new();
    // Trailing words after a value are units of some kind (`12 \text{ apples}`).
    let words_at_end = tokens
        .iter()
        .rev()
        .take_while(|t| matches!(t, Tok::Word(_) | Tok::Dollar))
        .count();
    if words_at_end > 0 && words_at_end < tokens.len() && words_at_end <= 3 {
        let value_before = matches!(
            tokens[tokens.len() - words_at_end - 1],
            Tok::Num(_) | Tok::RParen | Tok::RBrace | Tok::Letter(_) | Tok::Cmd(_) | Tok::Percent
        );
        if value_before {
            for t in tokens.drain(tokens.len() - words_at_end..) {
                if let Tok::Word(w) = t {
                    units.push(w);
                }
            }
        }
    }
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Tok::Word(w) if (w == "and" || w == "or") && i > 0 && i + 1 < tokens.len() => {
                out.push(Tok::Comma);
            }
            // `30 degrees` is `30^\circ` (so `\sin(30 \text{ degrees})` is ½).
            Tok::Word(w) if matches!(w.to_lowercase().as_str(), "degree" | "degrees" | "deg") => {
                out.push(Tok::Degree);
            }
            Tok::Word(w) if is_unit(w) => {
                let mut unit = w.to_lowercase();
                if tokens.get(i + 1) == Some(&Tok::Caret) {
                    if let Some(Tok::Num(p)) = tokens.get(i + 2) {
                        unit = format!("{unit}^{}", p.digits);
                        i += 2;
                    }
                }
                units.push(unit);
            }
            Tok::Dollar => {}
            t => out.push(t.clone()),
        }
        i += 1;
    }
    (out, units)
}

/// A multiple-choice answer: one capital letter A–J, optionally in parentheses.
fn choice_letter(tokens: &[Tok]) -> Option<char> {
    let letter = match tokens {
        [Tok::Letter(c)] => *c,
        [Tok::LParen, Tok::Letter(c), Tok::RParen] => *c,
        [Tok::Letter(c), Tok::RParen] => *c,
        _ => return None,
    };
    (letter.is_ascii_uppercase() && letter <= 'J').then_some(letter)
}

/// The choice letter that opens an answer such as `(B) 42`, `B) 42`, `B. 42` or
/// `\text{(B) } 42`; `None` when the answer does not open with one.
pub fn leading_choice(answer: &str) -> Option<char> {
    split_choice(answer).map(|(letter, _, _)| letter)
}

/// The opening choice letter, the text after it, and whether the letter was in
/// parentheses (`\textbf{(C) } 12` → `('C', " 12", true)`).
pub fn split_choice(answer: &str) -> Option<(char, &str, bool)> {
    // `\textbf{(C) } 12`, `**(C)** 12`, `$\text{(C)}$ 12`: emphasis and wrappers first.
    let mut s = answer.trim_start();
    while let Some(rest) = ["\\text{", "\\textbf{", "\\mathrm{", "\\mathbf{", "**", "$"]
        .iter()
        .find_map(|w| s.strip_prefix(w))
    {
        s = rest.trim_start();
    }
    let (s, parenthesised) = match s.strip_prefix('(') {
        Some(rest) => (rest, true),
        None => (s, false),
    };
    let mut chars = s.chars();
    let letter = chars
        .next()
        .filter(|c| c.is_ascii_uppercase() && *c <= 'J')?;
    let after = chars.as_str();
    let closed = if parenthesised {
        after.starts_with(')')
    } else {
        after.starts_with(')') || after.starts_with(". ") || after.starts_with(":")
    };
    let rest = after
        .strip_prefix(')')
        .unwrap_or(after)
        .trim_start_matches(['}', '*', '$', '.', ':', ' ', '\\']);
    closed.then_some((letter, rest, parenthesised))
}

/// `p=5,q=2;p=7,q=2`: solutions separated by semicolons, each a list of equations
/// naming the same unknowns in the same order, are a list of solutions, each the
/// ordered tuple of its equations (so `p=5,q=2` matches `(5,2)`, not `(2,5)`). `None` when the text is not of that shape.
fn solution_groups(src: &str) -> Option<Parsed> {
    if !src.contains(';') {
        return None;
    }
    let mut groups = Vec::new();
    let mut names: Option<Vec<Expr>> = None;
    for part in src.split(';') {
        let parsed = parse_group(part)?;
        let Expr::List(items) = parsed else {
            return None;
        };
        let lefts = items
            .iter()
            .map(|e| match e {
                Expr::Relation { sides, ops } if ops == &[RelOp::Eq] && sides.len() == 2 => {
                    matches!(sides[0], Expr::Var(_)).then(|| sides[0].clone())
                }
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        if names.get_or_insert_with(|| lefts.clone()) != &lefts {
            return None;
        }
        groups.push(Expr::Tuple {
            open: '(',
            close: ')',
            items,
        });
    }
    (groups.len() >= 2).then(|| Parsed {
        expr: Expr::List(groups),
        units: Vec::new(),
    })
}

/// One semicolon-free group, parsed on its own.
fn parse_group(part: &str) -> Option<Expr> {
    if part.contains(';') || part.trim().is_empty() {
        return None;
    }
    parse(part).ok().map(|p| p.expr)
}

/// `n = 1, 2, 3` parses as a list whose first item is an equation; read it as
/// `n = {1, 2, 3}` so that it compares by its right-hand side.
fn reshape_equation_list(expr: Expr) -> Expr {
    let Expr::List(items) = expr else { return expr };
    let first_is_eq = matches!(
        items.first(),
        Some(Expr::Relation { ops, .. }) if ops == &[RelOp::Eq]
    );
    let rest_plain = items
        .iter()
        .skip(1)
        .all(|e| !matches!(e, Expr::Relation { .. }));
    if !first_is_eq || !rest_plain {
        return Expr::List(items);
    }
    let mut iter = items.into_iter();
    let Some(Expr::Relation { mut sides, ops }) = iter.next() else {
        return Expr::List(Vec::new());
    };
    let rhs = sides.pop().unwrap_or(Expr::List(Vec::new()));
    let mut values = vec![rhs];
    values.extend(iter);
    sides.push(Expr::List(values));
    Expr::Relation { sides, ops }
}

/// `x = 0, x = \pm 2` (from `x=0 \text{ or } x=\pm 2`): equations that each give the
/// same unknown a value are the list of those values (`0, 2, -2`), as `-2, 0, 2`
/// lists them.
fn values_of_one_unknown(expr: Expr) -> Expr {
    match one_unknown_values(&expr) {
        Some(values) => Expr::List(values),
        None => expr,
    }
}

fn one_unknown_values(expr: &Expr) -> Option<Vec<Expr>> {
    let Expr::List(items) = expr else {
        return None;
    };
    let mut name = None;
    let mut values = Vec::with_capacity(items.len() + 1);
    for item in items {
        let Expr::Relation { sides, ops } = item else {
            return None;
        };
        let [lhs @ Expr::Var(_), rhs] = sides.as_slice() else {
            return None;
        };
        if ops != &[RelOp::Eq] || *name.get_or_insert(lhs) != lhs {
            return None;
        }
        match rhs {
            Expr::PlusMinus(a, b) => {
                values.push(Expr::Add(vec![(**a).clone(), (**b).clone()]));
                values.push(Expr::Add(vec![(**a).clone(), Expr::Neg(b.clone())]));
            }
            Expr::List(lifted) => values.extend(lifted.iter().cloned()),
            value => values.push(value.clone()),
        }
    }
    (items.len() >= 2).then_some(values)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
    /// Whether `a:b` is read as the ratio `a/b`.
    ratios: bool,
}

type PResult = Result<Expr, ParseError>;

fn syntax(msg: &str) -> ParseError {
    ParseError::Syntax(msg.to_owned())
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k)
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok) -> Result<(), ParseError> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(ParseError::Syntax(format!("expected {t:?}")))
        }
    }

    fn is_cmd(&self, name: &str) -> bool {
        matches!(self.peek(), Some(Tok::Cmd(c)) if c == name)
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::Limit(LimitHit::TooDeep));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// `a, b; c` — returns the single item when there is no separator.
    fn list(&mut self) -> PResult {
        self.enter()?;
        let mut items = vec![self.relation()?];
        while matches!(self.peek(), Some(Tok::Comma | Tok::Semicolon)) {
            self.pos += 1;
            if items.len() >= MAX_ELEMENTS {
                return Err(ParseError::Limit(LimitHit::TooManyTokens));
            }
            // Tolerate a trailing separator and `\text{ and }`-style joins.
            if self.peek().is_none() || self.at_closer() {
                break;
            }
            items.push(self.relation()?);
        }
        self.leave();
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(Expr::List(Vec::new()))
        } else {
            Expr::List(items)
        })
    }

    fn at_closer(&self) -> bool {
        matches!(
            self.peek(),
            Some(Tok::RParen | Tok::RBrack | Tok::RBrace | Tok::RSet)
        ) || self.is_cmd("rangle")
    }

    fn rel_op(&self) -> Option<RelOp> {
        Some(match self.peek()? {
            Tok::Eq => RelOp::Eq,
            Tok::Approx => RelOp::Approx,
            Tok::Ne => RelOp::Ne,
            Tok::Lt => RelOp::Lt,
            Tok::Le => RelOp::Le,
            Tok::Gt => RelOp::Gt,
            Tok::Ge => RelOp::Ge,
            Tok::Cmd(c) if c == "in" => RelOp::Eq,
            _ => return None,
        })
    }

    fn relation(&mut self) -> PResult {
        let first = self.ratio()?;
        let mut sides = vec![first];
        let mut ops = Vec::new();
        while let Some(op) = self.rel_op() {
            self.pos += 1;
            ops.push(op);
            sides.push(self.ratio()?);
        }
        Ok(if ops.is_empty() {
            sides.pop().unwrap_or(Expr::List(Vec::new()))
        } else {
            Expr::Relation { sides, ops }
        })
    }

    /// `a:b` is the ratio `a/b` (`7:32` = `\frac{7}{32}`, `A:B = 1`); a three-part ratio
    /// has no single value and is not compared.
    fn ratio(&mut self) -> PResult {
        let first = self.union()?;
        if !self.ratios || self.peek() != Some(&Tok::Colon) {
            return Ok(first);
        }
        self.pos += 1;
        let second = self.union()?;
        if self.peek() == Some(&Tok::Colon) {
            return Err(syntax("ratios of three parts are not compared"));
        }
        Ok(Expr::Div(Box::new(first), Box::new(second)))
    }

    fn union(&mut self) -> PResult {
        let mut first = self.additive()?;
        // `\mathbb{R} - \{0\}`: a minus between an infinite interval and a set.
        if let Some(difference) = minus_as_difference(&first) {
            first = difference;
        }
        // `\mathbb{R} \setminus \{0\}`: an interval without points or an interval.
        while self.is_cmd("setminus") || self.is_cmd("backslash") {
            self.pos += 1;
            let removed = self.additive()?;
            first = super::set_difference::difference(first, &removed)
                .ok_or_else(|| syntax("set difference not compared"))?;
        }
        if !self.is_cmd("cup") && !self.is_cmd("cap") {
            return Ok(first);
        }
        let mut parts = vec![first];
        while self.is_cmd("cup") {
            self.pos += 1;
            parts.push(self.additive()?);
        }
        if self.is_cmd("cap") {
            return Err(syntax("intersections are not compared"));
        }
        Ok(Expr::Union(parts))
    }

    fn additive(&mut self) -> PResult {
        self.enter()?;
        let mut terms = vec![self.term()?];
        let mut pm: Option<Expr> = None;
        loop {
            match self.peek() {
                Some(Tok::Plus) => {
                    self.pos += 1;
                    terms.push(self.term()?);
                }
                Some(Tok::Minus) => {
                    self.pos += 1;
                    terms.push(Expr::Neg(Box::new(self.term()?)));
                }
                Some(Tok::PlusMinus | Tok::MinusPlus) => {
                    if pm.is_some() {
                        return Err(syntax("two ± in one sum"));
                    }
                    self.pos += 1;
                    pm = Some(self.term()?);
                }
                _ => break,
            }
        }
        self.leave();
        let sum = if terms.len() == 1 {
            terms.pop().unwrap_or(Expr::List(Vec::new()))
        } else {
            Expr::Add(terms)
        };
        Ok(match pm {
            Some(b) => Expr::PlusMinus(Box::new(sum), Box::new(b)),
            None => sum,
        })
    }

    /// Whether the next token can begin an implicit factor (`2x`, `3\sqrt{2}`, `(a)(b)`).
    fn starts_implicit_factor(&self) -> bool {
        match self.peek() {
            Some(Tok::Letter(_) | Tok::LParen | Tok::LBrace) => true,
            Some(Tok::Cmd(c)) => !matches!(
                c.as_str(),
                "cup"
                    | "cap"
                    | "in"
                    | "end"
                    | "rangle"
                    | "to"
                    | "rightarrow"
                    | "Rightarrow"
                    | "setminus"
                    | "backslash"
            ),
            _ => false,
        }
    }

    fn term(&mut self) -> PResult {
        self.enter()?;
        let mut factors = vec![self.unary()?];
        loop {
            match self.peek() {
                Some(Tok::Times) => {
                    self.pos += 1;
                    factors.push(self.unary()?);
                }
                Some(Tok::Slash) => {
                    self.pos += 1;
                    let den = self.unary()?;
                    let num = if factors.len() == 1 {
                        factors.pop().unwrap_or(Expr::List(Vec::new()))
                    } else {
                        Expr::Mul(std::mem::take(&mut factors))
                    };
                    factors.push(Expr::Div(Box::new(num), Box::new(den)));
                }
                _ if self.starts_implicit_factor() => factors.push(self.power()?),
                // `3!7!`: a number may follow a factorial without a sign.
                Some(Tok::Num(_)) if matches!(factors.last(), Some(Expr::Factorial(_))) => {
                    factors.push(self.power()?)
                }
                // `2^{10}3^{5}`: a number may follow a braced exponent.
                Some(Tok::Num(_))
                    if matches!(factors.last(), Some(Expr::Pow(..)))
                        && self.toks[self.pos - 1] == Tok::RBrace =>
                {
                    factors.push(self.power()?)
                }
                _ => break,
            }
        }
        self.leave();
        Ok(if factors.len() == 1 {
            factors.pop().unwrap_or(Expr::List(Vec::new()))
        } else {
            Expr::Mul(factors)
        })
    }

    fn unary(&mut self) -> PResult {
        self.enter()?;
        let out = match self.peek() {
            Some(Tok::Minus) => {
                self.pos += 1;
                Expr::Neg(Box::new(self.unary()?))
            }
            Some(Tok::Plus) => {
                self.pos += 1;
                self.unary()?
            }
            Some(Tok::PlusMinus | Tok::MinusPlus) => {
                self.pos += 1;
                Expr::PlusMinus(Box::new(Expr::integer(0)), Box::new(self.unary()?))
            }
            _ => self.power()?,
        };
        self.leave();
        Ok(out)
    }

    fn power(&mut self) -> PResult {
        self.enter()?;
        let base = self.postfix()?;
        let out = if self.peek() == Some(&Tok::Caret) {
            self.pos += 1;
            if self.peek() == Some(&Tok::Degree) {
                self.pos += 1;
                Expr::Degree(Box::new(base))
            } else if self.peek() == Some(&Tok::LBrace) && self.peek_at(1) == Some(&Tok::Degree) {
                self.pos += 2;
                self.expect(&Tok::RBrace)?;
                Expr::Degree(Box::new(base))
            } else {
                let exponent = self.exponent()?;
                self.postfix_ops(Expr::Pow(Box::new(base), Box::new(exponent)))?
            }
        } else {
            base
        };
        self.leave();
        Ok(out)
    }

    /// The exponent after `^`: a braced group, a signed primary, or a power tower.
    fn exponent(&mut self) -> PResult {
        match self.peek() {
            Some(Tok::Minus) => {
                self.pos += 1;
                Ok(Expr::Neg(Box::new(self.exponent()?)))
            }
            _ => self.power(),
        }
    }

    fn postfix(&mut self) -> PResult {
        let base = self.primary()?;
        self.postfix_ops(base)
    }

    fn postfix_ops(&mut self, mut e: Expr) -> PResult {
        loop {
            match self.peek() {
                Some(Tok::Bang) => {
                    self.pos += 1;
                    e = Expr::Factorial(Box::new(e));
                }
                Some(Tok::Percent) => {
                    self.pos += 1;
                    e = Expr::Percent(Box::new(e));
                }
                Some(Tok::Degree) => {
                    self.pos += 1;
                    e = Expr::Degree(Box::new(e));
                }
                _ => return Ok(e),
            }
        }
    }

    /// A braced group `{…}` (a set when it holds a list), else one primary.
    fn argument(&mut self) -> PResult {
        if self.eat(&Tok::LBrace) {
            let inner = self.list()?;
            self.expect(&Tok::RBrace)?;
            return Ok(inner);
        }
        match self.peek() {
            // `\frac12`: one digit per argument.
            Some(Tok::Num(n)) if n.is_integer_literal() && n.digits.len() > 1 => {
                let n = n.clone();
                let (head, tail) = n.digits.split_at(1);
                let head = head.to_owned();
                self.toks[self.pos] = Tok::Num(Numeral {
                    digits: tail.to_owned(),
                    ..n
                });
                Ok(Expr::Num(Numeral {
                    digits: head,
                    places: 0,
                    decimal: false,
                    exp10: 0,
                }))
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> PResult {
        self.enter()?;
        let tok = self
            .peek()
            .cloned()
            .ok_or_else(|| syntax("unexpected end"))?;
        self.pos += 1;
        let out = match tok {
            Tok::Num(n) => self.after_number(n)?,
            Tok::Letter(c) => self.letter(c)?,
            Tok::LParen | Tok::LBrack => self.bracketed(tok)?,
            // Bare braces only group in LaTeX: `{1,3}` renders as the list `1,3`.
            Tok::LBrace => {
                let inner = self.list()?;
                self.expect(&Tok::RBrace)?;
                inner
            }
            Tok::LSet => {
                if self.eat(&Tok::RSet) {
                    Expr::Set(Vec::new())
                } else {
                    let inner = self.list()?;
                    self.expect(&Tok::RSet)?;
                    match inner {
                        Expr::List(items) => Expr::Set(items),
                        other => Expr::Set(vec![other]),
                    }
                }
            }
            Tok::Bar => {
                let inner = self.additive()?;
                self.expect(&Tok::Bar)?;
                Expr::Abs(Box::new(inner))
            }
            Tok::Cmd(name) => self.command(&name)?,
            other => return Err(ParseError::Syntax(format!("unexpected {other:?}"))),
        };
        self.leave();
        Ok(out)
    }

    /// A number, possibly the whole part of a mixed number (`3\frac{1}{2}`).
    fn after_number(&mut self, n: Numeral) -> PResult {
        // `204_5`, `1011_{2}`: a numeral in another base.
        if n.is_integer_literal() && self.peek() == Some(&Tok::Underscore) {
            self.pos += 1;
            let base = self.subscript_text()?;
            return based_numeral(&n.digits, &base);
        }
        if n.is_integer_literal() && self.is_cmd("frac") {
            let save = self.pos;
            self.pos += 1;
            let num = self.argument()?;
            let den = self.argument()?;
            let both_integers = [&num, &den]
                .iter()
                .all(|e| matches!(e, Expr::Num(m) if m.is_integer_literal()));
            if both_integers {
                return Ok(Expr::Add(vec![
                    Expr::Num(n),
                    Expr::Div(Box::new(num), Box::new(den)),
                ]));
            }
            self.pos = save;
        }
        // `0.\overline{3}`, `0.1\overline{6}`: a repeating decimal.
        // `\bar` and `\dot` are the same notation (`0.\bar{6}`, `0.58\dot{3}`).
        let repeat = ["overline", "bar", "dot"].iter().any(|c| self.is_cmd(c));
        if n.decimal && n.exp10 == 0 && repeat {
            if let Some(Tok::Num(block)) = self.peek_at(2).cloned() {
                if self.peek_at(1) == Some(&Tok::LBrace)
                    && self.peek_at(3) == Some(&Tok::RBrace)
                    && block.is_integer_literal()
                {
                    self.pos += 4;
                    return repeating_decimal(n, &block.digits);
                }
            }
        }
        Ok(Expr::Num(n))
    }

    /// A one-letter name with an optional subscript; `e`, `i` are constants.
    fn letter(&mut self, c: char) -> PResult {
        if self.eat(&Tok::Underscore) {
            let sub = self.subscript_text()?;
            return Ok(Expr::Var(format!("{c}_{sub}")));
        }
        Ok(match c {
            'e' => Expr::Const(Constant::E),
            'i' => Expr::Const(Constant::I),
            _ => Expr::Var(c.to_string()),
        })
    }

    /// A subscript as plain text (`x_1`, `a_{n+1}`).
    fn subscript_text(&mut self) -> Result<String, ParseError> {
        let mut out = String::new();
        let single = !self.eat(&Tok::LBrace);
        let mut depth = 0usize;
        while let Some(t) = self.peek().cloned() {
            if !single && t == Tok::RBrace && depth == 0 {
                self.pos += 1;
                return Ok(out);
            }
            self.pos += 1;
            match &t {
                Tok::LBrace => depth += 1,
                Tok::RBrace => depth = depth.saturating_sub(1),
                _ => {}
            }
            out.push_str(&token_text(&t));
            if single {
                return Ok(out);
            }
        }
        if single {
            Err(syntax("empty subscript"))
        } else {
            Err(syntax("unclosed subscript"))
        }
    }

    /// `( … )` or `[ … ]`: grouping for one item, a tuple or interval for several.
    fn bracketed(&mut self, open: Tok) -> PResult {
        let inner = self.list()?;
        let close = match self.peek() {
            Some(Tok::RParen) => ')',
            Some(Tok::RBrack) => ']',
            _ => return Err(syntax("unclosed bracket")),
        };
        self.pos += 1;
        let open = if open == Tok::LParen { '(' } else { '[' };
        Ok(match inner {
            Expr::List(items) => Expr::Tuple { open, close, items },
            single if open == '(' && close == ')' || open == '[' && close == ']' => single,
            _ => return Err(syntax("mismatched brackets")),
        })
    }

    fn command(&mut self, name: &str) -> PResult {
        if let Some(f) = Func::from_name(name) {
            return self.function(f);
        }
        Ok(match name {
            "cis" => match self.function(Func::Cos)? {
                Expr::Func(Func::Cos, theta) => Expr::Add(vec![
                    Expr::Func(Func::Cos, theta.clone()),
                    Expr::Mul(vec![Expr::Const(Constant::I), Expr::Func(Func::Sin, theta)]),
                ]),
                _ => return Err(syntax("a power of cis")),
            },
            "pi" => Expr::Const(Constant::Pi),
            "infty" | "inf" | "infinity" => Expr::Const(Constant::Infinity),
            "emptyset" => Expr::Set(Vec::new()),
            // `\mathbb{R}`: all reals, the interval (-∞, ∞).
            "mathbb" => {
                let name = match self.argument()? {
                    Expr::Var(v) => v,
                    _ => return Err(syntax("\\mathbb needs a letter")),
                };
                if name != "R" {
                    return Ok(Expr::Var(format!("\\mathbb{{{name}}}")));
                }
                let inf = Expr::Const(Constant::Infinity);
                Expr::Tuple {
                    open: '(',
                    close: ')',
                    items: vec![Expr::Neg(Box::new(inf.clone())), inf],
                }
            }
            "frac" => {
                let num = self.argument()?;
                let den = self.argument()?;
                Expr::Div(Box::new(num), Box::new(den))
            }
            "binom" => {
                let n = self.argument()?;
                let k = self.argument()?;
                Expr::Binom(Box::new(n), Box::new(k))
            }
            "sqrt" => {
                let index = if self.eat(&Tok::LBrack) {
                    let i = self.list()?;
                    self.expect(&Tok::RBrack)?;
                    i
                } else {
                    Expr::integer(2)
                };
                let radicand = self.argument()?;
                Expr::Root(Box::new(index), Box::new(radicand))
            }
            "langle" => {
                let inner = self.list()?;
                if !self.is_cmd("rangle") {
                    return Err(syntax("unclosed \\langle"));
                }
                self.pos += 1;
                let items = match inner {
                    Expr::List(items) => items,
                    single => vec![single],
                };
                Expr::Tuple {
                    open: '(',
                    close: ')',
                    items,
                }
            }
            "begin" => self.matrix()?,
            "alpha" | "beta" | "gamma" | "delta" | "theta" | "lambda" | "mu" | "phi" | "varphi"
            | "omega" | "sigma" | "tau" | "rho" | "epsilon" | "varepsilon" | "psi" | "xi"
            | "eta" | "zeta" | "nu" | "kappa" | "chi" => Expr::Var(format!("\\{name}")),
            _ => return Err(ParseError::Syntax(format!("unknown command \\{name}"))),
        })
    }

    /// `\sin x`, `\sin^2(x)`, `\log_2 8`, `\ln(x+1)`.
    fn function(&mut self, f: Func) -> PResult {
        let mut base = None;
        let mut power = None;
        for _ in 0..2 {
            if self.eat(&Tok::Underscore) {
                base = Some(self.argument()?);
            } else if self.eat(&Tok::Caret) {
                power = Some(self.argument()?);
            }
        }
        let arg = match self.peek() {
            Some(Tok::LParen) => {
                self.pos += 1;
                let a = self.additive()?;
                self.expect(&Tok::RParen)?;
                a
            }
            _ => {
                // `\sin 2x` is `sin(2x)`; the argument stops at a sign or a function.
                let mut factors = vec![self.power()?];
                while matches!(self.peek(), Some(Tok::Letter(_)))
                    || matches!(self.peek(), Some(Tok::Cmd(c)) if c == "pi")
                {
                    factors.push(self.power()?);
                }
                if factors.len() == 1 {
                    factors.pop().unwrap_or(Expr::List(Vec::new()))
                } else {
                    Expr::Mul(factors)
                }
            }
        };
        // `\sin 30^\circ`: degrees inside a trigonometric function are converted.
        let arg = if f.is_trigonometric() {
            degrees_to_radians(arg)
        } else {
            arg
        };
        let applied = match (f, base) {
            (Func::Log, Some(b)) => Expr::LogBase(Box::new(b), Box::new(arg)),
            (_, Some(_)) => return Err(syntax("subscript on a function")),
            (f, None) => Expr::Func(f, Box::new(arg)),
        };
        Ok(match power {
            // `\sin^{-1}` is the inverse, which we do not model.
            Some(Expr::Neg(_)) => return Err(syntax("inverse function power")),
            Some(p) => Expr::Pow(Box::new(applied), Box::new(p)),
            None => applied,
        })
    }

    /// `\begin{pmatrix} a & b \\ c & d \end{pmatrix}` (also bmatrix, matrix, …).
    fn matrix(&mut self) -> PResult {
        let kind = self.env_name()?;
        if !kind.ends_with("matrix") && kind != "array" {
            return Err(ParseError::Syntax(format!("unknown environment {kind}")));
        }
        if kind == "array" && self.eat(&Tok::LBrace) {
            // Column spec such as `{cc}`.
            while !self.eat(&Tok::RBrace) {
                if self.peek().is_none() {
                    return Err(syntax("unclosed array spec"));
                }
                self.pos += 1;
            }
        }
        let mut rows = Vec::new();
        let mut row = Vec::new();
        loop {
            if self.is_cmd("end") {
                self.pos += 1;
                self.env_name()?;
                break;
            }
            row.push(self.relation()?);
            if rows.len() * row.len() > MAX_ELEMENTS * 4 {
                return Err(ParseError::Limit(LimitHit::TooManyTokens));
            }
            match self.peek() {
                Some(Tok::Amp) => self.pos += 1,
                Some(Tok::RowSep) => {
                    self.pos += 1;
                    rows.push(std::mem::take(&mut row));
                    if self.is_cmd("end") {
                        self.pos += 1;
                        self.env_name()?;
                        return finish_matrix(rows);
                    }
                }
                Some(Tok::Cmd(c)) if c == "end" => {}
                _ => return Err(syntax("bad matrix cell")),
            }
        }
        if !row.is_empty() {
            rows.push(row);
        }
        finish_matrix(rows)
    }

    fn env_name(&mut self) -> Result<String, ParseError> {
        self.expect(&Tok::LBrace)?;
        let mut name = String::new();
        while let Some(t) = self.peek().cloned() {
            self.pos += 1;
            match t {
                Tok::RBrace => return Ok(name),
                other => name.push_str(&token_text(&other)),
            }
        }
        Err(syntax("unclosed environment name"))
    }
}

/// `\mathbb{R} - \{0\}` (a sum whose first term is an unbounded interval and whose
/// second is minus a set or an interval) as the set difference.
fn minus_as_difference(e: &Expr) -> Option<Expr> {
    let Expr::Add(terms) = e else { return None };
    let [Expr::Tuple { items, .. }, Expr::Neg(removed)] = terms.as_slice() else {
        return None;
    };
    let unbounded = items.iter().any(|x| {
        matches!(x, Expr::Const(Constant::Infinity))
            || matches!(x, Expr::Neg(i) if matches!(**i, Expr::Const(Constant::Infinity)))
    });
    if !unbounded || !matches!(**removed, Expr::Set(_) | Expr::Tuple { .. }) {
        return None;
    }
    super::set_difference::difference(terms[0].clone(), removed)
}

/// `x^\circ` as `x·π/180`, wherever it occurs in a trigonometric argument.
fn degrees_to_radians(e: Expr) -> Expr {
    let to_radians = |x: Expr| {
        Expr::Mul(vec![
            x,
            Expr::Div(
                Box::new(Expr::Const(Constant::Pi)),
                Box::new(Expr::integer(180)),
            ),
        ])
    };
    match e {
        Expr::Degree(x) => to_radians(*x),
        Expr::Neg(x) => Expr::Neg(Box::new(degrees_to_radians(*x))),
        Expr::Add(xs) => Expr::Add(xs.into_iter().map(degrees_to_radians).collect()),
        Expr::Mul(xs) => Expr::Mul(xs.into_iter().map(degrees_to_radians).collect()),
        Expr::Div(a, b) => Expr::Div(
            Box::new(degrees_to_radians(*a)),
            Box::new(degrees_to_radians(*b)),
        ),
        other => other,
    }
}

/// `n` followed by the repeating block `block`: `n + block / ((10^k − 1)·10^p)` for a
/// block of `k` digits after `p` written places.
fn repeating_decimal(n: Numeral, block: &str) -> PResult {
    if block.len() > 64 || n.places > 64 {
        return Err(syntax("repeating block too long"));
    }
    let denominator = format!(
        "{}{}",
        "9".repeat(block.len()),
        "0".repeat(n.places as usize)
    );
    let integer = |digits: String| {
        Expr::Num(Numeral {
            digits,
            places: 0,
            decimal: false,
            exp10: 0,
        })
    };
    Ok(Expr::Add(vec![
        Expr::Num(n),
        Expr::Div(
            Box::new(integer(block.to_owned())),
            Box::new(integer(denominator)),
        ),
    ]))
}

/// The value of `digits` read in `base` (2–36), as a decimal numeral.
fn based_numeral(digits: &str, base: &str) -> PResult {
    let radix: u32 = base
        .parse()
        .ok()
        .filter(|b| (2..=36).contains(b))
        .ok_or_else(|| syntax("numeral base must be 2 to 36"))?;
    let value = num_bigint::BigUint::parse_bytes(digits.as_bytes(), radix)
        .ok_or_else(|| syntax("digit outside the numeral's base"))?;
    Ok(Expr::Num(Numeral {
        digits: value.to_string(),
        places: 0,
        decimal: false,
        exp10: 0,
    }))
}

fn finish_matrix(rows: Vec<Vec<Expr>>) -> PResult {
    let width = rows.first().map_or(0, Vec::len);
    if width == 0 || rows.iter().any(|r| r.len() != width) {
        return Err(syntax("ragged matrix"));
    }
    Ok(Expr::Matrix(rows))
}

/// The source spelling of a token, for subscripts and environment names.
fn token_text(t: &Tok) -> String {
    match t {
        Tok::Num(n) => n.digits.clone(),
        Tok::Letter(c) => c.to_string(),
        Tok::Word(w) => w.clone(),
        Tok::Cmd(c) => format!("\\{c}"),
        Tok::Plus => "+".into(),
        Tok::Minus => "-".into(),
        Tok::Times => "*".into(),
        Tok::Comma => ",".into(),
        Tok::LBrace => "{".into(),
        Tok::RBrace => "}".into(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Expr {
        parse(s).unwrap_or_else(|e| panic!("{s}: {e:?}")).expr
    }

    #[test]
    fn structures() {
        assert!(matches!(
            p("(1, 2]"),
            Expr::Tuple {
                open: '(',
                close: ']',
                ..
            }
        ));
        assert!(matches!(p("\\{1,2\\}"), Expr::Set(v) if v.len() == 2));
        assert!(matches!(p("1, 2, 3"), Expr::List(v) if v.len() == 3));
        assert!(matches!(p("x \\le 3"), Expr::Relation { .. }));
        assert!(matches!(p("(0,1)\\cup(2,3)"), Expr::Union(v) if v.len() == 2));
        assert!(matches!(
            p("\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}"),
            Expr::Matrix(r) if r.len() == 2
        ));
        assert!(matches!(p("\\pm 3"), Expr::PlusMinus(..)));
        assert!(matches!(p("(B)"), Expr::Text(t) if t == "B"));
    }

    #[test]
    fn equation_lists_become_value_lists() {
        match p("n=2,3,4") {
            Expr::Relation { sides, .. } => {
                assert!(matches!(&sides[1], Expr::List(v) if v.len() == 3))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn mixed_numbers_and_compact_fractions() {
        assert!(matches!(p("3\\frac{1}{2}"), Expr::Add(_)));
        assert!(matches!(p("\\frac12"), Expr::Div(..)));
        assert!(matches!(p("x\\frac{1}{2}"), Expr::Mul(_)));
    }

    #[test]
    fn units_are_recorded() {
        let parsed = parse("5\\text{ cm}^2").unwrap();
        assert_eq!(parsed.units, vec!["cm^2".to_string()]);
        assert!(matches!(parsed.expr, Expr::Num(_)));
    }

    #[test]
    fn depth_is_limited() {
        let deep = "(".repeat(500) + "1" + &")".repeat(500);
        assert_eq!(parse(&deep), Err(ParseError::Limit(LimitHit::TooDeep)));
    }

    #[test]
    fn malformed_sqrt_with_parentheses() {
        assert!(matches!(p("4\\sqrt(2)"), Expr::Mul(_)));
    }
}
