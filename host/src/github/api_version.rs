//! `--github-api-version`: which REST API version the host speaks (`X-GitHub-Api-Version`).
//!
//! * `2022-11-28` (the default): the dispatch is sent with `return_run_details: true` and an
//!   older server's 204 is accepted; `GET /rate_limit` still carries the deprecated `rate`.
//! * `2026-03-10`: the dispatch takes no `return_run_details` and always answers 200 with the
//!   run (`workflow_run_id`, `run_url`, `html_url`); `GET /rate_limit` has no top-level `rate`.
//!
//! The host reads rate limits from `resources` under both, so only the dispatch differs.

use crate::error::{HostError, HostErrorKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApiVersion {
    #[default]
    V2022_11_28,
    V2026_03_10,
}

/// The versions `--github-api-version` accepts, as written.
pub const SUPPORTED: [&str; 2] = ["2022-11-28", "2026-03-10"];

impl ApiVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            ApiVersion::V2022_11_28 => SUPPORTED[0],
            ApiVersion::V2026_03_10 => SUPPORTED[1],
        }
    }

    /// The version named `text`, or `invalid-github` naming the supported ones.
    pub fn parse(text: &str) -> Result<ApiVersion, HostError> {
        match text.trim() {
            "2022-11-28" => Ok(ApiVersion::V2022_11_28),
            "2026-03-10" => Ok(ApiVersion::V2026_03_10),
            other => Err(HostError::new(
                HostErrorKind::InvalidGithub,
                format!(
                    "--github-api-version {other:?} is not supported; use {} or {}",
                    SUPPORTED[0], SUPPORTED[1]
                ),
            )),
        }
    }

    /// Whether the dispatch is sent with `return_run_details: true` (the new version removed
    /// the field: its dispatch always answers with the run).
    pub fn asks_for_run_details(self) -> bool {
        self == ApiVersion::V2022_11_28
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_versions_and_a_clear_error_for_any_other() {
        for text in SUPPORTED {
            assert_eq!(ApiVersion::parse(text).unwrap().as_str(), text);
        }
        assert_eq!(ApiVersion::default().as_str(), "2022-11-28");
        for bad in ["2024-01-01", "", "latest", "2026-3-10"] {
            let err = ApiVersion::parse(bad).unwrap_err();
            assert_eq!(err.kind(), Some(HostErrorKind::InvalidGithub));
            assert!(err.message.contains("2026-03-10"), "{}", err.message);
        }
    }
}
