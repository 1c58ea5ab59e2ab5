//! The little HTTP/1.1 that `serve` needs: one request per connection, a `Content-Length` body
//! (no chunked uploads), JSON answers, `Connection: close`. Written by hand over `std::net` so
//! the host keeps no web framework and no async runtime for five JSON endpoints.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

/// Request bodies larger than this are refused with 413 before they are read.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// The request line and headers together; past this the request is refused with 431.
const MAX_HEAD_BYTES: usize = 8 * 1024;

/// A parsed request head plus its body.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The path without the query string.
    pub path: String,
    headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// An answer: a status, a JSON body, and any extra headers (`Allow`, `WWW-Authenticate`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub body: String,
    pub headers: Vec<(&'static str, String)>,
}

impl Response {
    pub fn json(status: u16, body: String) -> Response {
        Response {
            status,
            body,
            headers: Vec::new(),
        }
    }

    /// `{"error":{"code","message"}}` with `status`.
    pub fn error(status: u16, code: &str, message: &str) -> Response {
        let body = serde_json::json!({"error": {"code": code, "message": message}});
        Response::json(status, body.to_string())
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        505 => "HTTP Version Not Supported",
        _ => "Internal Server Error",
    }
}

/// What went wrong before a request could be handled; each maps to one error answer.
fn refuse(status: u16, code: &str, message: &str) -> Response {
    Response::error(status, code, message)
}

/// Reads the request line and headers (up to the blank line). Bytes read past the head are
/// the start of the body and are returned with it.
fn read_head(stream: &mut TcpStream) -> Result<(Vec<u8>, Vec<u8>), Response> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            buf.truncate(end);
            return Ok((buf, rest));
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Err(refuse(
                431,
                "headers-too-large",
                "the request line and headers exceed 8 KiB",
            ));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(refuse(400, "bad-request", "the request ended early")),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => {
                return Err(refuse(
                    408,
                    "timeout",
                    "the request was not received in time",
                ))
            }
        }
    }
}

/// The request line and headers as a [`Request`] without its body.
fn parse_head(head: &[u8]) -> Result<Request, Response> {
    let text = std::str::from_utf8(head)
        .map_err(|_| refuse(400, "bad-request", "the request head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(refuse(400, "bad-request", "malformed request line"));
    };
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(refuse(505, "http-version", "only HTTP/1.1 is spoken"));
    }
    let mut headers = Vec::new();
    for line in lines {
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| refuse(400, "bad-request", "malformed header line"))?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    Ok(Request {
        method: method.to_string(),
        path: target.split('?').next().unwrap_or_default().to_string(),
        headers,
        body: Vec::new(),
    })
}

/// Reads one request. `admit` sees the head first (method, path, headers, no body yet) and may
/// answer at once (wrong token, unknown route): then the body is never read. A body longer
/// than [`MAX_BODY_BYTES`] is refused (413) before it is read.
pub fn read_request(
    stream: &mut TcpStream,
    admit: impl FnOnce(&Request) -> Option<Response>,
) -> Result<Request, Response> {
    let (head, mut body) = read_head(stream)?;
    let mut request = parse_head(&head)?;
    if let Some(answer) = admit(&request) {
        return Err(answer);
    }
    if request.header("transfer-encoding").is_some() {
        return Err(refuse(
            501,
            "unsupported-transfer-encoding",
            "send the body with Content-Length, not Transfer-Encoding",
        ));
    }
    let length = match request.header("content-length") {
        None if request.method == "POST" => {
            return Err(refuse(
                411,
                "length-required",
                "a POST needs Content-Length",
            ))
        }
        None => 0,
        Some(text) => text
            .parse::<usize>()
            .map_err(|_| refuse(400, "bad-request", "Content-Length is not a number"))?,
    };
    if length > MAX_BODY_BYTES {
        return Err(refuse(
            413,
            "body-too-large",
            "request bodies are limited to 16 KiB",
        ));
    }
    // curl asks before sending a body over 1 KiB; answer so it does not wait a second.
    if request
        .header("expect")
        .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
        && body.len() < length
    {
        let _ = stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let mut chunk = [0u8; 4096];
    while body.len() < length {
        match stream.read(&mut chunk) {
            Ok(0) => return Err(refuse(400, "bad-request", "the body ended early")),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(refuse(408, "timeout", "the body was not received in time")),
        }
    }
    body.truncate(length);
    request.body = body;
    Ok(request)
}

/// Writes `response` and closes the connection. Unread input (a refused body) is drained for a
/// moment first: closing a socket with unread data makes the kernel send a reset, and the
/// client could lose the answer.
pub fn write_response(stream: &mut TcpStream, response: &Response) {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n",
        response.status,
        reason(response.status),
        response.body.len() + 1
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let written = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(response.body.as_bytes()))
        .and_then(|()| stream.write_all(b"\n"))
        .and_then(|()| stream.flush());
    if written.is_err() {
        return;
    }
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 4096];
    let mut drained = 0usize;
    while drained < (1 << 20) {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}
