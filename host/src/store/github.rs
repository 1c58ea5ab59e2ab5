//! What the GitHub loop keeps besides the deferrals themselves (migration "github loop"):
//!
//! * `receipt_keys`: the receipt digest (lowercase hex SHA-256 of the JCS form, the core's
//!   `digest`) of every receipt recorded or issued, unique, so one receipt never becomes two
//!   deferrals and a deferral can be found by any of its receipts;
//! * `artifacts`: the ids of ingested `deferred-receipt` artifacts, unique;
//! * `runs`: the workflow run of each dispatched attempt (id, API URL `run_url` and page
//!   `html_url`, as GitHub names them; `run_url` came in migration "run urls", so attempts
//!   dispatched before it have only `html_url`);
//! * `artifact_names`: the artifact name a deferral's runs upload under, when not the default;
//! * `links`: a deferral's successor (the next part of the same work) and the chain length;
//! * `http_cache`: the ETag and the digest of the last answer of a list call.
//! * `deferral_commits`: the commit a deferral's work belongs to, when its origin named one
//!   (migration "deferral commits"): where its commit status is kept (`ops::commit_status`),
//!   and since migration "check runs" whether it is kept as a check run instead ([`Face`]);
//! * `check_runs`: each check run the host made for a deferral (`ops::check_run`), by its id
//!   and repository, with the state it shows and whether it is `completed`.
//!
//! The unique keys are written in the same transaction as the deferral (`insert`), so two
//! entries racing with one receipt create one deferral: the loser gets `Duplicate`.

use super::{Deferral, StoreError};
use deferral_core::digest::digest;

/// The receipt kind of a receipt as it was submitted (`lifecycle::change::KIND_SUBMITTED` is this):
/// the one whose digest must be new when a deferral is inserted.
pub const SUBMITTED_KIND: &str = "submitted";

/// An ingested artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactRef {
    pub artifact_id: u64,
    /// `owner/name`.
    pub repo: String,
    /// The run that uploaded it.
    pub run_id: Option<u64>,
}

/// What makes a new deferral unique and where it comes from, written with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordKeys {
    /// The deferral this one continues (progress); its chain length is the predecessor's + 1.
    pub predecessor: Option<String>,
    pub artifact: Option<ArtifactRef>,
    /// The artifact name a followed run uploads its new receipt under (`record --artifact`);
    /// `deferred-receipt` when `None`.
    pub artifact_name: Option<String>,
    /// The blocked deferral this one retries (`deferral-host retry`); see `store::retry`.
    pub retry_of: Option<String>,
    /// The pool, planned cost and seen rate state it is recorded with (see `store::pools`).
    pub pool: Option<super::pools::PoolTag>,
}

/// The commit a deferral's work belongs to, where the host keeps its status (`deferral_commits`,
/// migration "deferral commits"): one status `context` per deferral on `sha` of `repo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitRef {
    pub deferral_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The commit's full SHA.
    pub sha: String,
    /// The status's context (`deferral/...`), also the check run's name.
    pub context: String,
    /// A commit status, or a check run (a GitHub App's).
    pub face: Face,
}

/// How a deferral shows on its commit: a commit status, or a check run (with buttons).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Face {
    #[default]
    Status,
    CheckRun,
}

impl Face {
    /// As stored in `deferral_commits.face`.
    pub fn as_str(self) -> &'static str {
        match self {
            Face::Status => "status",
            Face::CheckRun => "check-run",
        }
    }

    /// The stored text read back; anything unknown is a status (what rows before it were).
    pub fn parse(text: &str) -> Face {
        if text == "check-run" {
            Face::CheckRun
        } else {
            Face::Status
        }
    }
}

/// One check run the host made for a deferral (`check_runs`, migration "check runs").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRunRef {
    /// GitHub's id of the check run.
    pub check_run_id: u64,
    /// `owner/name`.
    pub repo: String,
    pub deferral_id: String,
    /// The deferral's state it shows (`deferred`, `resumable`, ...).
    pub state: String,
    /// Whether GitHub was told `status: completed` (then it is never changed again: the next
    /// state is a new check run, see `ops::check_run`).
    pub completed: bool,
    pub written_ms: u64,
}

/// The workflow run of one dispatched attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRecord {
    pub deferral_id: String,
    pub attempt: u32,
    /// `None` until the run is found (a server that answered the dispatch 204).
    pub run_id: Option<u64>,
    /// The run's API URL (`run_url` of GitHub's dispatch answer, `url` of a run).
    pub run_url: Option<String>,
    /// The run's page, for people.
    pub html_url: Option<String>,
    /// `owner/repo/workflow` the attempt was dispatched to.
    pub workflow: String,
    pub dispatched_ms: u64,
}

/// The `owner/repo` of a run record's `workflow` (`owner/repo/FILE`).
pub fn workflow_repo(workflow: &str) -> &str {
    workflow.rsplit_once('/').map_or("", |(repo, _)| repo)
}

/// A deferral's place in its chain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Link {
    pub predecessor: Option<String>,
    pub successor: Option<String>,
    /// 0 for a deferral recorded on its own; the predecessor's + 1 for a successor.
    pub chain: u32,
}

/// The digest a receipt text is known by: the core's JCS digest, `None` when it is not JSON.
pub fn receipt_digest(text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    digest(&value).ok()
}

/// The GitHub loop's part of a store. Every backend implements it; the conformance suite
/// (`conformance_github`) checks it on each.
pub trait LoopStore {
    /// The deferral that recorded or was issued a receipt with this digest.
    fn find_by_receipt_digest(&self, digest: &str) -> Result<Option<String>, StoreError>;

    /// The deferral an artifact was ingested into (or consumed by).
    fn find_by_artifact(&self, artifact_id: u64) -> Result<Option<String>, StoreError>;

    /// Marks an artifact consumed by `deferral_id` (a followed run's new receipt); `false` when
    /// it was already known.
    fn add_artifact(&self, deferral_id: &str, artifact: &ArtifactRef) -> Result<bool, StoreError>;

    /// Records (or replaces) the run of one attempt.
    fn put_run(&self, run: &RunRecord) -> Result<(), StoreError>;

    /// The run of one attempt.
    fn run_of(&self, deferral_id: &str, attempt: u32) -> Result<Option<RunRecord>, StoreError>;

    /// Whether this host dispatched run `run_id` of repository `repo` (`owner/repo`, any case):
    /// its artifacts are followed, not watched. A run id alone is not enough: another
    /// repository's run with that id is not this host's.
    fn is_own_run(&self, repo: &str, run_id: u64) -> Result<bool, StoreError>;

    /// `resumable` deferrals whose current attempt was dispatched, oldest update first, with
    /// the attempt's run when known.
    fn dispatched(&self, limit: usize) -> Result<Vec<(Deferral, Option<RunRecord>)>, StoreError>;

    fn link(&self, deferral_id: &str) -> Result<Link, StoreError>;

    /// The artifact name set with `record --artifact`, if any.
    fn artifact_name(&self, deferral_id: &str) -> Result<Option<String>, StoreError>;

    /// The stored `(etag, body)` of a list call.
    fn cached(&self, key: &str) -> Result<Option<(String, String)>, StoreError>;

    fn put_cached(&self, key: &str, etag: &str, body: &str, at_ms: u64) -> Result<(), StoreError>;

    /// Records a webhook delivery by `key`, its identity from the signed body
    /// ([`crate::webhook::payload::CompletedRun::key`]), the first time it is seen: `true` then,
    /// `false` when it was already recorded (a redelivery, or a replay under another
    /// `X-GitHub-Delivery`), whoever recorded it.
    fn note_delivery(&self, key: &str, event: &str, at_ms: u64) -> Result<bool, StoreError>;

    /// Whether a key was noted (without noting it): the environment gate's once-notes.
    fn delivery_noted(&self, key: &str) -> Result<bool, StoreError>;

    /// Records the commit of a deferral once; `false` when it had one already.
    fn put_commit(&self, commit: &CommitRef) -> Result<bool, StoreError>;

    /// The commit of a deferral, when its origin named one.
    fn commit_of(&self, deferral_id: &str) -> Result<Option<CommitRef>, StoreError>;

    /// Records a check run made for a deferral, or what an update of it wrote (by its id).
    fn put_check_run(&self, run: &CheckRunRef) -> Result<(), StoreError>;

    /// The check run written last for a deferral.
    fn latest_check_run(&self, deferral_id: &str) -> Result<Option<CheckRunRef>, StoreError>;

    /// A check run this host made, by its id and repository (`owner/name`, any case): a check
    /// run id of another repository is never this host's.
    fn check_run(&self, repo: &str, check_run_id: u64) -> Result<Option<CheckRunRef>, StoreError>;
}
