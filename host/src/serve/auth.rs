//! Who may ask: the serve token, as `Authorization: Bearer TOKEN` on every route, and on the
//! status page (`GET /`) also as the password of HTTP Basic (any user name), which is what a
//! browser can send without the token ever being in a URL. The JSON API takes bearer tokens
//! only. Both sides are hashed before a constant-time comparison, so nothing about the token,
//! its length included, leaks through timing. Nothing here is logged: the log line of a request
//! is its method, path and status (`super::log`).

use super::http::Response;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use deferral_core::digest::{constant_time_eq, sha256_hex};

/// The protection space a browser keeps the credentials for.
pub const REALM: &str = "deferral";

/// Whether `authorization` (the header's value, if any) carries the token whose digest is
/// `token_digest`: a bearer token anywhere, a Basic password only when `page`.
pub fn admits(authorization: Option<&str>, token_digest: &str, page: bool) -> bool {
    let Some((scheme, given)) = authorization.and_then(|v| v.split_once(' ')) else {
        return false;
    };
    if scheme.eq_ignore_ascii_case("bearer") {
        return matches(given.trim().as_bytes(), token_digest);
    }
    page && scheme.eq_ignore_ascii_case("basic")
        && basic_password(given.trim()).is_some_and(|p| matches(p.trim_ascii(), token_digest))
}

fn matches(given: &[u8], token_digest: &str) -> bool {
    constant_time_eq(&sha256_hex(given), token_digest)
}

/// The password of Basic credentials `encoded` (`base64(user:password)`, RFC 7617): what
/// follows the first colon. `None` when it is not canonical base64 or holds no colon.
fn basic_password(encoded: &str) -> Option<Vec<u8>> {
    let mut decoded = STANDARD.decode(encoded).ok()?;
    let colon = decoded.iter().position(|&b| b == b':')?;
    Some(decoded.split_off(colon + 1))
}

/// The answer to a request without the token: on the page a Basic challenge (a browser asks
/// its user), elsewhere the bearer answer an API client reads.
pub fn refusal(page: bool) -> Response {
    if page {
        return Response::json(401, LOGIN_PAGE.to_string())
            .with_header("content-type", "text/html; charset=utf-8")
            .with_header("WWW-Authenticate", format!("Basic realm=\"{REALM}\""));
    }
    Response::error(
        401,
        "unauthorized",
        "send Authorization: Bearer <the serve token>",
    )
    .with_header("WWW-Authenticate", "Bearer")
}

/// What a browser shows when its user cancels the prompt (or before it prompts).
const LOGIN_PAGE: &str = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>deferral-host: sign in</title></head><body>\n<h1>deferral-host status</h1>\n\
<p>This page needs the serve token. When the browser asks, enter any user name and the serve \
token (the first line of <code>--token-file</code>) as the password.</p>\n\
<p>Programs use <code>Authorization: Bearer TOKEN</code> instead.</p>\n</body></html>";

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "unit-test-token-0123456789";

    fn digest() -> String {
        sha256_hex(TOKEN.as_bytes())
    }

    fn basic(text: &str) -> String {
        format!("Basic {}", STANDARD.encode(text))
    }

    #[test]
    fn the_password_is_what_follows_the_first_colon() {
        let encoded = STANDARD.encode("user:pa:ss");
        assert_eq!(basic_password(&encoded).as_deref(), Some(&b"pa:ss"[..]));
        let encoded = STANDARD.encode(":");
        assert_eq!(basic_password(&encoded).as_deref(), Some(&b""[..]));
        assert_eq!(basic_password(&STANDARD.encode("no colon")), None);
    }

    #[test]
    fn only_canonical_base64_is_read() {
        // "dXNlcjpw" is "user:p"; without padding, with a bad character, or with bits left over
        // it is not credentials.
        assert!(basic_password("dXNlcjpw").is_some());
        for bad in [
            "dXNlcjp",
            "dXNlcjp*",
            "dXNlcjpwx=",
            "dXNlcjq=",
            "dXN lcjpw",
            "",
            "====",
        ] {
            assert_eq!(basic_password(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn basic_opens_the_page_only_and_bearer_opens_everything() {
        let d = digest();
        let right = basic(&format!("anyone:{TOKEN}"));
        assert!(admits(Some(&right), &d, true));
        assert!(!admits(Some(&right), &d, false), "never on the API");
        assert!(admits(Some(&format!("Bearer {TOKEN}")), &d, true));
        assert!(admits(Some(&format!("bearer {TOKEN}")), &d, false));
        assert!(
            admits(Some(&basic(&format!("u:{TOKEN} "))), &d, true),
            "trimmed as the file is"
        );
        for wrong in [
            None,
            Some("Basic"),
            Some(basic(&format!("{TOKEN}:x")).as_str()),
            Some(basic(TOKEN).as_str()),
            Some(basic(&format!("u:{TOKEN}x")).as_str()),
            Some(format!("Bearer {}", STANDARD.encode(format!("u:{TOKEN}"))).as_str()),
            Some(format!("Token {TOKEN}").as_str()),
        ] {
            assert!(!admits(wrong, &d, true), "{wrong:?}");
        }
    }

    #[test]
    fn the_page_is_refused_with_a_basic_challenge_and_the_api_with_bearer() {
        let page = refusal(true);
        assert_eq!(page.status, 401);
        assert!(page
            .headers
            .contains(&("WWW-Authenticate", "Basic realm=\"deferral\"".to_string())));
        assert!(page.body.contains("any user name") && page.body.contains("password"));
        let api = refusal(false);
        assert!(api
            .headers
            .contains(&("WWW-Authenticate", "Bearer".to_string())));
        assert!(api.body.contains("\"unauthorized\""));
    }
}
