//! The operator's log: one line per request on stderr. What a client sent (method, path) is
//! escaped so that it can never start a forged line, move the cursor or reorder text: only
//! printable ASCII is written as is. Bodies (handles, receipts) and the token never appear:
//! a request's line takes its method, path (never the query) and status only, so neither the
//! `Authorization` header nor a Basic user name or password (`super::auth`) can reach it.

use std::fmt::Write;

/// `text` with everything but printable ASCII written as `\xNN` (bytes below 0x20 and 0x7f)
/// or `\u{N}` (any other character), and `\` as `\\`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if u32::from(c) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    out
}

/// Writes one line: `deferral-host serve: MESSAGE`, with `message` already escaped where it
/// holds what a client sent (with `--log-format json`, `{"event":"message","message"}`).
pub fn line(message: &str) {
    let level = if message.starts_with("warning:") {
        "warn"
    } else {
        "info"
    };
    crate::logs::message(level, "serve", message);
}

/// The line for an answered request (with `--log-format json`,
/// `{"event":"request","method","path","status"}`).
pub fn request(method: &str, path: &str, status: u16) {
    if crate::logs::is_json() {
        let fields =
            serde_json::json!({"method": escape(method), "path": escape(path), "status": status});
        crate::logs::json("info", "serve", "request", fields);
        return;
    }
    line(&format!("{} {} {status}", escape(method), escape(path)));
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn only_printable_ascii_is_kept() {
        assert_eq!(escape("/v1/deferrals/d-1"), "/v1/deferrals/d-1");
        assert_eq!(
            escape("a\rb\nc\x1b[2J\x07\x7f"),
            "a\\x0db\\x0ac\\x1b[2J\\x07\\x7f"
        );
        assert_eq!(escape("é\u{202e}"), "\\u{e9}\\u{202e}");
        assert_eq!(
            escape("a\\x0d"),
            "a\\\\x0d",
            "a backslash cannot fake an escape"
        );
    }
}
