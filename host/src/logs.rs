//! The log format of `serve` and `tick` on stderr: lines for people (the default) or, with
//! `--log-format json`, one JSON object a line for a log collector:
//! `{"ts":"2026-12-01T20:00:00.000Z","level":"info","component":"tick","event":"launched",...}`.
//!
//! What may go in a line is decided where it is written (`serve::log`, `progress`): never the
//! serve token, a cancellation or wake-up handle, a receipt or an installation token. JSON
//! escaping keeps whatever a client sent on its own line.

use crate::clock::{iso8601, now_ms};
use serde_json::{Map, Value};
use std::io::Write;
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Lines for people.
    Text,
    /// One JSON object a line.
    Json,
}

static FORMAT: OnceLock<LogFormat> = OnceLock::new();

/// Sets the format for the rest of the process (the first call wins).
pub fn set_format(format: LogFormat) {
    let _ = FORMAT.set(format);
}

pub fn is_json() -> bool {
    FORMAT.get() == Some(&LogFormat::Json)
}

/// Writes one JSON line: `ts`, `level`, `component`, `event`, then `fields` (an object).
pub fn json(level: &str, component: &str, event: &str, fields: Value) {
    let mut line = Map::new();
    line.insert("ts".into(), Value::String(iso8601(now_ms())));
    line.insert("level".into(), level.into());
    line.insert("component".into(), component.into());
    line.insert("event".into(), event.into());
    if let Value::Object(fields) = fields {
        line.extend(fields);
    }
    let text = format!("{}\n", Value::Object(line));
    // A failed write to stderr is not worth failing the command for.
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// A sentence for the operator: JSON `{"event":"message","message":...}` or the text line
/// `deferral-host COMPONENT: MESSAGE`.
pub fn message(level: &str, component: &str, message: &str) {
    if is_json() {
        json(
            level,
            component,
            "message",
            serde_json::json!({ "message": message }),
        );
    } else {
        eprintln!("deferral-host {component}: {message}");
    }
}
