//! Patch paths to repository paths: `-p` prefix stripping and the refusal of any path
//! that could reach outside the repository (absolute, `..`, `.git`).

use super::error::PathError;

/// Strips `level` leading components (as `patch -pN`: runs of `/` count as one
/// separator) and checks the rest. An absolute raw path is refused whatever the level,
/// so `/etc/passwd` never becomes `etc/passwd`.
pub fn repo_path(raw: &str, level: usize) -> Result<String, PathError> {
    if raw.starts_with('/') || raw.starts_with('~') || looks_like_drive(raw) {
        return Err(PathError::Absolute(raw.to_owned()));
    }
    let parts: Vec<&str> = raw.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() <= level {
        return Err(PathError::Empty(raw.to_owned()));
    }
    check_components(raw, &parts[level..])
}

/// Checks an already-relative repository path (edit blocks name files directly).
pub fn check_relative(path: &str) -> Result<String, PathError> {
    if path.starts_with('/') || path.starts_with('~') || looks_like_drive(path) {
        return Err(PathError::Absolute(path.to_owned()));
    }
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    check_components(path, &parts)
}

fn check_components(raw: &str, parts: &[&str]) -> Result<String, PathError> {
    let mut kept: Vec<&str> = Vec::with_capacity(parts.len());
    for part in parts {
        match *part {
            "." => {}
            ".." => return Err(PathError::ParentDir(raw.to_owned())),
            ".git" => return Err(PathError::GitDir(raw.to_owned())),
            p if p.contains('\\') || p.contains('\0') => {
                return Err(PathError::Invalid(raw.to_owned()))
            }
            p => kept.push(p),
        }
    }
    if kept.is_empty() {
        return Err(PathError::Empty(raw.to_owned()));
    }
    Ok(kept.join("/"))
}

fn looks_like_drive(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_prefix_levels() {
        assert_eq!(repo_path("a/src/x.py", 1).unwrap(), "src/x.py");
        assert_eq!(repo_path("src/x.py", 0).unwrap(), "src/x.py");
        assert_eq!(repo_path("a//b/./x.py", 1).unwrap(), "b/x.py");
        assert_eq!(
            repo_path("a", 1).unwrap_err(),
            PathError::Empty("a".to_owned())
        );
    }

    #[test]
    fn refuses_escapes() {
        assert!(matches!(
            repo_path("/etc/passwd", 1),
            Err(PathError::Absolute(_))
        ));
        assert!(matches!(
            repo_path("a/../../etc/passwd", 1),
            Err(PathError::ParentDir(_))
        ));
        assert!(matches!(
            repo_path("b/.git/hooks/pre-commit", 1),
            Err(PathError::GitDir(_))
        ));
        assert!(matches!(
            check_relative("C:/x"),
            Err(PathError::Absolute(_))
        ));
        assert!(matches!(
            check_relative("x\\..\\y"),
            Err(PathError::Invalid(_))
        ));
    }
}
