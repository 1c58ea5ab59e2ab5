//! Label values come from closed lists, so no one outside chooses how many series there are or
//! how long a label is. Routes are fixed words (see `serve`); a `cause` is one of the host's
//! codes as stored, except that a run's cause is one of `crate::github::conclusion::causes`.

use crate::github::conclusion;

/// The longest cause kept as its own label.
const MAX_CAUSE: usize = 64;

/// The `cause` label of a stored cause: itself when it is a run's cause from the closed list or
/// a code (`a-z`, `0-9`, `-`, at most 64); `run-other` for any other `run-` cause (as an older
/// host stored a conclusion GitHub chose); `other` for anything else (a hand edit).
pub fn cause(stored: &str) -> String {
    if stored.starts_with("run-") {
        return if conclusion::causes().any(|c| c == stored) {
            stored.to_string()
        } else {
            conclusion::OTHER.to_string()
        };
    }
    let code = (1..=MAX_CAUSE).contains(&stored.len())
        && stored
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if code {
        stored.to_string()
    } else {
        "other".to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn causes_are_bounded() {
        assert_eq!(super::cause("recorded"), "recorded");
        assert_eq!(super::cause("run-failure"), "run-failure");
        assert_eq!(super::cause("run-made_up"), "run-other");
        assert_eq!(super::cause(&"z".repeat(65)), "other");
        assert_eq!(super::cause("Bad Cause"), "other");
    }
}
