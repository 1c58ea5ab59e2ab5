//! Why an attempt stopped before (or instead of) a decision: one variant per code, one message
//! template per variant, one exit class per variant. [`AttemptError::CODES`] lists every code,
//! for tests that walk them.

use deferral_core::exit::Exit;
use std::fmt;

/// A coded stop of an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptError {
    /// A duration input does not parse (`resume-buffer`, `resume-window`, `resume-jitter`).
    InvalidDuration { input: &'static str },
    /// A reserve input is neither a count nor a percentage.
    InvalidReserve { input: &'static str },
    /// `fresh-approval`, `approval` or `on-deferral` is not one of its words.
    InvalidChoice {
        input: &'static str,
        allowed: &'static str,
    },
    /// The plan is not a JSON object.
    InvalidPlan { detail: String },
    /// The scope or request has no canonical form.
    InvalidBinding { input: &'static str, detail: String },
    /// A file the shell was told to read was not given.
    MissingFile { input: &'static str },
    /// The command needs an input that is absent.
    MissingInput { input: &'static str },
    /// No token, and no saved rate state.
    MissingToken,
    /// `coordinator-url` is not http(s).
    InvalidCoordinatorUrl,
    /// `coordinator-url` without its token: `from` names where the token is read.
    MissingCoordinatorToken { from: &'static str },
    /// `coordinator-url` without `coordinator-launch`.
    MissingCoordinatorLaunch,
    /// `coordinator-pool` that is not 1 to 64 of `[A-Za-z0-9._-]`.
    InvalidCoordinatorPool,
    /// `coordinator-pool`, a `coordinator-priority` other than 0 or `coordinator-fairness-key`
    /// without `coordinator-url`: `input` names the first given.
    MissingCoordinatorUrl { input: &'static str },
    /// `coordinator-priority` that is not a whole number the host takes (an `i64`).
    InvalidCoordinatorPriority,
    /// `coordinator-fairness-key` that the host would refuse: not 1 to 200 characters, or with
    /// a control character.
    InvalidCoordinatorFairnessKey,
    /// `coordinator-commit` that is not a full commit SHA (40 hex digits), or given where
    /// `GITHUB_REPOSITORY` does not name the repository.
    InvalidCoordinatorCommit,
    /// The durable port did not retain the receipt.
    CoordinatorFailed { detail: String },
    /// The durable port did not admit the plan in the pool (unreachable, refused, an answer
    /// that cannot be used, or a refusal the decision does not agree with): no work runs.
    AdmissionFailed { pool: String, detail: String },
    /// The durable port answered something unusable.
    InvalidCoordinatorAnswer { detail: &'static str },
    /// The one request did not get an answer.
    Transport { detail: String },
    /// The attempt input itself has the wrong shape (a shell bug).
    InvalidAttempt { detail: String },
    /// `deferral` without a command.
    MissingCommand,
    /// A command this CLI does not have.
    UnknownCommand { name: String },
    /// A flag the command does not take.
    UnknownFlag { flag: String },
    /// A flag that takes a value was last, with none.
    MissingValue { flag: String },
    /// An `observe --header` that is not `name: value`.
    InvalidHeader,
    /// `observe --status` that is not an HTTP status.
    InvalidStatus,
    /// A file (or standard input) the shell could not read.
    UnreadableFile { path: String, detail: String },
    /// A file past its size limit.
    TooLarge {
        what: String,
        path: String,
        limit: u64,
    },
    /// The ledger file exists but cannot be read.
    UnreadableLedger { detail: String },
    /// The ledger's lock file cannot be created.
    LedgerLockFailed { detail: String },
    /// The ledger's lock stayed held past the wait.
    LedgerLockTimeout { ms: u64 },
    /// The gate's temporary folder is not private (another user's, or others may write it).
    UnsafeTempFolder { path: String, detail: String },
    /// A file the gate writes (the receipt, the cancellation handle) could not be written;
    /// `retained` names the deferral when the port had kept the receipt already.
    UnwritableFile {
        path: String,
        detail: String,
        retained: Option<String>,
    },
    /// A proxy variable names a scheme other than http or https.
    InvalidProxy { detail: String },
    /// The shell failed in a way it could not describe otherwise (a bug).
    Internal { detail: String },
}

impl AttemptError {
    /// Every code this type answers.
    pub const CODES: [&'static str; 38] = [
        "invalid-duration",
        "invalid-reserve",
        "invalid-fresh-approval",
        "invalid-approval",
        "invalid-on-deferral",
        "invalid-plan",
        "invalid-scope",
        "invalid-request",
        "missing-file",
        "missing-argument",
        "missing-token",
        "invalid-coordinator-url",
        "missing-coordinator-token",
        "missing-coordinator-launch",
        "invalid-coordinator-pool",
        "missing-coordinator-url",
        "invalid-coordinator-priority",
        "invalid-coordinator-fairness-key",
        "invalid-coordinator-commit",
        "coordinator-failed",
        "invalid-coordinator-answer",
        "transport-error",
        "invalid-attempt",
        "missing-command",
        "unknown-command",
        "unknown-flag",
        "missing-value",
        "invalid-header",
        "invalid-http-status",
        "unreadable-file",
        "too-large",
        "unreadable-ledger",
        "ledger-lock-failed",
        "ledger-lock-timeout",
        "unsafe-temp-folder",
        "unwritable-file",
        "invalid-proxy",
        "internal-error",
    ];

    /// Stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            AttemptError::InvalidDuration { .. } => "invalid-duration",
            AttemptError::InvalidReserve { .. } => "invalid-reserve",
            AttemptError::InvalidChoice { input, .. } => match *input {
                "fresh-approval" => "invalid-fresh-approval",
                "approval" => "invalid-approval",
                _ => "invalid-on-deferral",
            },
            AttemptError::InvalidPlan { .. } => "invalid-plan",
            AttemptError::InvalidBinding { input, .. } => {
                if *input == "scope" {
                    "invalid-scope"
                } else {
                    "invalid-request"
                }
            }
            AttemptError::MissingFile { .. } => "missing-file",
            AttemptError::MissingInput { .. } => "missing-argument",
            AttemptError::MissingToken => "missing-token",
            AttemptError::InvalidCoordinatorUrl => "invalid-coordinator-url",
            AttemptError::MissingCoordinatorToken { .. } => "missing-coordinator-token",
            AttemptError::MissingCoordinatorLaunch => "missing-coordinator-launch",
            AttemptError::InvalidCoordinatorPool => "invalid-coordinator-pool",
            AttemptError::MissingCoordinatorUrl { .. } => "missing-coordinator-url",
            AttemptError::InvalidCoordinatorPriority => "invalid-coordinator-priority",
            AttemptError::InvalidCoordinatorFairnessKey => "invalid-coordinator-fairness-key",
            AttemptError::InvalidCoordinatorCommit => "invalid-coordinator-commit",
            AttemptError::CoordinatorFailed { .. } | AttemptError::AdmissionFailed { .. } => {
                "coordinator-failed"
            }
            AttemptError::InvalidCoordinatorAnswer { .. } => "invalid-coordinator-answer",
            AttemptError::Transport { .. } => "transport-error",
            AttemptError::InvalidAttempt { .. } => "invalid-attempt",
            AttemptError::MissingCommand => "missing-command",
            AttemptError::UnknownCommand { .. } => "unknown-command",
            AttemptError::UnknownFlag { .. } => "unknown-flag",
            AttemptError::MissingValue { .. } => "missing-value",
            AttemptError::InvalidHeader => "invalid-header",
            AttemptError::InvalidStatus => "invalid-http-status",
            AttemptError::UnreadableFile { .. } => "unreadable-file",
            AttemptError::TooLarge { .. } => "too-large",
            AttemptError::UnreadableLedger { .. } => "unreadable-ledger",
            AttemptError::LedgerLockFailed { .. } => "ledger-lock-failed",
            AttemptError::LedgerLockTimeout { .. } => "ledger-lock-timeout",
            AttemptError::UnsafeTempFolder { .. } => "unsafe-temp-folder",
            AttemptError::UnwritableFile { .. } => "unwritable-file",
            AttemptError::InvalidProxy { .. } => "invalid-proxy",
            AttemptError::Internal { .. } => "internal-error",
        }
    }

    /// The exit class the attempt ends with.
    pub fn exit(&self) -> Exit {
        match self {
            AttemptError::MissingToken => Exit::Auth,
            AttemptError::CoordinatorFailed { .. }
            | AttemptError::AdmissionFailed { .. }
            | AttemptError::InvalidCoordinatorAnswer { .. }
            | AttemptError::Transport { .. }
            | AttemptError::LedgerLockTimeout { .. }
            | AttemptError::InvalidProxy { .. }
            | AttemptError::Internal { .. } => Exit::Provider,
            _ => Exit::Invalid,
        }
    }
}

impl fmt::Display for AttemptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttemptError::InvalidDuration { input } => {
                write!(f, "{input} must be a duration like 60, 90s, 15m or 6h")
            }
            AttemptError::InvalidReserve { input } => write!(
                f,
                "{input} must be a count like 500 or a percentage of the limit like 10%"
            ),
            AttemptError::InvalidChoice { input, allowed } => {
                write!(f, "{input} must be {allowed}")
            }
            AttemptError::InvalidPlan { detail } => write!(f, "the plan is not valid: {detail}"),
            AttemptError::InvalidBinding { input, detail } => {
                write!(f, "the {input} is not valid: {detail}")
            }
            AttemptError::MissingFile { input } => {
                write!(f, "the {input} file was not read (a shell bug)")
            }
            AttemptError::MissingInput { input } => write!(f, "give the {input}"),
            AttemptError::MissingToken => f.write_str(
                "no token: the CLI reads GITHUB_TOKEN or GH_TOKEN (or decides offline with --rate-state FILE); the Action's token input is empty (its default is github.token)",
            ),
            AttemptError::InvalidCoordinatorUrl => f.write_str(
                "coordinator-url must be an http:// or https:// URL of deferral-host serve",
            ),
            AttemptError::MissingCoordinatorToken { from } => write!(
                f,
                "coordinator-url needs {from} (the serve bearer token, from a secret)"
            ),
            AttemptError::MissingCoordinatorLaunch => f.write_str(
                "coordinator-url needs coordinator-launch, e.g. workflow-dispatch:OWNER/REPO/WORKFLOW@REF",
            ),
            AttemptError::InvalidCoordinatorPool => f.write_str(
                "coordinator-pool must be 1 to 64 of A-Z a-z 0-9 . _ - (the durable host's pool, e.g. app-42)",
            ),
            AttemptError::MissingCoordinatorUrl { input } => write!(
                f,
                "{input} needs coordinator-url (the deferral-host serve that keeps the pool)"
            ),
            AttemptError::InvalidCoordinatorPriority => write!(
                f,
                "coordinator-priority must be a whole number from {} to {} (default 0; within its pool a higher priority is admitted first)",
                i64::MIN,
                i64::MAX
            ),
            AttemptError::InvalidCoordinatorFairnessKey => write!(
                f,
                "coordinator-fairness-key must be 1 to {} characters without control characters (the durable host's fairness key, e.g. labeler)",
                deferral_protocol::MAX_KEY_CHARS
            ),
            AttemptError::InvalidCoordinatorCommit => f.write_str(
                "coordinator-commit must be a full commit SHA (40 hex digits, such as github.sha or a pull request's head.sha) of the repository GITHUB_REPOSITORY names",
            ),
            AttemptError::AdmissionFailed { pool, detail } => write!(
                f,
                "the durable port did not admit the plan in pool {pool} ({detail}); with coordinator-pool set the gate never proceeds without an admission, so no work ran"
            ),
            AttemptError::CoordinatorFailed { detail } => write!(
                f,
                "the durable port did not retain the receipt ({detail}); the handoff receipt is kept at receipt-path"
            ),
            AttemptError::InvalidCoordinatorAnswer { detail } => write!(
                f,
                "the durable port answered {detail}; the handoff receipt is kept at receipt-path"
            ),
            AttemptError::Transport { detail } => {
                write!(f, "cannot reach the GitHub API: {detail}")
            }
            AttemptError::InvalidAttempt { detail } => {
                write!(f, "the attempt input is not valid: {detail}")
            }
            AttemptError::MissingCommand => f.write_str("give a command; run deferral --help"),
            AttemptError::UnknownCommand { name } => write!(
                f,
                "unknown command {}; run deferral --help",
                super::view::quote(name)
            ),
            AttemptError::UnknownFlag { flag } => {
                write!(f, "unknown flag --{flag} (see --help)")
            }
            AttemptError::MissingValue { flag } => write!(f, "--{flag} needs a value"),
            AttemptError::InvalidHeader => {
                f.write_str("a --header must look like \"name: value\"")
            }
            AttemptError::InvalidStatus => f.write_str(
                "--status must be an HTTP status from 100 to 599",
            ),
            AttemptError::UnreadableFile { path, detail } => {
                write!(f, "cannot read {path}: {detail}")
            }
            AttemptError::TooLarge { what, path, limit } => {
                write!(f, "the {what} in {path} is larger than {limit} bytes")
            }
            AttemptError::UnreadableLedger { detail } => {
                write!(f, "cannot read the ledger file: {detail}")
            }
            AttemptError::LedgerLockFailed { detail } => {
                write!(f, "cannot create the ledger lock: {detail}")
            }
            AttemptError::UnsafeTempFolder { path, detail } => write!(
                f,
                "cannot keep the receipt and cancellation handle in {path}: {detail}; the gate keeps them only in a folder of this user's that no one else may write: set TMPDIR to a folder of your own (a runner's RUNNER_TEMP is used when set)"
            ),
            AttemptError::UnwritableFile {
                path,
                detail,
                retained: Some(id),
            } => write!(
                f,
                "the port retained the receipt as deferral {id}, but its cancellation handle could not be written to {path}: {detail}; the handle is lost: the port's operator can cancel or retry the deferral with deferral-host"
            ),
            AttemptError::UnwritableFile { path, detail, .. } => {
                write!(f, "cannot write {path}: {detail}")
            }
            AttemptError::LedgerLockTimeout { ms } => {
                write!(f, "the ledger lock stayed held for {ms} ms")
            }
            AttemptError::InvalidProxy { detail } => {
                write!(f, "cannot use the proxy: {detail}")
            }
            AttemptError::Internal { detail } => {
                write!(f, "deferral failed unexpectedly: {detail}")
            }
        }
    }
}

impl std::error::Error for AttemptError {}
