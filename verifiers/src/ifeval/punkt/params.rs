//! NLTK's pretrained English Punkt parameters (`punkt_tab/english`, Apache-2.0,
//! trained by Kiss and Strunk on the WSJ corpus), bundled verbatim and parsed once.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// Orthographic context flags, as in `nltk.tokenize.punkt`.
pub const ORTHO_BEG_UC: u32 = 1 << 1;
pub const ORTHO_MID_UC: u32 = 1 << 2;
pub const ORTHO_UNK_UC: u32 = 1 << 3;
pub const ORTHO_BEG_LC: u32 = 1 << 4;
pub const ORTHO_MID_LC: u32 = 1 << 5;
pub const ORTHO_UNK_LC: u32 = 1 << 6;
pub const ORTHO_UC: u32 = ORTHO_BEG_UC | ORTHO_MID_UC | ORTHO_UNK_UC;
pub const ORTHO_LC: u32 = ORTHO_BEG_LC | ORTHO_MID_LC | ORTHO_UNK_LC;

/// The learned model: abbreviations, collocations, frequent sentence starters and
/// the orthographic contexts each word type was seen in.
pub struct Params {
    pub abbrev_types: HashSet<&'static str>,
    pub collocations: HashSet<(&'static str, &'static str)>,
    pub sent_starters: HashSet<&'static str>,
    pub ortho_context: HashMap<&'static str, u32>,
}

impl Params {
    /// Flags for a word type; 0 when never seen (Python's `defaultdict(int)`).
    pub fn ortho(&self, typ: &str) -> u32 {
        self.ortho_context.get(typ).copied().unwrap_or(0)
    }
}

/// One entry per line; the loader keeps every line, as NLTK's `txt2set` does.
fn lines(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
}

/// The English model, parsed on first use.
pub fn english() -> &'static Params {
    static PARAMS: OnceLock<Params> = OnceLock::new();
    PARAMS.get_or_init(|| Params {
        abbrev_types: lines(include_str!("english/abbrev_types.txt")).collect(),
        collocations: lines(include_str!("english/collocations.tab"))
            .filter_map(|l| l.split_once('\t'))
            .collect(),
        sent_starters: lines(include_str!("english/sent_starters.txt")).collect(),
        ortho_context: lines(include_str!("english/ortho_context.tab"))
            .filter_map(|l| {
                let (typ, flags) = l.split_once('\t')?;
                Some((typ, flags.parse().ok()?))
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_model_parses_completely() {
        let p = english();
        assert_eq!(p.abbrev_types.len(), 156);
        assert_eq!(p.collocations.len(), 37);
        assert_eq!(p.sent_starters.len(), 39);
        assert_eq!(p.ortho_context.len(), 20366);
        assert!(p.abbrev_types.contains("dr"));
    }
}
