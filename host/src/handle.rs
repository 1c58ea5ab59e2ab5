//! Random handles and ids. A handle is 256 random bits written as 64 lowercase hex characters;
//! the store keeps only `sha256_hex` of the UTF-8 bytes of that 64-character text, which is how
//! any other side (the JS host, a preflight) must hash a handle to compare it.

use deferral_core::digest::{constant_time_eq, hex, sha256_hex};

/// Random bytes from the operating system.
fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system random source failed");
    bytes
}

/// A fresh 256-bit handle as 64 lowercase hex characters.
pub fn new_handle() -> String {
    hex(&random_bytes::<32>())
}

/// The digest stored for a handle: SHA-256 over the UTF-8 bytes of its hex text.
pub fn handle_digest(handle: &str) -> String {
    sha256_hex(handle.as_bytes())
}

/// `true` when `handle` hashes to `digest`, compared in constant time.
pub fn handle_matches(handle: &str, digest: &str) -> bool {
    constant_time_eq(&handle_digest(handle.trim()), digest)
}

/// A new deferral id: `d` followed by 24 hex characters (96 random bits).
pub fn new_deferral_id() -> String {
    format!("d{}", hex(&random_bytes::<12>()))
}

/// A lease owner name for this process: host name, pid and a random suffix.
pub fn lease_owner() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "host".to_string());
    format!(
        "{host}:{}:{}",
        std::process::id(),
        hex(&random_bytes::<4>())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_64_hex_and_distinct() {
        let (a, b) = (new_handle(), new_handle());
        assert_eq!(a.len(), 64);
        assert!(a
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)));
        assert_ne!(a, b);
    }

    #[test]
    fn digest_is_sha256_of_the_hex_text() {
        let handle = "0".repeat(64);
        // sha256 of 64 ASCII '0' characters, computed with `printf '%064d' 0 | sha256sum`.
        assert_eq!(
            handle_digest(&handle),
            "60e05bd1b195af2f94112fa7197a5c88289058840ce7c6df9693756bc6250f55"
        );
        assert!(handle_matches(&handle, &handle_digest(&handle)));
        assert!(!handle_matches(&"1".repeat(64), &handle_digest(&handle)));
    }
}
