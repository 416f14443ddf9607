//! A JSON syntax check with Python's `json.loads` acceptance rules: it also takes
//! `NaN`, `Infinity`, `-Infinity` and lone surrogate escapes, refuses control
//! characters inside strings, and allows only ` \t\n\r` around the value.
//! Nesting deeper than [`MAX_DEPTH`] is refused (Python raises `RecursionError`
//! there, which would crash the reference rather than grade).

/// Deepest nesting accepted.
pub const MAX_DEPTH: usize = 900;

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.s[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string(),
            Some(b'n') => self.eat("null"),
            Some(b't') => self.eat("true"),
            Some(b'f') => self.eat("false"),
            Some(b'N') => self.eat("NaN"),
            Some(b'I') => self.eat("Infinity"),
            Some(b'-') if self.s[self.pos..].starts_with(b"-Infinity") => self.eat("-Infinity"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => false,
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> bool {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return false,
        }
        // Python's scanner backs off a fraction or exponent that is incomplete, and
        // then fails on the trailing text: the result is the same refusal.
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return false;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return false;
            }
        }
        true
    }

    fn string(&mut self) -> bool {
        self.pos += 1;
        loop {
            match self.peek() {
                None => return false,
                Some(b'"') => {
                    self.pos += 1;
                    return true;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.pos += 1
                        }
                        Some(b'u') => {
                            let hex = self.s.get(self.pos + 1..self.pos + 5);
                            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                                return false;
                            }
                            self.pos += 5;
                        }
                        _ => return false,
                    }
                }
                Some(c) if c < 0x20 => return false,
                Some(_) => self.pos += 1,
            }
        }
    }

    fn array(&mut self, depth: usize) -> bool {
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return true;
        }
        loop {
            self.skip_ws();
            if !self.value(depth + 1) {
                return false;
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return true;
                }
                _ => return false,
            }
        }
    }

    fn object(&mut self, depth: usize) -> bool {
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return true;
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') || !self.string() {
                return false;
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                return false;
            }
            self.pos += 1;
            self.skip_ws();
            if !self.value(depth + 1) {
                return false;
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return true;
                }
                _ => return false,
            }
        }
    }
}

/// Whether `json.loads(text)` would succeed.
pub fn is_valid(text: &str) -> bool {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
    };
    p.skip_ws();
    if !p.value(0) {
        return false;
    }
    p.skip_ws();
    p.pos == p.s.len()
}

#[cfg(test)]
mod tests {
    use super::is_valid;

    #[test]
    fn follows_python_json_loads() {
        for ok in [
            "{}",
            " [1, -2.5e3, \"a\\u00e9\"] ",
            "NaN",
            "-Infinity",
            "{\"a\": {\"b\": null}}",
            "\"\\ud800\"",
        ] {
            assert!(is_valid(ok), "{ok}");
        }
        for bad in [
            "",
            "{",
            "[1,]",
            "01",
            "1.",
            "'a'",
            "{\"a\" 1}",
            "\"a\u{1}\"",
            "[1] x",
            "\u{feff}{}",
        ] {
            assert!(!is_valid(bad), "{bad}");
        }
        let deep = "[".repeat(1000) + &"]".repeat(1000);
        assert!(!is_valid(&deep));
    }
}
