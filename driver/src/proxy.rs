//! Which proxy a request goes through: `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` as self-hosted
//! runners set them. A lower-case name wins over the upper-case one, as curl reads them. The
//! shell connects where this says; it never reads these variables itself.

use serde_json::{Map, Value};

/// The variable `name` (lower case first), trimmed; `None` when unset or blank.
fn var<'a>(env: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    [name.to_ascii_lowercase(), name.to_ascii_uppercase()]
        .iter()
        .find_map(|n| env.get(n).and_then(Value::as_str))
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// A URL's scheme, lower-case host (no brackets) and port (the scheme's default when absent).
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    pub scheme: String,
    pub host: String,
    pub port: String,
}

/// Reads the parts of `url` a proxy choice needs; `None` when it is not `scheme://host...`.
pub fn target(url: &str) -> Option<Target> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) = if let Some(inner) = authority.strip_prefix('[') {
        let (host, after) = inner.split_once(']')?;
        (host, after.strip_prefix(':').unwrap_or(""))
    } else {
        authority.split_once(':').unwrap_or((authority, ""))
    };
    if host.is_empty() {
        return None;
    }
    let port = match (port, scheme.as_str()) {
        ("", "https") => "443",
        ("", _) => "80",
        (p, _) => p,
    };
    Some(Target {
        host: host.to_ascii_lowercase(),
        port: port.to_string(),
        scheme,
    })
}

/// `true` when `NO_PROXY` lists the target: `*`, exact names, domain suffixes (`.corp` or
/// `corp`, `*.corp`), optionally with `:port`.
pub fn bypasses(t: &Target, env: &Map<String, Value>) -> bool {
    let Some(list) = var(env, "no_proxy") else {
        return false;
    };
    list.split([' ', '\t', ','])
        .filter(|e| !e.is_empty())
        .any(|entry| {
            if entry == "*" {
                return true;
            }
            let entry = entry.to_ascii_lowercase();
            let (name, port) = match entry.rsplit_once(':') {
                // host:port, or [v6]:port; an empty port (`host:`) restricts nothing. A bare IPv6
                // address (more than one colon, no brackets) has no port.
                Some((n, p))
                    if (!n.contains(':') || n.ends_with(']'))
                        && p.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    (n.to_string(), Some(p.to_string()).filter(|p| !p.is_empty()))
                }
                _ => (entry.clone(), None),
            };
            let name = name.trim_start_matches('[').trim_end_matches(']');
            let name = name
                .strip_prefix("*.")
                .or_else(|| name.strip_prefix('.'))
                .unwrap_or(name);
            if port.is_some_and(|p| p != t.port) {
                return false;
            }
            t.host == name || t.host.ends_with(&format!(".{name}"))
        })
}

/// The proxy for a request to `url`: `Ok(None)` to connect directly, `Ok(Some(url))` (always
/// with its scheme: `host:port` alone means an HTTP proxy), or `Err(detail)` for a proxy
/// variable whose scheme is not http or https.
///
/// # Errors
/// The detail of an unsupported proxy scheme.
pub fn proxy_for(url: &str, env: &Map<String, Value>) -> Result<Option<String>, String> {
    let Some(t) = target(url) else {
        return Ok(None);
    };
    if bypasses(&t, env) {
        return Ok(None);
    }
    let name = if t.scheme == "https" {
        "https_proxy"
    } else {
        "http_proxy"
    };
    let Some(raw) = var(env, name) else {
        return Ok(None);
    };
    let with_scheme = match raw.split_once("://") {
        Some((scheme, _))
            if !scheme.is_empty()
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(&b)) =>
        {
            raw.to_string()
        }
        _ => format!("http://{raw}"),
    };
    let scheme = with_scheme
        .split_once("://")
        .map(|(s, _)| s.to_ascii_lowercase())
        .unwrap_or_default();
    if scheme != "http" && scheme != "https" {
        return Err(format!(
            "unsupported proxy scheme {scheme} (use http:// or https://)"
        ));
    }
    Ok(Some(with_scheme))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn targets_read_host_and_default_ports() {
        let t = target("https://user:pw@API.GitHub.com/rate_limit").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port.as_str()),
            ("api.github.com", "443")
        );
        let t = target("http://[::1]:8080/x").unwrap();
        assert_eq!((t.host.as_str(), t.port.as_str()), ("::1", "8080"));
        assert_eq!(target("not a url"), None);
    }

    #[test]
    fn lower_case_wins_and_no_proxy_bypasses() {
        let e = env(json!({"https_proxy": "http://low:1", "HTTPS_PROXY": "http://up:2"}));
        assert_eq!(
            proxy_for("https://api.github.com", &e),
            Ok(Some("http://low:1".into()))
        );
        let e = env(json!({"HTTP_PROXY": "proxy.corp:3128", "NO_PROXY": "example.com, .corp"}));
        assert_eq!(
            proxy_for("http://api.github.com/x", &e),
            Ok(Some("http://proxy.corp:3128".into()))
        );
        assert_eq!(proxy_for("http://git.corp/x", &e), Ok(None));
        assert_eq!(proxy_for("http://example.com/x", &e), Ok(None));
        assert!(proxy_for("http://notexample.com/x", &e).unwrap().is_some());
        let e = env(json!({"HTTP_PROXY": "http://p:1", "NO_PROXY": "127.0.0.1:9"}));
        assert!(proxy_for("http://127.0.0.1:8/x", &e).unwrap().is_some());
        assert_eq!(proxy_for("http://127.0.0.1:9/x", &e), Ok(None));
        let e = env(json!({"HTTP_PROXY": "http://p:1", "NO_PROXY": "*"}));
        assert_eq!(proxy_for("http://anything/x", &e), Ok(None));
    }

    #[test]
    fn only_http_and_https_proxies() {
        let e = env(json!({"HTTPS_PROXY": "socks5://p:1"}));
        assert!(proxy_for("https://api.github.com", &e)
            .unwrap_err()
            .contains("socks5"));
        assert_eq!(proxy_for("http://api.github.com", &e), Ok(None));
    }

    #[test]
    fn no_proxy_ports_and_ipv6_entries() {
        let e = env(
            json!({"HTTP_PROXY": "http://p:1", "HTTPS_PROXY": "http://p:1",
            "NO_PROXY": "[::1]:8080, ::2, example.com:443, *.corp"}),
        );
        let direct = |url: &str| proxy_for(url, &e).unwrap().is_none();
        assert!(direct("http://[::1]:8080/x"));
        assert!(
            !direct("http://[::1]:9090/x"),
            "[v6]:port matches that port only"
        );
        assert!(direct("http://[::2]:7/x"), "a bare v6 address has no port");
        assert!(direct("https://example.com/x"));
        assert!(
            !direct("http://example.com/x"),
            "example.com:443 is not port 80"
        );
        assert!(direct("http://a.b.corp/x"));
        assert!(!direct("http://corpx/x"));
        let e = env(json!({"HTTP_PROXY": "http://p:1", "NO_PROXY": "host:, [::3]:"}));
        // An empty port restricts nothing: any port of the host goes direct.
        assert_eq!(proxy_for("http://host:81/x", &e), Ok(None));
        assert_eq!(proxy_for("http://[::3]:82/x", &e), Ok(None));
    }

    #[test]
    fn proxy_schemes_are_read_as_curl_reads_them() {
        let of = |raw: &str| {
            let e = env(json!({ "HTTPS_PROXY": raw }));
            proxy_for("https://api.github.com/rate_limit", &e)
        };
        assert_eq!(of("HTTP://p:1"), Ok(Some("HTTP://p:1".into())));
        assert_eq!(
            of("user:pw@p:8080"),
            Ok(Some("http://user:pw@p:8080".into()))
        );
        assert_eq!(of("https://p:443"), Ok(Some("https://p:443".into())));
        // Not a scheme (empty, or characters a scheme cannot have): a host, as curl reads it.
        assert_eq!(of("://p"), Ok(Some("http://://p".into())));
        assert_eq!(of("my_proxy://p"), Ok(Some("http://my_proxy://p".into())));
        assert!(of("socks5h://p:1080").is_err());
    }
}
