//! IFEval's comparison relations: "less than" is `<`, "at least" is `>=`.

/// How a count is compared with its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    LessThan,
    AtLeast,
}

impl Relation {
    /// Parses IFEval's spelling; anything else is refused, as the reference does.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "less than" => Some(Self::LessThan),
            "at least" => Some(Self::AtLeast),
            _ => None,
        }
    }

    /// Applies the relation to an observed count.
    pub fn holds(self, count: u64, threshold: u64) -> bool {
        match self {
            Self::LessThan => count < threshold,
            Self::AtLeast => count >= threshold,
        }
    }
}
