//! A minimal HTTP/1.1 client for one request: `http://` over a plain `TcpStream`, `https://`
//! through rustls (ring, webpki roots). It tells apart failures before anything was sent
//! (safe to try again) from failures after (the server may have acted: ambiguous).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub https: bool,
    pub host: String,
    pub port: u16,
    /// Path prefix without a trailing slash (`/api/v3` on GitHub Enterprise Server, else empty).
    pub base_path: String,
}

impl Url {
    pub fn parse(text: &str) -> Result<Url, String> {
        let (https, rest) = if let Some(rest) = text.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = text.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err(format!("{text:?} is not an http:// or https:// URL"));
        };
        let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        if authority.is_empty() || authority.contains('@') {
            return Err(format!("{text:?} has no usable host"));
        }
        let default_port = if https { 443 } else { 80 };
        let bad_port = || format!("{text:?} has a bad port");
        let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
            let (host, after) = bracketed
                .split_once(']')
                .ok_or_else(|| format!("{text:?} has a bad IPv6 host"))?;
            match after.strip_prefix(':') {
                Some(port) => (host, port.parse::<u16>().map_err(|_| bad_port())?),
                None if after.is_empty() => (host, default_port),
                None => return Err(bad_port()),
            }
        } else {
            match authority.rsplit_once(':') {
                Some((host, port)) => (host, port.parse::<u16>().map_err(|_| bad_port())?),
                None => (authority, default_port),
            }
        };
        let base_path = format!("/{}", path.trim_end_matches('/'));
        let base_path = if base_path == "/" {
            String::new()
        } else {
            base_path
        };
        Ok(Url {
            https,
            host: host.to_string(),
            port,
            base_path,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// At most the first 8 KiB of the body.
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// Nothing reached the server (name lookup, connect, TLS handshake).
    NotSent(String),
    /// The request was (at least partly) sent, then the exchange failed.
    AfterSend(String),
}

pub struct Request<'a> {
    pub method: &'a str,
    pub url: &'a Url,
    pub path: &'a str,
    /// Header lines without CRLF, e.g. `("Authorization", "Bearer ...")`.
    pub headers: &'a [(&'a str, String)],
    pub body: &'a [u8],
    pub timeout: Duration,
}

trait Stream: Read + Write {}
impl<T: Read + Write> Stream for T {}

fn connect(url: &Url, timeout: Duration) -> Result<Box<dyn Stream>, HttpError> {
    let addrs = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .map_err(|e| HttpError::NotSent(format!("cannot resolve {}: {e}", url.host)))?;
    let mut last = format!("no address for {}", url.host);
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(tcp) => {
                let _ = tcp.set_read_timeout(Some(timeout));
                let _ = tcp.set_write_timeout(Some(timeout));
                let _ = tcp.set_nodelay(true);
                if !url.https {
                    return Ok(Box::new(tcp));
                }
                return tls(url, tcp);
            }
            Err(e) => last = format!("cannot connect to {addr}: {e}"),
        }
    }
    Err(HttpError::NotSent(last))
}

fn tls(url: &Url, mut tcp: TcpStream) -> Result<Box<dyn Stream>, HttpError> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| HttpError::NotSent(format!("TLS setup failed: {e}")))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from(url.host.clone())
        .map_err(|e| HttpError::NotSent(format!("bad TLS server name {}: {e}", url.host)))?;
    let mut conn = rustls::ClientConnection::new(Arc::new(config), name)
        .map_err(|e| HttpError::NotSent(format!("TLS setup failed: {e}")))?;
    // Finish the handshake before any request byte is written, so a handshake failure is NotSent.
    while conn.is_handshaking() {
        conn.complete_io(&mut tcp)
            .map_err(|e| HttpError::NotSent(format!("TLS handshake failed: {e}")))?;
    }
    Ok(Box::new(rustls::StreamOwned::new(conn, tcp)))
}

/// Sends one request with `Connection: close` and reads the status and the start of the body.
pub fn send(request: &Request) -> Result<Response, HttpError> {
    let mut stream = connect(request.url, request.timeout)?;
    let name = if request.url.host.contains(':') {
        format!("[{}]", request.url.host)
    } else {
        request.url.host.clone()
    };
    let host = if (request.url.https && request.url.port == 443)
        || (!request.url.https && request.url.port == 80)
    {
        name
    } else {
        format!("{name}:{}", request.url.port)
    };
    let mut head = format!(
        "{} {}{} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n",
        request.method,
        request.url.base_path,
        request.path,
        request.body.len()
    );
    for (name, value) in request.headers {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let mut message = head.into_bytes();
    message.extend_from_slice(request.body);
    // From the first byte on, a failure is ambiguous: the server may have acted on it.
    stream
        .write_all(&message)
        .map_err(|e| HttpError::AfterSend(format!("sending failed: {e}")))?;
    stream
        .flush()
        .map_err(|e| HttpError::AfterSend(format!("sending failed: {e}")))?;
    read_response(&mut stream)
}

fn read_response(stream: &mut dyn Stream) -> Result<Response, HttpError> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let header_end = loop {
        if let Some(pos) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
        if data.len() > 64 * 1024 {
            return Err(HttpError::AfterSend("response headers too long".into()));
        }
        match stream.read(&mut buf) {
            Ok(0) => {
                return Err(HttpError::AfterSend(
                    "connection closed before a response".into(),
                ))
            }
            Ok(n) => data.extend_from_slice(&buf[..n]),
            Err(e) => {
                return Err(HttpError::AfterSend(format!(
                    "reading the response failed: {e}"
                )))
            }
        }
    };
    let head = String::from_utf8_lossy(&data[..header_end]).into_owned();
    let status_line = head.lines().next().unwrap_or_default();
    let mut parts = status_line.split_whitespace();
    let status = match (
        parts.next(),
        parts.next().and_then(|s| s.parse::<u16>().ok()),
    ) {
        (Some(version), Some(status)) if version.starts_with("HTTP/1.") => status,
        _ => {
            return Err(HttpError::AfterSend(format!(
                "not an HTTP response: {status_line:?}"
            )))
        }
    };
    let content_length = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())
            .flatten()
    });
    let mut body = data[header_end..].to_vec();
    let want = content_length.unwrap_or(8192).min(8192);
    while body.len() < want {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => body.extend_from_slice(&buf[..n]),
        }
    }
    body.truncate(8192);
    Ok(Response {
        status,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_api_bases() {
        let url = Url::parse("https://api.github.com").unwrap();
        assert_eq!(
            (
                url.https,
                url.host.as_str(),
                url.port,
                url.base_path.as_str()
            ),
            (true, "api.github.com", 443, "")
        );
        let url = Url::parse("http://127.0.0.1:8080/api/v3/").unwrap();
        assert_eq!(
            (
                url.https,
                url.host.as_str(),
                url.port,
                url.base_path.as_str()
            ),
            (false, "127.0.0.1", 8080, "/api/v3")
        );
        assert!(Url::parse("ftp://x").is_err());
        assert!(Url::parse("http://user:pw@x").is_err());
    }
}
