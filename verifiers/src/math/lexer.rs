//! Turns answer text (LaTeX or plain) into tokens.
//!
//! Presentation-only LaTeX is dropped here: `\left`/`\right`, spacing commands,
//! `\displaystyle`, and the wrappers `\text{}`, `\mathrm{}`, `\mathbf{}`, `\textbf{}`,
//! `\mbox{}`, `\operatorname{}` (their content is lexed in place). `\dfrac` and
//! `\tfrac` become `\frac`. Thousands separators (`1,000`, `1{,}000`, `1\,000`) are
//! joined into one number outside brackets.

use super::expr::Numeral;
use super::limits::{LimitHit, MAX_NUMERAL_DIGITS, MAX_TOKENS};

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Num(Numeral),
    /// A one-letter name (`x`, `e`, `i`, `α`).
    Letter(char),
    /// A word of plain text (`cm`, `apples`, `Tuesday`).
    Word(String),
    /// A LaTeX command without its backslash (`frac`, `pi`, `cdot`).
    Cmd(String),
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBrack,
    RBrack,
    /// `\{`
    LSet,
    /// `\}`
    RSet,
    Bar,
    Plus,
    Minus,
    PlusMinus,
    MinusPlus,
    Times,
    Slash,
    Caret,
    Underscore,
    Bang,
    Comma,
    Semicolon,
    Colon,
    Eq,
    /// `\approx`: ends the exact part of a chain (`x = 1/3 \approx 0.33`).
    Approx,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Percent,
    Degree,
    Amp,
    /// `\\` (matrix row separator).
    RowSep,
    Prime,
    Dollar,
    /// Any other character: the answer cannot be parsed as math.
    Other(char),
}

/// Why text could not be tokenised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LexError {
    Limit(LimitHit),
    /// `\text{` (or another wrapper) without its closing brace.
    Unclosed,
}

/// Commands dropped entirely (presentation only).
const DROPPED: [&str; 22] = [
    "left",
    "right",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "biggl",
    "biggr",
    "displaystyle",
    "textstyle",
    "quad",
    "qquad",
    "limits",
    "nolimits",
    "middle",
    "cr",
    "hline",
    "phantom",
];

/// Commands whose braced argument is lexed in place.
const WRAPPERS: [&str; 13] = [
    "text",
    "textnormal",
    "hbox",
    "textrm",
    "textbf",
    "textit",
    "mathrm",
    "mathbf",
    "mathit",
    "mbox",
    "operatorname",
    "boldsymbol",
    "mathsf",
];

/// Tokenises `src`. Letters inside wrappers such as `\text{}` form words.
pub fn tokenize(src: &str) -> Result<Vec<Tok>, LexError> {
    let mut lexer = Lexer {
        chars: src.chars().collect(),
        pos: 0,
        out: Vec::new(),
        depth: 0,
    };
    lexer.run(false)?;
    Ok(lexer.out)
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    out: Vec<Tok>,
    /// Bracket depth, for the thousands-separator rule.
    depth: i32,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn push(&mut self, tok: Tok) -> Result<(), LexError> {
        if self.out.len() >= MAX_TOKENS {
            return Err(LexError::Limit(LimitHit::TooManyTokens));
        }
        self.out.push(tok);
        Ok(())
    }

    /// Lexes until the end, or (inside a wrapper) until the closing brace.
    fn run(&mut self, in_text: bool) -> Result<(), LexError> {
        let mut braces = 0usize;
        while let Some(c) = self.peek(0) {
            if in_text {
                if c == '{' {
                    braces += 1;
                } else if c == '}' {
                    if braces == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                    braces -= 1;
                }
            }
            self.step(c, in_text)?;
        }
        if in_text {
            return Err(LexError::Unclosed);
        }
        Ok(())
    }

    fn step(&mut self, c: char, in_text: bool) -> Result<(), LexError> {
        if c.is_ascii_digit() || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) {
            return self.number();
        }
        if c.is_alphabetic() {
            return self.letters(in_text);
        }
        self.pos += 1;
        let tok = match c {
            '\\' => return self.command(),
            c if c.is_whitespace() || c == '~' => return Ok(()),
            '{' => {
                self.depth += 1;
                Tok::LBrace
            }
            '}' => {
                self.depth -= 1;
                Tok::RBrace
            }
            '(' => {
                self.depth += 1;
                Tok::LParen
            }
            ')' => {
                self.depth -= 1;
                Tok::RParen
            }
            '[' => {
                self.depth += 1;
                Tok::LBrack
            }
            ']' => {
                self.depth -= 1;
                Tok::RBrack
            }
            '|' => Tok::Bar,
            '+' => Tok::Plus,
            '-' | '−' | '–' => Tok::Minus,
            '±' => Tok::PlusMinus,
            '*' | '×' | '·' | '⋅' => Tok::Times,
            '/' | '÷' => Tok::Slash,
            '^' => Tok::Caret,
            '_' => Tok::Underscore,
            '!' if self.peek(0) == Some('=') => {
                self.pos += 1;
                Tok::Ne
            }
            '!' => Tok::Bang,
            ',' => Tok::Comma,
            ';' => Tok::Semicolon,
            ':' => Tok::Colon,
            '=' => Tok::Eq,
            '≠' => Tok::Ne,
            '<' => {
                if self.peek(0) == Some('=') {
                    self.pos += 1;
                    Tok::Le
                } else {
                    Tok::Lt
                }
            }
            '>' => {
                if self.peek(0) == Some('=') {
                    self.pos += 1;
                    Tok::Ge
                } else {
                    Tok::Gt
                }
            }
            '≤' | '⩽' => Tok::Le,
            '≥' | '⩾' => Tok::Ge,
            '%' => Tok::Percent,
            '°' => Tok::Degree,
            '&' => Tok::Amp,
            '\'' | '′' => Tok::Prime,
            '$' | '€' | '£' | '¥' => Tok::Dollar,
            'π' => Tok::Cmd("pi".into()),
            '∞' => Tok::Cmd("infty".into()),
            '√' => Tok::Cmd("sqrt".into()),
            '∪' => Tok::Cmd("cup".into()),
            '∩' => Tok::Cmd("cap".into()),
            '∈' => Tok::Cmd("in".into()),
            other => Tok::Other(other),
        };
        self.push(tok)
    }

    /// A run of letters. Outside `\text{}` a run of one or two letters is a product of
    /// one-letter names (`xy`); longer runs are words. Inside, every run is a word.
    fn letters(&mut self, in_text: bool) -> Result<(), LexError> {
        let start = self.pos;
        while self.peek(0).is_some_and(char::is_alphabetic) {
            self.pos += 1;
        }
        let word: String = self.chars[start..self.pos].iter().collect();
        let count = self.pos - start;
        if count == 1 && !in_text {
            return self.push(Tok::Letter(self.chars[start]));
        }
        // `\operatorname{cis}\theta`, `cis(θ)`: cos θ + i sin θ.
        if word == "cis" {
            return self.push(Tok::Cmd(word));
        }
        if !in_text && word == "or" {
            return self.push(Tok::Comma);
        }
        if !in_text && (count == 2 || KNOWN_PLAIN_COMMANDS.contains(&word.as_str())) {
            if KNOWN_PLAIN_COMMANDS.contains(&word.as_str()) {
                return self.push(Tok::Cmd(word));
            }
            for c in word.chars() {
                self.push(Tok::Letter(c))?;
            }
            return Ok(());
        }
        if in_text && count == 1 {
            return self.push(Tok::Letter(self.chars[start]));
        }
        if matches!(
            word.to_ascii_lowercase().as_str(),
            "percent" | "pct" | "percentage"
        ) {
            return self.push(Tok::Percent);
        }
        self.push(Tok::Word(word))
    }

    /// `\name`, `\{`, `\\`, `\,` and friends.
    fn command(&mut self) -> Result<(), LexError> {
        let Some(c) = self.peek(0) else {
            return self.push(Tok::Other('\\'));
        };
        // `\\frac` from doubly escaped text is `\frac`, not a row break then `frac`; but
        // `\\x+1` (one letter) is a row break before `x`: no math command is one letter.
        let letters = (1..)
            .take_while(|&k| self.peek(k).is_some_and(|d| d.is_ascii_alphabetic()))
            .take(2)
            .count();
        if c == '\\' && letters >= 2 {
            self.pos += 1;
            return self.command();
        }
        if !c.is_ascii_alphabetic() {
            self.pos += 1;
            let tok = match c {
                '{' => Tok::LSet,
                '}' => Tok::RSet,
                '\\' => Tok::RowSep,
                '%' => Tok::Percent,
                '$' => Tok::Dollar,
                '|' => Tok::Bar,
                ',' | ';' | ':' | '!' | ' ' | '>' => return self.spacing_or_separator(c),
                other => Tok::Other(other),
            };
            return self.push(tok);
        }
        let start = self.pos;
        while self.peek(0).is_some_and(|c| c.is_ascii_alphabetic()) {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos].iter().collect();
        if DROPPED.contains(&name.as_str()) {
            return Ok(());
        }
        // `\quadx_2`: spacing written against the next name (common in scraped golds).
        if let Some(spacing) = ["qquad", "quad"]
            .into_iter()
            .find(|p| name.len() > p.len() && name.starts_with(p))
        {
            self.pos = start + spacing.len();
            return Ok(());
        }
        if WRAPPERS.contains(&name.as_str()) {
            self.skip_spaces();
            if self.peek(0) == Some('{') {
                self.pos += 1;
                return self.run(true);
            }
            return Ok(());
        }
        let tok = match name.as_str() {
            "dfrac" | "tfrac" | "cfrac" => Tok::Cmd("frac".into()),
            "dbinom" | "tbinom" | "choose" => Tok::Cmd("binom".into()),
            "cdot" | "times" | "ast" => Tok::Times,
            "div" => Tok::Slash,
            "pm" => Tok::PlusMinus,
            "mp" => Tok::MinusPlus,
            "le" | "leq" | "leqslant" => Tok::Le,
            "ge" | "geq" | "geqslant" => Tok::Ge,
            "lt" => Tok::Lt,
            "gt" => Tok::Gt,
            "ne" | "neq" => Tok::Ne,
            "approx" | "simeq" | "sim" => Tok::Approx,
            // `x < -2 \lor x > 3`: alternatives, read like "or".
            "lor" | "vee" | "land" | "wedge" => Tok::Comma,
            "doteq" | "equiv" => Tok::Eq,
            "vert" | "lvert" | "rvert" | "mid" => Tok::Bar,
            "lbrace" => Tok::LSet,
            "rbrace" => Tok::RSet,
            "lbrack" => Tok::LBrack,
            "rbrack" => Tok::RBrack,
            "circ" | "degree" => Tok::Degree,
            "prime" => Tok::Prime,
            "varpi" => Tok::Cmd("pi".into()),
            "infin" | "infinity" => Tok::Cmd("infty".into()),
            "emptyset" | "varnothing" => Tok::Cmd("emptyset".into()),
            _ => Tok::Cmd(name),
        };
        self.push(tok)
    }

    /// `\,` between digit groups is a thousands separator; elsewhere spacing.
    fn spacing_or_separator(&mut self, c: char) -> Result<(), LexError> {
        if c == ',' && self.prev_is_digit() && self.next_is_digit_group() {
            return self.number_continuation();
        }
        Ok(())
    }

    fn prev_is_digit(&self) -> bool {
        matches!(self.out.last(), Some(Tok::Num(n)) if n.is_integer_literal())
    }

    /// Exactly three digits follow, then a non-digit.
    fn next_is_digit_group(&self) -> bool {
        (0..3).all(|k| self.peek(k).is_some_and(|d| d.is_ascii_digit()))
            && !self.peek(3).is_some_and(|d| d.is_ascii_digit())
    }

    /// Appends the next three digits to the previous integer numeral.
    fn number_continuation(&mut self) -> Result<(), LexError> {
        let digits: String = self.chars[self.pos..self.pos + 3].iter().collect();
        self.pos += 3;
        if let Some(Tok::Num(n)) = self.out.last_mut() {
            n.digits.push_str(&digits);
        }
        Ok(())
    }

    fn skip_spaces(&mut self) {
        while self.peek(0).is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    /// Digits, thousands groups, a decimal part and a scientific exponent.
    fn number(&mut self) -> Result<(), LexError> {
        let mut digits = String::new();
        while let Some(d) = self.peek(0).filter(char::is_ascii_digit) {
            digits.push(d);
            self.pos += 1;
        }
        // Thousands: `1,234,567` (outside brackets, no spaces) and `1{,}234`.
        if self.depth == 0 && !digits.is_empty() && digits.len() <= 3 {
            // `1,000` and MATH's `1,\!000`.
            loop {
                // `,\!` may be followed by a space (`11,\! 111`).
                let skip = if self.at(",\\! ") {
                    4
                } else if self.at(",\\!") {
                    3
                } else {
                    1
                };
                let grouped = self.peek(0) == Some(',')
                    && (skip..skip + 3).all(|k| self.peek(k).is_some_and(|d| d.is_ascii_digit()))
                    && !self.peek(skip + 3).is_some_and(|d| d.is_ascii_digit());
                if !grouped {
                    break;
                }
                digits.extend(&self.chars[self.pos + skip..self.pos + skip + 3]);
                self.pos += skip + 3;
            }
        }
        while self.at("{,}") && (3..6).all(|k| self.peek(k).is_some_and(|d| d.is_ascii_digit())) {
            digits.extend(&self.chars[self.pos + 3..self.pos + 6]);
            self.pos += 6;
        }
        let mut places = 0u32;
        let mut decimal = false;
        if self.peek(0) == Some('.')
            && self
                .peek(1)
                .is_none_or(|d| d.is_ascii_digit() || !d.is_alphabetic())
        {
            decimal = true;
            self.pos += 1;
            while let Some(d) = self.peek(0).filter(char::is_ascii_digit) {
                digits.push(d);
                places += 1;
                self.pos += 1;
            }
        }
        if digits.is_empty() {
            digits.push('0');
        }
        let mut exp10 = 0i64;
        if matches!(self.peek(0), Some('e' | 'E')) {
            let sign_len = usize::from(matches!(self.peek(1), Some('+' | '-')));
            if self.peek(1 + sign_len).is_some_and(|d| d.is_ascii_digit()) {
                let negative = self.peek(1) == Some('-');
                self.pos += 1 + sign_len;
                let mut e = 0i64;
                while let Some(d) = self.peek(0).filter(char::is_ascii_digit) {
                    e = e
                        .saturating_mul(10)
                        .saturating_add(i64::from(d as u8 - b'0'));
                    self.pos += 1;
                }
                exp10 = if negative { -e } else { e };
            }
        }
        if digits.len() > MAX_NUMERAL_DIGITS || exp10.unsigned_abs() > MAX_NUMERAL_DIGITS as u64 {
            return Err(LexError::Limit(LimitHit::NumberTooLarge));
        }
        self.push(Tok::Num(Numeral {
            digits,
            places,
            decimal,
            exp10,
        }))
    }

    fn at(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(k, c)| self.peek(k) == Some(c))
    }
}

/// Plain-text spellings read as commands (`sqrt(2)`, `sin x`, `pi`).
const KNOWN_PLAIN_COMMANDS: [&str; 22] = [
    "sqrt", "pi", "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh",
    "cosh", "tanh", "ln", "log", "exp", "inf", "infty", "infinity", "cup", "cap",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn num(t: &Tok) -> (String, u32) {
        match t {
            Tok::Num(n) => (n.digits.clone(), n.places),
            other => panic!("not a number: {other:?}"),
        }
    }

    #[test]
    fn numbers_with_separators_and_decimals() {
        let t = tokenize("1,234,567").unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(num(&t[0]), ("1234567".into(), 0));
        let t = tokenize("1{,}000.25").unwrap();
        assert_eq!(num(&t[0]), ("100025".into(), 2));
        let t = tokenize("(1,234)").unwrap();
        assert_eq!(t.len(), 5);
        let t = tokenize("1, 234").unwrap();
        assert_eq!(t.len(), 3);
        let t = tokenize("2.5e-3").unwrap();
        assert!(matches!(&t[0], Tok::Num(n) if n.exp10 == -3 && n.places == 1));
        let t = tokenize("1,000.25").unwrap();
        assert_eq!(num(&t[0]), ("100025".into(), 2));
        let t = tokenize("\\\\frac").unwrap();
        assert_eq!(t, vec![Tok::Cmd("frac".into())]);
        let t = tokenize("11,\\! 111,\\! 100").unwrap();
        assert_eq!(num(&t[0]), ("11111100".into(), 0));
        let t = tokenize("10,\\!000").unwrap();
        assert_eq!(num(&t[0]), ("10000".into(), 0));
        let t = tokenize("1\\,000").unwrap();
        assert_eq!(num(&t[0]), ("1000".into(), 0));
    }

    #[test]
    fn wrappers_and_presentation_are_dropped() {
        let t = tokenize("\\left( \\text{13} \\right)").unwrap();
        assert_eq!(t.len(), 3);
        assert!(matches!(&t[1], Tok::Num(_)));
        let t = tokenize("5\\text{ cm}").unwrap();
        assert_eq!(t[1], Tok::Word("cm".into()));
        assert_eq!(tokenize("\\dfrac").unwrap(), vec![Tok::Cmd("frac".into())]);
        assert_eq!(tokenize("\\text{abc").unwrap_err(), LexError::Unclosed);
    }

    #[test]
    fn letters_words_and_plain_commands() {
        assert_eq!(
            tokenize("xy").unwrap(),
            vec![Tok::Letter('x'), Tok::Letter('y')]
        );
        assert_eq!(
            tokenize("Tuesday").unwrap(),
            vec![Tok::Word("Tuesday".into())]
        );
        assert_eq!(tokenize("sqrt").unwrap(), vec![Tok::Cmd("sqrt".into())]);
    }
}
