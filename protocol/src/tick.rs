//! The tick report as `tick` prints it ([`TickView`]) and the entries of its lists. Members are
//! declared in alphabetical order (the order the printed report has always had), except the
//! windows of [`RateLimitLearned::Read`], which the report's sorted keys put in place. Entries
//! with several shapes are untagged enums: each variant prints only its own members.

use crate::answers::{AttemptView, ErrorDetail, FollowedView, GivenBackView, ResolvedView};
use crate::Windows;
use serde::{Deserialize, Serialize};

/// The tick report, as `tick` prints it: one JSON line on stdout (with `next` added).
#[derive(Debug, Serialize)]
pub struct TickView<'a> {
    pub dry_run: bool,
    pub expired: &'a [String],
    pub followed: &'a [FollowedEntry<'a>],
    pub github: Option<&'a GithubCalls>,
    pub held: &'a [HeldPool<'a>],
    pub launched: &'a [LaunchedEntry<'a>],
    pub rate_limit: Option<&'a RateLimitLearned>,
    pub recovered: &'a [RecoveredEntry<'a>],
    pub skipped: &'a [Skipped],
    pub waiting: &'a [Waiting],
}

/// A launch of the pass; `pool` is the pool that admitted it, absent when none did.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum LaunchedEntry<'a> {
    /// Its outcome is written.
    Finished(AttemptView<'a>),
    /// The claim was given back.
    GivenBack(GivenBackView<'a>),
    /// Dispatched (or unknown), no run named: the lease is held while the run is followed.
    Held {
        attempt: u32,
        attempt_status: &'static str,
        detail: Option<&'a str>,
        id: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pool: Option<&'a str>,
        state: &'static str,
    },
    /// Held, with the URLs of the run GitHub named (each `null` when it did not say).
    HeldRun {
        attempt: u32,
        attempt_status: &'static str,
        detail: Option<&'a str>,
        html_url: Option<&'a str>,
        id: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pool: Option<&'a str>,
        run_url: Option<&'a str>,
        state: &'static str,
    },
    /// The outcome could not be written (`attempt` absent when not known).
    Failed {
        #[serde(skip_serializing_if = "Option::is_none")]
        attempt: Option<u32>,
        error: ErrorDetail<'a>,
        id: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pool: Option<&'a str>,
    },
    /// `--dry-run`: this target would be launched.
    Planned {
        attempt: u32,
        id: &'a str,
        launch: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pool: Option<&'a str>,
    },
}

/// An attempt whose lease had ended.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum RecoveredEntry<'a> {
    /// Recovered: the deferral as it is after.
    Done(ResolvedView<'a>),
    /// `--dry-run`: would be recovered.
    Planned {
        attempt_status: Option<&'static str>,
        id: &'a str,
    },
}

/// A dispatched run followed to its end.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum FollowedEntry<'a> {
    /// Its outcome is written.
    Written(FollowedView<'a>),
    /// Nothing written, and why.
    Skipped {
        attempt: u32,
        id: &'a str,
        run_id: u64,
        skipped: &'static str,
    },
    /// The outcome could not be written.
    Failed {
        attempt: u32,
        error: ErrorDetail<'a>,
        id: &'a str,
        run_id: u64,
    },
}

/// A pool that held due deferrals: why, until when (`until` in ISO 8601), how many it admitted
/// and held, and which.
#[derive(Debug, Serialize)]
pub struct HeldPool<'a> {
    pub admitted: usize,
    pub held: usize,
    pub ids: &'a [String],
    pub pool: &'a str,
    pub until: Option<String>,
    pub until_ms: Option<u64>,
    pub why: Option<&'a str>,
}

/// A due deferral the pass did not launch, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub id: String,
    pub why: String,
}

impl Skipped {
    pub fn new(id: &str, why: impl Into<String>) -> Skipped {
        Skipped {
            id: id.to_string(),
            why: why.into(),
        }
    }
}

/// An attempt still running, or not yet matched to a run: its run, or the runs its title
/// matched, when known.
#[derive(Debug, Clone, Serialize)]
pub struct Waiting {
    pub attempt: u32,
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub run_ids: Vec<u64>,
    pub why: String,
}

/// The report's `github` part: calls made, why they stopped, errors met while following.
#[derive(Debug, Clone, Serialize)]
pub struct GithubCalls {
    pub blob: u32,
    pub errors: Vec<FollowError>,
    pub not_modified: u32,
    pub requests: u32,
    pub stopped: Option<String>,
    pub unreachable: Option<String>,
}

/// A GitHub error met following one workflow's runs (its attempts stay as they are). Read back
/// as well as printed.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct FollowError {
    pub code: String,
    pub message: String,
    pub workflow: String,
}

/// `{code, message}`: a call that failed without failing the tick.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub code: String,
    pub message: String,
}

/// What the host's own `GET /rate_limit` taught pool `pool` (`tick --rate-limit-pool`).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum RateLimitLearned {
    /// The windows read (`learned` false, with the `error`, when the pool could not take them
    /// or the call failed), and what was clamped.
    Read {
        #[serde(skip_serializing_if = "Vec::is_empty")]
        clamped: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<Failure>,
        learned: bool,
        pool: String,
        /// `rest` and `graphql`, each when read.
        #[serde(flatten)]
        windows: Windows,
    },
    /// Nothing learned (`learned` false), and why.
    NotLearned {
        learned: bool,
        pool: String,
        why: &'static str,
    },
    /// The server enforces no primary limit (`unlimited` true).
    Unlimited {
        pool: String,
        unlimited: bool,
        why: &'static str,
    },
}
