//! `X-Hub-Signature-256: sha256=HEX`: the HMAC-SHA256 of the raw body under the webhook's
//! secret (RustCrypto's `hmac` and `sha2`; `Mac::verify_slice` compares in constant time).
//! Several secrets may be configured while one is rotated: a delivery signed with any of them
//! is accepted, and every one is tried, whichever matches.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The 32 bytes of a `sha256=` header value (64 hex digits), or `None`.
fn stated(header: &str) -> Option<Vec<u8>> {
    let hex = header.trim().strip_prefix("sha256=")?;
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..32)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// Whether `header` is the signature of `body` under one of `secrets`.
pub fn verify(secrets: &[Vec<u8>], header: Option<&str>, body: &[u8]) -> bool {
    let Some(expected) = header.and_then(stated) else {
        return false;
    };
    let mut matched = false;
    for secret in secrets {
        let Ok(mut mac) = HmacSha256::new_from_slice(secret) else {
            continue;
        };
        mac.update(body);
        matched |= mac.verify_slice(&expected).is_ok();
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::verify;

    /// GitHub's documented example ("Validating webhook deliveries"): this secret and payload
    /// give this signature.
    const SECRET: &[u8] = b"It's a Secret to Everybody";
    const PAYLOAD: &[u8] = b"Hello, World!";
    const SIGNATURE: &str =
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

    #[test]
    fn githubs_test_vector_verifies() {
        assert!(verify(&[SECRET.to_vec()], Some(SIGNATURE), PAYLOAD));
        // Upper-case hex is the same digest.
        let upper = format!("sha256={}", SIGNATURE[7..].to_uppercase());
        assert!(verify(&[SECRET.to_vec()], Some(&upper), PAYLOAD));
    }

    #[test]
    fn any_configured_secret_may_sign_and_nothing_else_passes() {
        let rotated = [b"the-old-secret".to_vec(), SECRET.to_vec()];
        assert!(verify(&rotated, Some(SIGNATURE), PAYLOAD));
        assert!(!verify(&[b"another".to_vec()], Some(SIGNATURE), PAYLOAD));
        assert!(!verify(
            &[SECRET.to_vec()],
            Some(SIGNATURE),
            b"Hello, World?"
        ));
        assert!(!verify(&[], Some(SIGNATURE), PAYLOAD));
        for bad in [
            None,
            Some(""),
            Some(&SIGNATURE[7..]),
            Some("sha1=757107ea0eb2509fc211221cce984b8a37570b6d"),
            Some(&SIGNATURE[..70]),
            Some("sha256=zz7107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"),
        ] {
            assert!(!verify(&[SECRET.to_vec()], bad, PAYLOAD), "{bad:?}");
        }
    }
}
