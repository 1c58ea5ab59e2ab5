//! How an `exec:` launch ended, as the outcome the host records: the exit code says which
//! (0 complete, 6 deferred, anything else blocked), and the line the CLI reported (the report
//! file's, see `report_file`) or else the process's last JSON line on stdout says why. That
//! line is what the `deferral` CLI prints: an object with a `code`
//! (`{"status":"blocked","code":"approval-required","message":...}`, or `{"error":{"code",...}}`)
//! and, when deferred, a `deferredReceipt`; a bare receipt as the last line is read too.
//!
//! The cause recorded is that code (`approval-required`, `binding-mismatch`, ...), or the
//! host's own (`launch-not-found`, `launch-not-executable`, `lease-timeout`, ...), so
//! `status` says why without re-running anything by hand.

use super::exec::{ExecEnd, ExecResult};
use super::report_file::Report;
use crate::lifecycle::outcome::Outcome;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::io::ErrorKind;

/// What the last JSON object line of stdout says.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LastLine {
    /// A stable code, if the line has one of the form `[a-z0-9-]{1,64}`.
    pub code: Option<String>,
    /// Its message, cleaned of control characters and cut to 300 characters.
    pub message: Option<String>,
    /// The new receipt's text, exactly as printed: `deferredReceipt`, or the whole line when
    /// the line is a bare receipt.
    pub receipt: Option<String>,
}

fn code_ok(code: &str) -> bool {
    (1..=64).contains(&code.len())
        && code
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(300)
        .collect()
}

fn string_field(fields: &HashMap<String, Box<RawValue>>, name: &str) -> Option<String> {
    serde_json::from_str::<String>(fields.get(name)?.get()).ok()
}

/// Reads the last stdout line that is a JSON object.
pub fn last_line(stdout: &str) -> LastLine {
    let Some((line, fields)) = stdout.lines().map(str::trim).rev().find_map(|line| {
        let fields: HashMap<String, Box<RawValue>> = serde_json::from_str(line).ok()?;
        Some((line, fields))
    }) else {
        return LastLine::default();
    };
    let error: HashMap<String, Box<RawValue>> = fields
        .get("error")
        .and_then(|e| serde_json::from_str(e.get()).ok())
        .unwrap_or_default();
    let code = string_field(&fields, "code")
        .or_else(|| string_field(&error, "code"))
        .filter(|c| code_ok(c));
    let message = string_field(&fields, "message")
        .or_else(|| string_field(&error, "message"))
        .map(|m| clean(&m));
    let is_receipt = string_field(&fields, "version").as_deref() == Some("deferred-receipt-v1");
    let receipt = match fields.get("deferredReceipt") {
        Some(raw) if raw.get().starts_with('{') => Some(raw.get().to_string()),
        _ if is_receipt => Some(line.to_string()),
        _ => None,
    };
    LastLine {
        code,
        message,
        receipt,
    }
}

fn because(cause: &str, detail: String) -> Outcome {
    Outcome::BlockedBecause {
        cause: cause.to_string(),
        detail: Some(detail),
    }
}

/// The outcome of a finished launch of `program` from its exit and stdout alone.
pub fn outcome(program: &str, result: &ExecResult) -> Outcome {
    outcome_with(program, result, &Report::default())
}

/// The outcome of a finished launch of `program` with what it reported: the reported line's
/// code (with its message) and new receipt win over stdout's last JSON line, which fills in
/// what the reported line lacks (a work script's own receipt after a ready resume). The
/// event's detail says what was read and from where.
pub fn outcome_with(program: &str, result: &ExecResult, report: &Report) -> Outcome {
    let printed = last_line(&result.stdout);
    let reported = report
        .line
        .as_ref()
        .map(|(_, text)| last_line(text))
        .unwrap_or_default();
    let (code, message) = match reported.code {
        Some(code) => (Some(code), reported.message),
        None => (printed.code, printed.message),
    };
    let last = LastLine {
        code,
        message,
        receipt: reported.receipt.or(printed.receipt),
    };
    let ended = ended(program, result, last);
    match report.summary() {
        Some(summary) => noted(ended, &summary),
        None => ended,
    }
}

/// `outcome` with its detail followed by `; note`.
fn noted(outcome: Outcome, note: &str) -> Outcome {
    let add = |detail: Option<String>| {
        Some(match detail {
            Some(d) => format!("{d}; {note}"),
            None => note.to_string(),
        })
    };
    match outcome {
        Outcome::Complete { detail } => Outcome::Complete {
            detail: add(detail),
        },
        Outcome::Blocked { detail } => Outcome::Blocked {
            detail: add(detail),
        },
        Outcome::BlockedBecause { cause, detail } => Outcome::BlockedBecause {
            cause,
            detail: add(detail),
        },
        Outcome::Deferred { receipt, detail } => Outcome::Deferred {
            receipt,
            detail: add(detail),
        },
        Outcome::Returned { detail } => Outcome::Returned {
            detail: add(Some(detail)).unwrap_or_default(),
        },
    }
}

fn ended(program: &str, result: &ExecResult, last: LastLine) -> Outcome {
    let said = |code: i32| match &last.message {
        Some(message) => format!("exit {code}: {message}"),
        None => format!("exit {code}"),
    };
    match &result.end {
        ExecEnd::Exited(0) => Outcome::Complete {
            detail: Some("exit 0".into()),
        },
        ExecEnd::Exited(6) => match last.receipt {
            Some(receipt) => Outcome::Deferred {
                receipt,
                detail: Some("exit 6".into()),
            },
            None => because(
                "missing-receipt",
                "exit 6 without a receipt on stdout".into(),
            ),
        },
        ExecEnd::Exited(126) => because("launch-not-executable", said(126)),
        // The program started (a missing program never does: `SpawnFailed`); 127 is a shell's
        // "command not found" for a command inside it, most often cron's short PATH.
        ExecEnd::Exited(127) => because(
            "command-not-found",
            format!(
                "{}: a command inside the program was not found: is PATH set for cron? \
                 (the program itself started)",
                said(127)
            ),
        ),
        ExecEnd::Exited(code) => match &last.code {
            Some(cause) => because(cause, said(*code)),
            None => Outcome::Blocked {
                detail: Some(said(*code)),
            },
        },
        ExecEnd::Signaled(sig) => Outcome::Blocked {
            detail: Some(format!("killed by signal {sig}")),
        },
        ExecEnd::TimedOut => because(
            "lease-timeout",
            "lease-timeout: killed when its lease ran out".into(),
        ),
        ExecEnd::SpawnFailed(kind, why) => {
            let cause = match kind {
                ErrorKind::NotFound => "launch-not-found",
                ErrorKind::PermissionDenied => "launch-not-executable",
                _ => "launch-failed",
            };
            because(cause, format!("could not start {program}: {why}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_code_message_and_receipt_from_the_last_json_line() {
        let blocked = r#"{"status":"blocked","code":"approval-required","message":"needs --approval granted"}"#;
        assert_eq!(
            last_line(&format!("progress\n{blocked}\n\n")),
            LastLine {
                code: Some("approval-required".into()),
                message: Some("needs --approval granted".into()),
                receipt: None
            }
        );
        let error = r#"{"error":{"code":"invalid-receipt","message":"bad\nthing"}}"#;
        assert_eq!(last_line(error).code.as_deref(), Some("invalid-receipt"));
        assert_eq!(last_line(error).message.as_deref(), Some("bad thing"));
        let receipt = r#"{"version":"deferred-receipt-v1","b":1}"#;
        let wrapped = format!(r#"{{"status":"deferred","code":null,"deferredReceipt":{receipt}}}"#);
        assert_eq!(last_line(&wrapped).receipt.as_deref(), Some(receipt));
        assert_eq!(last_line(&wrapped).code, None);
        assert_eq!(
            last_line(&format!("{wrapped}\n{receipt}"))
                .receipt
                .as_deref(),
            Some(receipt)
        );
        assert_eq!(
            last_line(r#"{"code":"Not A Code; rm"}"#).code,
            None,
            "a code outside [a-z0-9-] is ignored"
        );
        assert_eq!(last_line("no json\n{broken"), LastLine::default());
    }
}
