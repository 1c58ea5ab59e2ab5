//! A followed run's conclusion, as GitHub words it, turned into a cause from a closed list.
//!
//! The cause is a metric label (`deferral_host_deferrals{cause}`), a column `status` shows and
//! a key operators filter on, so GitHub (or whatever answers in its place) must not choose it:
//! a conclusion GitHub documents is `run-CONCLUSION`; any other is `run-other`, with the
//! conclusion kept, bounded and with its control characters escaped, in the detail.

/// The conclusions GitHub documents for a completed workflow run.
pub const KNOWN: [&str; 9] = [
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "skipped",
    "stale",
    "startup_failure",
    "success",
    "timed_out",
];

/// The cause of an unknown conclusion.
pub const OTHER: &str = "run-other";

/// How much of an unknown conclusion is kept (in characters).
pub const MAX_SHOWN: usize = 64;

/// The cause of a completed run that has no conclusion (`conclusion: null`).
pub const NONE: &str = "run-unknown";

/// Every cause a run's conclusion can become: `run-` and each of [`KNOWN`], [`OTHER`], [`NONE`].
pub fn causes() -> impl Iterator<Item = String> {
    KNOWN
        .iter()
        .map(|c| format!("run-{c}"))
        .chain([OTHER.to_string(), NONE.to_string()])
}

/// `conclusion` as it may be shown and stored: at most [`MAX_SHOWN`] characters, control and
/// bidi characters written as `\u{..}`, `...` when cut.
pub fn shown(conclusion: &str) -> String {
    let mut out: String = conclusion
        .chars()
        .take(MAX_SHOWN)
        .map(|c| {
            if c.is_control() || is_bidi(c) {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect();
    if conclusion.chars().count() > MAX_SHOWN {
        out.push_str("...");
    }
    out
}

fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The cause and detail of a run that ended with `conclusion` and no receipt (`page`: the
/// run's page, which is the whole detail for a known conclusion).
pub fn blocked(conclusion: Option<&str>, page: &str) -> (String, String) {
    let Some(conclusion) = conclusion else {
        return (NONE.to_string(), page.to_string());
    };
    if KNOWN.contains(&conclusion) {
        (format!("run-{conclusion}"), page.to_string())
    } else {
        (
            OTHER.to_string(),
            format!("{page} (conclusion \"{}\")", shown(conclusion)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_conclusion_is_its_cause_and_any_other_is_run_other() {
        assert_eq!(
            blocked(Some("failure"), "P"),
            ("run-failure".into(), "P".into())
        );
        assert_eq!(blocked(None, "P").0, "run-unknown");
        let long = "x".repeat(20_000);
        let (cause, detail) = blocked(Some(&long), "P");
        assert_eq!(cause, "run-other");
        assert!(detail.len() < 100, "{detail}");
        let (_, detail) = blocked(Some("a\n::warning::b\u{202e}"), "P");
        assert_eq!(detail, "P (conclusion \"a\\u{a}::warning::b\\u{202e}\")");
        assert!(causes().any(|c| c == "run-timed_out"));
    }
}
