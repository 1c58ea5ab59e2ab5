//! Reads a saved HTTP answer as `curl -i` or `gh api -i` print it: a status line, headers, a
//! blank line, the body. Interim blocks (`100 Continue`, a proxy's `Connection established`)
//! are skipped, so the last status block is the answer.

/// A saved answer: status, `(name, value)` headers in order, body text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// The status of an `HTTP/x[.y] NNN ...` line, or `None` when `line` is not one.
fn status_line(line: &str) -> Option<u16> {
    let rest = line.strip_prefix("HTTP/")?;
    let mut parts = rest.split_whitespace();
    let version = parts.next()?;
    if !version.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let code = parts.next()?;
    if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    code.parse().ok()
}

/// `true` when `text` starts like a saved HTTP answer.
pub fn looks_like_response(text: &str) -> bool {
    status_line(text.lines().next().unwrap_or_default()).is_some()
}

/// Parses a saved answer; `None` when it does not start with an HTTP status line.
pub fn parse_response_text(text: &str) -> Option<SavedResponse> {
    let mut rest = text;
    let mut found = None;
    loop {
        let (first, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let Some(status) = status_line(first.trim_end_matches('\r')) else {
            break;
        };
        let mut headers = Vec::new();
        let mut remaining = after;
        let mut body = "";
        loop {
            if remaining.is_empty() {
                break;
            }
            let (line, next) = remaining.split_once('\n').unwrap_or((remaining, ""));
            let line = line.trim_end_matches('\r');
            if line.is_empty() {
                body = next;
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                headers.push((name.trim().to_string(), value.trim().to_string()));
            }
            remaining = next;
        }
        found = Some(SavedResponse {
            status,
            headers,
            body: body.to_string(),
        });
        rest = body;
    }
    found
}
