//! Signing as GitHub signs a webhook delivery, and a GitHub App's key pair made as an operator
//! makes one: shared by the tests (through `webhook.rs`) and the benchmarks (by `#[path]`), so
//! it depends on nothing else of `common`.

use hmac::{Hmac, KeyInit, Mac};
use std::process::Stdio;

/// `sha256=HEX` of `body` under `secret`.
pub fn sign(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256={hex}")
}

/// A GitHub App's key pair made with openssl: the private key's path (mode 0600) and the
/// public key (PEM) for the stand-in.
pub fn app_key_pair(dir: &std::path::Path) -> (std::path::PathBuf, Vec<u8>) {
    use std::os::unix::fs::PermissionsExt;
    let private = dir.join("app-key.pem");
    let public = dir.join("app-key.pub.pem");
    let made = std::process::Command::new("openssl")
        .args(["genrsa", "-traditional", "-out"])
        .arg(&private)
        .arg("2048")
        .stderr(Stdio::null())
        .status()
        .expect("openssl is installed");
    assert!(made.success());
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = std::process::Command::new("openssl")
        .args(["rsa", "-pubout", "-in"])
        .arg(&private)
        .arg("-out")
        .arg(&public)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(out.success());
    (private, std::fs::read(public).unwrap())
}
