//! The languages the `code` environment runs, as named in samples.

/// A sample's `language`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    C,
    Cpp,
}

impl Language {
    /// Parses `python`, `c` or `cpp` (also `python3`, `c++`).
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "python" | "python3" | "py" => Some(Language::Python),
            "c" => Some(Language::C),
            "cpp" | "c++" | "cxx" => Some(Language::Cpp),
            _ => None,
        }
    }

    /// Whether a code fence's tag (first word of its info string, lowercased) is this
    /// language.
    pub fn matches_tag(self, tag: &str) -> bool {
        match self {
            Language::Python => matches!(tag, "python" | "py" | "python3" | "py3"),
            Language::C => matches!(tag, "c" | "h"),
            Language::Cpp => matches!(tag, "cpp" | "c++" | "cc" | "cxx" | "hpp"),
        }
    }
}
