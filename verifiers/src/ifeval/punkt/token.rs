//! Punkt's token annotations (`PunktToken`) and the two annotation passes that
//! decide which periods end sentences.

use std::sync::OnceLock;

use regex::Regex;

use super::params::{Params, ORTHO_BEG_LC, ORTHO_LC, ORTHO_MID_UC, ORTHO_UC};

/// One word token with the flags Punkt attaches to it.
pub struct Token<'a> {
    pub tok: &'a str,
    /// Lowercased, with numbers replaced by `##number##`.
    pub typ: String,
    pub period_final: bool,
    pub sentbreak: bool,
    pub abbr: bool,
    pub ellipsis: bool,
}

fn numeric() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^-?[.,]?\d[\d,.\-]*\.?$").expect("static pattern"))
}

impl<'a> Token<'a> {
    pub fn new(tok: &'a str) -> Self {
        let lower = tok.to_lowercase();
        let typ = if numeric().is_match(&lower) {
            "##number##".to_owned()
        } else {
            lower
        };
        Self {
            tok,
            typ,
            period_final: tok.ends_with('.'),
            sentbreak: false,
            abbr: false,
            ellipsis: false,
        }
    }

    fn type_no_period(&self) -> &str {
        if self.typ.chars().count() > 1 && self.typ.ends_with('.') {
            &self.typ[..self.typ.len() - 1]
        } else {
            &self.typ
        }
    }

    fn type_no_sentperiod(&self) -> &str {
        if self.sentbreak {
            self.type_no_period()
        } else {
            &self.typ
        }
    }

    fn first_upper(&self) -> bool {
        self.tok.chars().next().is_some_and(char::is_uppercase)
    }

    fn first_lower(&self) -> bool {
        self.tok.chars().next().is_some_and(char::is_lowercase)
    }

    fn is_ellipsis(&self) -> bool {
        self.tok.len() >= 2 && self.tok.bytes().all(|b| b == b'.')
    }

    /// `[^\W\d]\.$`: a single letter (or underscore) and a period.
    fn is_initial(&self) -> bool {
        static RE: OnceLock<Regex> = OnceLock::new();
        RE.get_or_init(|| Regex::new(r"^[^\W\d]\.$").expect("static pattern"))
            .is_match(self.tok)
    }
}

/// First pass: decisions from the token's own type.
pub fn annotate_first_pass(token: &mut Token, params: &Params) {
    let tok = token.tok;
    if matches!(tok, "." | "?" | "!") {
        token.sentbreak = true;
    } else if token.is_ellipsis() {
        token.ellipsis = true;
    } else if token.period_final && !tok.ends_with("..") {
        let stem = tok[..tok.len() - 1].to_lowercase();
        let last = stem.rsplit('-').next().unwrap_or("");
        if params.abbrev_types.contains(stem.as_str()) || params.abbrev_types.contains(last) {
            token.abbr = true;
        } else {
            token.sentbreak = true;
        }
    }
}

/// Punkt's orthographic heuristic: does `token` start a sentence?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ortho {
    Yes,
    No,
    Unknown,
}

fn ortho_heuristic(token: &Token, params: &Params) -> Ortho {
    if matches!(token.tok, ";" | ":" | "," | "." | "!" | "?") {
        return Ortho::No;
    }
    let context = params.ortho(token.type_no_sentperiod());
    if token.first_upper() && context & ORTHO_LC != 0 && context & ORTHO_MID_UC == 0 {
        return Ortho::Yes;
    }
    if token.first_lower() && (context & ORTHO_UC != 0 || context & ORTHO_BEG_LC == 0) {
        return Ortho::No;
    }
    Ortho::Unknown
}

/// Second pass on one pair: revises the first token's decision using the next.
pub fn annotate_second_pass(first: &mut Token, next: &Token, params: &Params) {
    if !first.period_final {
        return;
    }
    let typ = first.type_no_period().to_owned();
    let next_typ = next.type_no_sentperiod();
    let is_initial = first.is_initial();
    if params.collocations.contains(&(typ.as_str(), next_typ)) {
        first.sentbreak = false;
        first.abbr = true;
        return;
    }
    if (first.abbr || first.ellipsis) && !is_initial {
        if ortho_heuristic(next, params) == Ortho::Yes {
            first.sentbreak = true;
            return;
        }
        if next.first_upper() && params.sent_starters.contains(next_typ) {
            first.sentbreak = true;
            return;
        }
    }
    if is_initial || typ == "##number##" {
        let ortho = ortho_heuristic(next, params);
        if ortho == Ortho::No {
            first.sentbreak = false;
            first.abbr = true;
            return;
        }
        if ortho == Ortho::Unknown
            && is_initial
            && next.first_upper()
            && params.ortho(next_typ) & ORTHO_LC == 0
        {
            first.sentbreak = false;
            first.abbr = true;
        }
    }
}
