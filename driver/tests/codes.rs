//! Every code the core answers is defined once, listed in an `ALL`/`CODES` list, unique, and
//! has a message. The exhaustive matches below stop compiling when a variant is added without
//! being listed here, so no code can be added without a walk of it.

use deferral_core::exit::Exit;
use deferral_core::rate_state::RateReadError;
use deferral_core::receipt::ErrorCode;
use deferral_core::signals::{SignalError, SignalErrorKind};
use deferral_driver::attempt::AttemptError;
use std::collections::HashSet;

fn attempt_errors() -> Vec<AttemptError> {
    let detail = || "detail".to_string();
    let all = vec![
        AttemptError::InvalidDuration {
            input: "resume-buffer",
        },
        AttemptError::InvalidReserve {
            input: "rest-reserve",
        },
        AttemptError::InvalidChoice {
            input: "fresh-approval",
            allowed: "always or never",
        },
        AttemptError::InvalidChoice {
            input: "approval",
            allowed: "granted or none",
        },
        AttemptError::InvalidChoice {
            input: "on-deferral",
            allowed: "fail or succeed",
        },
        AttemptError::InvalidPlan { detail: detail() },
        AttemptError::InvalidBinding {
            input: "scope",
            detail: detail(),
        },
        AttemptError::InvalidBinding {
            input: "request",
            detail: detail(),
        },
        AttemptError::MissingFile { input: "plan" },
        AttemptError::MissingInput { input: "receipt" },
        AttemptError::MissingToken,
        AttemptError::InvalidCoordinatorUrl,
        AttemptError::MissingCoordinatorToken {
            from: "coordinator-token",
        },
        AttemptError::MissingCoordinatorLaunch,
        AttemptError::InvalidCoordinatorPool,
        AttemptError::MissingCoordinatorUrl {
            input: "coordinator-pool",
        },
        AttemptError::InvalidCoordinatorPriority,
        AttemptError::InvalidCoordinatorFairnessKey,
        AttemptError::InvalidCoordinatorCommit,
        AttemptError::CoordinatorFailed { detail: detail() },
        AttemptError::AdmissionFailed {
            pool: "app-42".into(),
            detail: detail(),
        },
        AttemptError::InvalidCoordinatorAnswer { detail: "x" },
        AttemptError::Transport { detail: detail() },
        AttemptError::InvalidAttempt { detail: detail() },
        AttemptError::MissingCommand,
        AttemptError::UnknownCommand { name: detail() },
        AttemptError::UnknownFlag { flag: detail() },
        AttemptError::MissingValue { flag: detail() },
        AttemptError::InvalidHeader,
        AttemptError::InvalidStatus,
        AttemptError::UnreadableFile {
            path: detail(),
            detail: detail(),
        },
        AttemptError::TooLarge {
            what: detail(),
            path: detail(),
            limit: 1,
        },
        AttemptError::UnreadableLedger { detail: detail() },
        AttemptError::LedgerLockFailed { detail: detail() },
        AttemptError::LedgerLockTimeout { ms: 1 },
        AttemptError::UnsafeTempFolder {
            path: detail(),
            detail: detail(),
        },
        AttemptError::UnwritableFile {
            path: detail(),
            detail: detail(),
            retained: Some(detail()),
        },
        AttemptError::InvalidProxy { detail: detail() },
        AttemptError::Internal { detail: detail() },
    ];
    for e in &all {
        // Exhaustive on purpose: a new variant must be added to the list above.
        match e {
            AttemptError::InvalidDuration { .. }
            | AttemptError::InvalidReserve { .. }
            | AttemptError::InvalidChoice { .. }
            | AttemptError::InvalidPlan { .. }
            | AttemptError::InvalidBinding { .. }
            | AttemptError::MissingFile { .. }
            | AttemptError::MissingInput { .. }
            | AttemptError::MissingToken
            | AttemptError::InvalidCoordinatorUrl
            | AttemptError::MissingCoordinatorToken { .. }
            | AttemptError::MissingCoordinatorLaunch
            | AttemptError::InvalidCoordinatorPool
            | AttemptError::MissingCoordinatorUrl { .. }
            | AttemptError::InvalidCoordinatorPriority
            | AttemptError::InvalidCoordinatorFairnessKey
            | AttemptError::InvalidCoordinatorCommit
            | AttemptError::CoordinatorFailed { .. }
            | AttemptError::AdmissionFailed { .. }
            | AttemptError::InvalidCoordinatorAnswer { .. }
            | AttemptError::Transport { .. }
            | AttemptError::InvalidAttempt { .. }
            | AttemptError::MissingCommand
            | AttemptError::UnknownCommand { .. }
            | AttemptError::UnknownFlag { .. }
            | AttemptError::MissingValue { .. }
            | AttemptError::InvalidHeader
            | AttemptError::InvalidStatus
            | AttemptError::UnreadableFile { .. }
            | AttemptError::TooLarge { .. }
            | AttemptError::UnreadableLedger { .. }
            | AttemptError::LedgerLockFailed { .. }
            | AttemptError::LedgerLockTimeout { .. }
            | AttemptError::UnsafeTempFolder { .. }
            | AttemptError::UnwritableFile { .. }
            | AttemptError::InvalidProxy { .. }
            | AttemptError::Internal { .. } => {}
        }
    }
    all
}

fn rate_read_errors() -> Vec<RateReadError> {
    let signal = SignalError {
        kind: SignalErrorKind::InvalidNumber,
        path: "$.resources.core.limit".into(),
    };
    let all = vec![
        RateReadError::BadCredentials,
        RateReadError::Forbidden,
        RateReadError::NotFound,
        RateReadError::ProviderError { status: 502 },
        RateReadError::RateLimitedWithoutReset { status: 429 },
        RateReadError::Unreadable {
            status: 200,
            error: signal,
        },
        RateReadError::InvalidFile {
            detail: "d".into(),
            path: "$".into(),
        },
    ];
    for e in &all {
        match e {
            RateReadError::BadCredentials
            | RateReadError::Forbidden
            | RateReadError::NotFound
            | RateReadError::ProviderError { .. }
            | RateReadError::RateLimitedWithoutReset { .. }
            | RateReadError::Unreadable { .. }
            | RateReadError::InvalidFile { .. } => {}
        }
    }
    all
}

#[test]
fn attempt_codes_are_listed_unique_and_worded() {
    let listed: HashSet<&str> = AttemptError::CODES.into_iter().collect();
    assert_eq!(
        listed.len(),
        AttemptError::CODES.len(),
        "a code is listed twice"
    );
    let mut produced = HashSet::new();
    for e in attempt_errors() {
        assert!(listed.contains(e.code()), "{} is not in CODES", e.code());
        let message = e.to_string();
        assert!(
            !message.is_empty() && !message.ends_with('.'),
            "{message:?}"
        );
        assert!(matches!(
            e.exit(),
            Exit::Invalid | Exit::Auth | Exit::Provider
        ));
        produced.insert(e.code());
    }
    assert_eq!(produced, listed, "a listed code no variant answers");
}

#[test]
fn rate_read_codes_are_listed_unique_and_worded() {
    let listed: HashSet<&str> = RateReadError::CODES.into_iter().collect();
    assert_eq!(listed.len(), RateReadError::CODES.len());
    let produced: HashSet<&str> = rate_read_errors()
        .iter()
        .map(|e| {
            assert!(!e.to_string().is_empty());
            e.code()
        })
        .collect();
    assert_eq!(produced, listed);
}

#[test]
fn no_code_means_two_things() {
    // The attempt, rate reading and receipt codes are read side by side in one JSON line: the
    // same code in two lists must be the same refusal (only too-large is shared, on purpose).
    let receipt: HashSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let attempt: HashSet<&str> = AttemptError::CODES.into_iter().collect();
    let rate: HashSet<&str> = RateReadError::CODES.into_iter().collect();
    assert!(attempt.is_disjoint(&rate));
    let shared: HashSet<&str> = attempt.intersection(&receipt).copied().collect();
    assert_eq!(shared, HashSet::from(["too-large"]));
    assert!(rate.is_disjoint(&receipt));
}

#[test]
fn exit_classes_are_the_design_numbers() {
    let codes: Vec<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
    assert_eq!(codes, [0, 2, 3, 4, 5, 6]);
}
