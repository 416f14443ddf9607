//! Checks `cascade serve` makes before it listens: a server reachable from other hosts
//! needs a token, and a token file holds exactly one token.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// A configuration `cascade serve` refuses to start with.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("--addr {0} is reachable from other hosts; give --token-file, or --insecure to serve it open")]
    OpenToOthers(SocketAddr),
    #[error("cannot read the token file {path}: {source}")]
    TokenUnreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the token file {path} {problem}")]
    BadToken {
        path: PathBuf,
        problem: TokenProblem,
    },
}

/// What is wrong with a token file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenProblem {
    #[error("is empty")]
    Empty,
    #[error("holds more than one line; it must hold exactly one token")]
    SeveralLines,
    #[error("holds a token with whitespace inside; no client could send it")]
    Whitespace,
}

/// Refuses a non-loopback `addr` without a token unless `insecure`.
pub fn check_exposure(
    addr: SocketAddr,
    has_token: bool,
    insecure: bool,
) -> Result<(), StartupError> {
    if addr.ip().is_loopback() || has_token || insecure {
        Ok(())
    } else {
        Err(StartupError::OpenToOthers(addr))
    }
}

/// The one token of the file at `path` (surrounding whitespace and one final newline
/// aside).
pub fn read_token(path: &Path) -> Result<String, StartupError> {
    let text = std::fs::read_to_string(path).map_err(|source| StartupError::TokenUnreadable {
        path: path.to_owned(),
        source,
    })?;
    parse_token(&text).map_err(|problem| StartupError::BadToken {
        path: path.to_owned(),
        problem,
    })
}

/// The one token of a token file's `text`.
pub fn parse_token(text: &str) -> Result<String, TokenProblem> {
    let token = text.trim();
    if token.is_empty() {
        return Err(TokenProblem::Empty);
    }
    if token.lines().count() > 1 {
        return Err(TokenProblem::SeveralLines);
    }
    if token.chars().any(char::is_whitespace) {
        return Err(TokenProblem::Whitespace);
    }
    Ok(token.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_holds_exactly_one_token() {
        assert_eq!(parse_token("s3cret\n").unwrap(), "s3cret");
        assert_eq!(parse_token("  \n"), Err(TokenProblem::Empty));
        assert_eq!(parse_token("one\ntwo\n"), Err(TokenProblem::SeveralLines));
        assert_eq!(parse_token("one two"), Err(TokenProblem::Whitespace));
    }

    #[test]
    fn other_hosts_need_a_token_or_insecure() {
        let open: SocketAddr = "0.0.0.0:8000".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:8000".parse().unwrap();
        let local6: SocketAddr = "[::1]:8000".parse().unwrap();
        assert!(matches!(
            check_exposure(open, false, false),
            Err(StartupError::OpenToOthers(_))
        ));
        assert!(check_exposure(open, true, false).is_ok());
        assert!(check_exposure(open, false, true).is_ok());
        assert!(check_exposure(local, false, false).is_ok());
        assert!(check_exposure(local6, false, false).is_ok());
    }
}
