//! The host's error codes: each listed once, with its stable code string and its exit class.
//!
//! Exit codes: 0 ok, 1 store or internal failure, 2 invalid input (receipt, launch target,
//! unknown id, usage), 3 unusable credentials (a GitHub App key that cannot sign), 4 provider
//! or transport failure, 5 refused (wrong handle, illegal transition, stale attempt, conflict).

pub const EXIT_OK: u8 = 0;
pub const EXIT_FAILURE: u8 = 1;
pub const EXIT_INVALID: u8 = 2;
/// Credentials that cannot authenticate (a GitHub App key that parses but cannot sign).
pub const EXIT_AUTH: u8 = 3;
/// A provider (GitHub) or transport failure: `watch` when GitHub does not answer usably.
pub const EXIT_PROVIDER: u8 = 4;
pub const EXIT_REFUSED: u8 = 5;

/// Every code the host itself answers, listed once with its exit class. Receipt errors keep
/// the core's codes (`deferral_core::receipt`), which are listed there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostErrorKind {
    // exit 1
    Backend,
    ListenFailed,
    RuntimeFailed,
    SignalFailed,
    UnwritableMetricsFile,
    UnwritableOutput,
    Duplicate,
    StoreCorrupt,
    ForeignStore,
    UnsafeStore,
    StoreReplaced,
    SchemaTooNew,
    StoreError,
    // exit 2
    AlreadyRetained,
    Expired,
    GateNotDeferred,
    GithubAppKeyExposed,
    GithubAppKeyNotAFile,
    GithubAppKeyTooLarge,
    InvalidConfig,
    InvalidCost,
    InvalidDigest,
    InvalidGithub,
    InvalidLaunch,
    InvalidPool,
    InvalidFairnessKey,
    InvalidPriority,
    InvalidRateState,
    InvalidRepo,
    InvalidRequest,
    LaunchConflict,
    LaunchNotExecutable,
    LaunchNotFound,
    MalformedJson,
    MissingReceipt,
    NoGithubCredentials,
    NoStore,
    UnsupportedStore,
    NoToken,
    NotFound,
    RecordAnswer,
    RetryExpired,
    UnreadableInput,
    BindingMismatch,
    StoreNotFound,
    MissingArgument,
    UnknownFlag,
    UnknownCommand,
    InvalidValue,
    ConflictingArguments,
    Usage,
    // exit 3
    GithubAppKeyUnusable,
    // exit 4
    GithubError,
    GithubUnreachable,
    GithubQuota,
    GithubAnswer,
    // exit 5
    AlreadyRecorded,
    AlreadyRetried,
    Conflict,
    IllegalTransition,
    LaunchNotAllowed,
    LaunchStillRunning,
    LeaseExpired,
    NotBlocked,
    NotDispatchUnknown,
    NotDispatching,
    NotResumable,
    PoolBusy,
    StaleAttempt,
    WrongHandle,
}

impl HostErrorKind {
    pub const ALL: &'static [HostErrorKind] = &[
        HostErrorKind::Backend,
        HostErrorKind::ListenFailed,
        HostErrorKind::RuntimeFailed,
        HostErrorKind::SignalFailed,
        HostErrorKind::UnwritableMetricsFile,
        HostErrorKind::UnwritableOutput,
        HostErrorKind::Duplicate,
        HostErrorKind::StoreCorrupt,
        HostErrorKind::ForeignStore,
        HostErrorKind::UnsafeStore,
        HostErrorKind::StoreReplaced,
        HostErrorKind::SchemaTooNew,
        HostErrorKind::StoreError,
        HostErrorKind::AlreadyRetained,
        HostErrorKind::Expired,
        HostErrorKind::GateNotDeferred,
        HostErrorKind::GithubAppKeyExposed,
        HostErrorKind::GithubAppKeyNotAFile,
        HostErrorKind::GithubAppKeyTooLarge,
        HostErrorKind::InvalidConfig,
        HostErrorKind::InvalidCost,
        HostErrorKind::InvalidDigest,
        HostErrorKind::InvalidGithub,
        HostErrorKind::InvalidLaunch,
        HostErrorKind::InvalidPool,
        HostErrorKind::InvalidFairnessKey,
        HostErrorKind::InvalidPriority,
        HostErrorKind::InvalidRateState,
        HostErrorKind::InvalidRepo,
        HostErrorKind::InvalidRequest,
        HostErrorKind::LaunchConflict,
        HostErrorKind::LaunchNotExecutable,
        HostErrorKind::LaunchNotFound,
        HostErrorKind::MalformedJson,
        HostErrorKind::MissingReceipt,
        HostErrorKind::NoGithubCredentials,
        HostErrorKind::NoStore,
        HostErrorKind::UnsupportedStore,
        HostErrorKind::NoToken,
        HostErrorKind::NotFound,
        HostErrorKind::RecordAnswer,
        HostErrorKind::RetryExpired,
        HostErrorKind::UnreadableInput,
        HostErrorKind::BindingMismatch,
        HostErrorKind::StoreNotFound,
        HostErrorKind::MissingArgument,
        HostErrorKind::UnknownFlag,
        HostErrorKind::UnknownCommand,
        HostErrorKind::InvalidValue,
        HostErrorKind::ConflictingArguments,
        HostErrorKind::Usage,
        HostErrorKind::GithubAppKeyUnusable,
        HostErrorKind::GithubError,
        HostErrorKind::GithubUnreachable,
        HostErrorKind::GithubQuota,
        HostErrorKind::GithubAnswer,
        HostErrorKind::AlreadyRecorded,
        HostErrorKind::AlreadyRetried,
        HostErrorKind::Conflict,
        HostErrorKind::IllegalTransition,
        HostErrorKind::LaunchNotAllowed,
        HostErrorKind::LaunchStillRunning,
        HostErrorKind::LeaseExpired,
        HostErrorKind::NotBlocked,
        HostErrorKind::NotDispatchUnknown,
        HostErrorKind::NotDispatching,
        HostErrorKind::NotResumable,
        HostErrorKind::PoolBusy,
        HostErrorKind::StaleAttempt,
        HostErrorKind::WrongHandle,
    ];

    /// The stable code string, as printed in `{"error":{"code"}}`.
    pub const fn code(self) -> &'static str {
        match self {
            HostErrorKind::Backend => "backend",
            HostErrorKind::ListenFailed => "listen-failed",
            HostErrorKind::RuntimeFailed => "runtime-failed",
            HostErrorKind::SignalFailed => "signal-failed",
            HostErrorKind::UnwritableMetricsFile => "unwritable-metrics-file",
            HostErrorKind::UnwritableOutput => "unwritable-output",
            HostErrorKind::Duplicate => "duplicate",
            HostErrorKind::StoreCorrupt => "store-corrupt",
            HostErrorKind::ForeignStore => "foreign-store",
            HostErrorKind::UnsafeStore => "unsafe-store",
            HostErrorKind::StoreReplaced => "store-replaced",
            HostErrorKind::SchemaTooNew => "schema-too-new",
            HostErrorKind::StoreError => "store-error",
            HostErrorKind::AlreadyRetained => "already-retained",
            HostErrorKind::Expired => "expired",
            HostErrorKind::GateNotDeferred => "gate-not-deferred",
            HostErrorKind::GithubAppKeyExposed => "github-app-key-exposed",
            HostErrorKind::GithubAppKeyNotAFile => "github-app-key-not-a-file",
            HostErrorKind::GithubAppKeyTooLarge => "github-app-key-too-large",
            HostErrorKind::InvalidConfig => "invalid-config",
            HostErrorKind::InvalidCost => "invalid-cost",
            HostErrorKind::InvalidDigest => "invalid-digest",
            HostErrorKind::InvalidGithub => "invalid-github",
            HostErrorKind::InvalidLaunch => "invalid-launch",
            HostErrorKind::InvalidPool => "invalid-pool",
            HostErrorKind::InvalidFairnessKey => "invalid-fairness-key",
            HostErrorKind::InvalidPriority => "invalid-priority",
            HostErrorKind::InvalidRateState => "invalid-rate-state",
            HostErrorKind::InvalidRepo => "invalid-repo",
            HostErrorKind::InvalidRequest => "invalid-request",
            HostErrorKind::LaunchConflict => "launch-conflict",
            HostErrorKind::LaunchNotExecutable => "launch-not-executable",
            HostErrorKind::LaunchNotFound => "launch-not-found",
            HostErrorKind::MalformedJson => "malformed-json",
            HostErrorKind::MissingReceipt => "missing-receipt",
            HostErrorKind::NoGithubCredentials => "no-github-credentials",
            HostErrorKind::NoStore => "no-store",
            HostErrorKind::UnsupportedStore => "unsupported-store",
            HostErrorKind::NoToken => "no-token",
            HostErrorKind::NotFound => "not-found",
            HostErrorKind::RecordAnswer => "record-answer",
            HostErrorKind::RetryExpired => "retry-expired",
            HostErrorKind::UnreadableInput => "unreadable-input",
            HostErrorKind::BindingMismatch => "binding-mismatch",
            HostErrorKind::StoreNotFound => "store-not-found",
            HostErrorKind::MissingArgument => "missing-argument",
            HostErrorKind::UnknownFlag => "unknown-flag",
            HostErrorKind::UnknownCommand => "unknown-command",
            HostErrorKind::InvalidValue => "invalid-value",
            HostErrorKind::ConflictingArguments => "conflicting-arguments",
            HostErrorKind::Usage => "usage",
            HostErrorKind::GithubAppKeyUnusable => "github-app-key-unusable",
            HostErrorKind::GithubError => "github-error",
            HostErrorKind::GithubUnreachable => "github-unreachable",
            HostErrorKind::GithubQuota => "github-quota",
            HostErrorKind::GithubAnswer => "github-answer",
            HostErrorKind::AlreadyRecorded => "already-recorded",
            HostErrorKind::AlreadyRetried => "already-retried",
            HostErrorKind::Conflict => "conflict",
            HostErrorKind::IllegalTransition => "illegal-transition",
            HostErrorKind::LaunchNotAllowed => "launch-not-allowed",
            HostErrorKind::LaunchStillRunning => "launch-still-running",
            HostErrorKind::LeaseExpired => "lease-expired",
            HostErrorKind::NotBlocked => "not-blocked",
            HostErrorKind::NotDispatchUnknown => "not-dispatch-unknown",
            HostErrorKind::NotDispatching => "not-dispatching",
            HostErrorKind::NotResumable => "not-resumable",
            HostErrorKind::PoolBusy => "pool-busy",
            HostErrorKind::StaleAttempt => "stale-attempt",
            HostErrorKind::WrongHandle => "wrong-handle",
        }
    }

    /// The process exit code of an error of this kind.
    pub const fn exit_code(self) -> u8 {
        match self {
            HostErrorKind::Backend
            | HostErrorKind::ListenFailed
            | HostErrorKind::RuntimeFailed
            | HostErrorKind::SignalFailed
            | HostErrorKind::UnwritableMetricsFile
            | HostErrorKind::UnwritableOutput
            | HostErrorKind::Duplicate
            | HostErrorKind::StoreCorrupt
            | HostErrorKind::ForeignStore
            | HostErrorKind::UnsafeStore
            | HostErrorKind::StoreReplaced
            | HostErrorKind::SchemaTooNew
            | HostErrorKind::StoreError => EXIT_FAILURE,
            HostErrorKind::AlreadyRetained
            | HostErrorKind::Expired
            | HostErrorKind::GateNotDeferred
            | HostErrorKind::GithubAppKeyExposed
            | HostErrorKind::GithubAppKeyNotAFile
            | HostErrorKind::GithubAppKeyTooLarge
            | HostErrorKind::InvalidConfig
            | HostErrorKind::InvalidCost
            | HostErrorKind::InvalidDigest
            | HostErrorKind::InvalidGithub
            | HostErrorKind::InvalidLaunch
            | HostErrorKind::InvalidPool
            | HostErrorKind::InvalidFairnessKey
            | HostErrorKind::InvalidPriority
            | HostErrorKind::InvalidRateState
            | HostErrorKind::InvalidRepo
            | HostErrorKind::InvalidRequest
            | HostErrorKind::LaunchConflict
            | HostErrorKind::LaunchNotExecutable
            | HostErrorKind::LaunchNotFound
            | HostErrorKind::MalformedJson
            | HostErrorKind::MissingReceipt
            | HostErrorKind::NoGithubCredentials
            | HostErrorKind::NoStore
            | HostErrorKind::UnsupportedStore
            | HostErrorKind::NoToken
            | HostErrorKind::NotFound
            | HostErrorKind::RecordAnswer
            | HostErrorKind::RetryExpired
            | HostErrorKind::UnreadableInput
            | HostErrorKind::BindingMismatch
            | HostErrorKind::StoreNotFound
            | HostErrorKind::MissingArgument
            | HostErrorKind::UnknownFlag
            | HostErrorKind::UnknownCommand
            | HostErrorKind::InvalidValue
            | HostErrorKind::ConflictingArguments
            | HostErrorKind::Usage => EXIT_INVALID,
            HostErrorKind::GithubAppKeyUnusable => EXIT_AUTH,
            HostErrorKind::GithubError
            | HostErrorKind::GithubUnreachable
            | HostErrorKind::GithubQuota
            | HostErrorKind::GithubAnswer => EXIT_PROVIDER,
            HostErrorKind::AlreadyRecorded
            | HostErrorKind::AlreadyRetried
            | HostErrorKind::Conflict
            | HostErrorKind::IllegalTransition
            | HostErrorKind::LaunchNotAllowed
            | HostErrorKind::LaunchStillRunning
            | HostErrorKind::LeaseExpired
            | HostErrorKind::NotBlocked
            | HostErrorKind::NotDispatchUnknown
            | HostErrorKind::NotDispatching
            | HostErrorKind::NotResumable
            | HostErrorKind::PoolBusy
            | HostErrorKind::StaleAttempt
            | HostErrorKind::WrongHandle => EXIT_REFUSED,
        }
    }

    /// The kind whose code is `code`, if the host answers it.
    pub fn from_code(code: &str) -> Option<HostErrorKind> {
        HostErrorKind::ALL
            .iter()
            .copied()
            .find(|k| k.code() == code)
    }
}
