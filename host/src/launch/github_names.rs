//! GitHub's character rules for the parts of a `workflow-dispatch:` target, checked when the
//! target is recorded, so nothing odd is ever put into a request sent with the token.
//!
//! * owner: a user or organization login: letters, digits, `-` (and `_`, which managed
//!   enterprise users have), at most 39 characters, not starting with `-`;
//! * repository: letters, digits, `-`, `_`, `.`, at most 100 characters, not `.` or `..`;
//! * workflow: a workflow file name (`sync.yml`, `.yaml`) or a workflow id (digits);
//! * ref: a branch, tag or `refs/...` name as `git check-ref-format` accepts it (no `..`, no
//!   `@{`, no control characters, spaces or `~^:?*[\`, no empty or `.`-leading component, not
//!   ending in `/`, `.` or `.lock`), or a commit SHA; at most 255 bytes.

fn login_ok(text: &str) -> bool {
    (1..=39).contains(&text.len())
        && !text.starts_with('-')
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn repo_ok(text: &str) -> bool {
    (1..=100).contains(&text.len())
        && text != "."
        && text != ".."
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

fn workflow_ok(text: &str) -> bool {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let file = (text.ends_with(".yml") || text.ends_with(".yaml"))
        && text.len() <= 255
        && !text.starts_with('.')
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    digits || file
}

fn ref_ok(text: &str) -> bool {
    let bad_byte = |b: u8| b.is_ascii_control() || b" ~^:?*[\\".contains(&b);
    (1..=255).contains(&text.len())
        && !text.bytes().any(bad_byte)
        && !text.contains("..")
        && !text.contains("@{")
        && text != "@"
        && !text.starts_with('-')
        && !text.ends_with('.')
        && text
            .split('/')
            .all(|c| !c.is_empty() && !c.starts_with('.') && !c.ends_with(".lock"))
}

/// Which part of a dispatch target breaks GitHub's rules, if any.
pub fn first_bad_part(
    owner: &str,
    repo: &str,
    workflow: &str,
    git_ref: &str,
) -> Option<&'static str> {
    if !login_ok(owner) {
        Some("owner")
    } else if !repo_ok(repo) {
        Some("repository")
    } else if !workflow_ok(workflow) {
        Some("workflow (a .yml/.yaml file name or a numeric id)")
    } else if !ref_ok(git_ref) {
        Some("ref")
    } else {
        None
    }
}

/// Checks `OWNER/REPO` (as `watch` takes it) before any request is made: `invalid-repo`
/// (exit 2) unless it is two parts that GitHub allows.
pub fn check_repo(text: &str) -> Result<(), crate::error::HostError> {
    let why = match text.split('/').collect::<Vec<_>>()[..] {
        [owner, _] if !login_ok(owner) => {
            Some(format!("the owner {owner:?} is not a GitHub login"))
        }
        [_, repo] if !repo_ok(repo) => Some(format!(
            "the repository name {repo:?} is not one GitHub allows"
        )),
        [_, _] => None,
        _ => Some("is not OWNER/REPO".to_string()),
    };
    match why {
        None => Ok(()),
        Some(why) => Err(crate::error::HostError::new(
            crate::error::HostErrorKind::InvalidRepo,
            format!("{text:?}: {why}: give the repository as OWNER/REPO, e.g. octo/app"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_what_github_accepts() {
        for (o, r, w, g) in [
            ("octo", "app", "sync.yml", "main"),
            ("octo-org", "my.repo_2", "nightly.yaml", "release/v1.2"),
            ("user_short", "r", "12345", "refs/heads/feature-x"),
            (
                "o",
                "r",
                "w.yml",
                "0123456789abcdef0123456789abcdef01234567",
            ),
            ("o", "r", "w.yml", "v1.0.0"),
        ] {
            assert_eq!(first_bad_part(o, r, w, g), None, "{o}/{r}/{w}@{g}");
        }
    }

    #[test]
    fn refuses_traversal_control_characters_and_odd_refs() {
        for (o, r, w, g, part) in [
            ("-octo", "r", "w.yml", "main", "owner"),
            ("o.o", "r", "w.yml", "main", "owner"),
            (&*"a".repeat(40), "r", "w.yml", "main", "owner"),
            ("o", "..", "w.yml", "main", "repository"),
            ("o", ".", "w.yml", "main", "repository"),
            ("o", "r", "..", "main", "workflow"),
            ("o", "r", "w.sh", "main", "workflow"),
            ("o", "r", "w.yml", "../../x", "ref"),
            ("o", "r", "w.yml", "a/../b", "ref"),
            ("o", "r", "w.yml", "main\n", "ref"),
            ("o", "r", "w.yml", "ma\u{7f}in", "ref"),
            ("o", "r", "w.yml", "a b", "ref"),
            ("o", "r", "w.yml", "a@{1}", "ref"),
            ("o", "r", "w.yml", "/main", "ref"),
            ("o", "r", "w.yml", "main/", "ref"),
            ("o", "r", "w.yml", "a//b", "ref"),
            ("o", "r", "w.yml", "x.lock", "ref"),
            ("o", "r", "w.yml", "-x", "ref"),
            ("o", "r", "w.yml", "a?b", "ref"),
        ] {
            let got = first_bad_part(o, r, w, g).unwrap_or("none");
            assert!(got.starts_with(part), "{o}/{r}/{w}@{g}: {got}");
        }
    }
}
