//! GitHub App authentication: an RS256 JWT signed with the App's private key (`jsonwebtoken`),
//! exchanged for an installation token of the repository's installation:
//! `GET /repos/{owner}/{repo}/installation`, then `POST /app/installations/{id}/access_tokens`.
//!
//! Installation tokens live in memory only and are renewed [`RENEW_BEFORE_MS`] before they
//! expire (GitHub issues them for an hour).
//!
//! The private key is read once ([`AppAuth::from_key_file`]) as ssh reads one: a regular file
//! of this user's (or root's) that no one else may access, at most [`MAX_KEY_BYTES`], opened
//! without blocking (a FIFO is refused, never waited on). A key that cannot sign a JWT is refused then, before the
//! caller claims anything (`github-app-key-unusable`, exit 3).

use super::transport::{CallError, Reply, Transport};
use crate::error::{HostError, HostErrorKind};
use crate::private_file::{self, Holds, Refusal};
use deferral_core::signals::time::parse_iso8601;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

/// An installation token is renewed when less than this is left of it.
pub const RENEW_BEFORE_MS: u64 = 5 * 60 * 1000;

/// Largest App key file read (a 4096-bit RSA key in PEM is about 3.3 KiB).
pub const MAX_KEY_BYTES: u64 = 64 * 1024;

/// The App key file's bytes: a secret's file (see [`crate::private_file`]: a regular file of
/// this user's or root's that no one else may read), at most [`MAX_KEY_BYTES`]. Opened with
/// `O_NONBLOCK` and checked on the open descriptor, so a FIFO (or a file swapped after a check)
/// is refused without waiting for a writer.
pub fn read_key_file(path: &Path) -> Result<Vec<u8>, HostError> {
    let what = format!("the GitHub App key {}", path.display());
    private_file::read(path, Holds::Secret, MAX_KEY_BYTES).map_err(|refusal| {
        let kind = match refusal {
            Refusal::Unreadable(_) => HostErrorKind::InvalidGithub,
            Refusal::NotAFile => HostErrorKind::GithubAppKeyNotAFile,
            Refusal::Owner { .. } | Refusal::Exposed { .. } => HostErrorKind::GithubAppKeyExposed,
            Refusal::TooLarge { .. } => HostErrorKind::GithubAppKeyTooLarge,
        };
        let hint = match refusal {
            Refusal::NotAFile => "; give the path of the PEM file GitHub issued",
            Refusal::TooLarge { .. } => "; an App's private key in PEM is a few KiB",
            _ => "",
        };
        HostError::new(
            kind,
            format!("{}{hint}", refusal.message(&what, path, Holds::Secret)),
        )
    })
}

/// What of a refused `access_tokens` answer may be shown: GitHub's `message`, only when the
/// answer is a JSON object without a `token` (an answer carrying one is never quoted), else
/// nothing beyond the status.
fn refusal_message(reply: &Reply) -> String {
    let Ok(serde_json::Value::Object(body)) = serde_json::from_slice(&reply.body) else {
        return String::new();
    };
    if body.contains_key("token") {
        return String::new();
    }
    match body.get("message").and_then(serde_json::Value::as_str) {
        Some(message) => format!(": {}", message.chars().take(200).collect::<String>()),
        None => String::new(),
    }
}

struct Installation {
    token: String,
    expires_ms: u64,
}

pub struct AppAuth {
    app_id: String,
    key: EncodingKey,
    now_ms: Box<dyn Fn() -> u64>,
    /// Installation tokens by repository (`owner/name`).
    tokens: RefCell<HashMap<String, Installation>>,
}

impl AppAuth {
    /// `pem` is the App's private key as GitHub issues it (PKCS#1 or PKCS#8 PEM). It must
    /// sign: one JWT is signed here (and thrown away), so a key that parses but cannot sign is
    /// `github-app-key-unusable` (exit 3) before anything is claimed or sent.
    pub fn new(
        app_id: &str,
        pem: &[u8],
        now_ms: Box<dyn Fn() -> u64>,
    ) -> Result<AppAuth, HostError> {
        if app_id.is_empty() || !app_id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(HostError::new(
                HostErrorKind::InvalidGithub,
                format!("the GitHub App id {app_id:?} is not a number"),
            ));
        }
        let key = EncodingKey::from_rsa_pem(pem).map_err(|e| {
            HostError::new(
                HostErrorKind::InvalidGithub,
                format!("the GitHub App key is not an RSA private key in PEM: {e}"),
            )
        })?;
        let app = AppAuth {
            app_id: app_id.to_string(),
            key,
            now_ms,
            tokens: RefCell::new(HashMap::new()),
        };
        app.jwt().map_err(|e| {
            HostError::new(
                HostErrorKind::GithubAppKeyUnusable,
                format!("the GitHub App key parses but {}; use the private key GitHub issued for the App", e.message()),
            )
        })?;
        Ok(app)
    }

    /// [`AppAuth::new`] with the key read from `path` ([`read_key_file`]); errors name the path.
    pub fn from_key_file(
        app_id: &str,
        path: &Path,
        now_ms: Box<dyn Fn() -> u64>,
    ) -> Result<AppAuth, HostError> {
        let pem = read_key_file(path)?;
        AppAuth::new(app_id, &pem, now_ms).map_err(|mut e| {
            e.message = format!("{} ({})", e.message, path.display());
            e
        })
    }

    pub fn app_id(&self) -> &str {
        &self.app_id
    }

    /// A JWT valid for nine minutes, back-dated a minute for clock drift (GitHub's advice).
    pub fn jwt(&self) -> Result<String, CallError> {
        let now_s = (self.now_ms)() / 1000;
        let claims = serde_json::json!({
            "iat": now_s.saturating_sub(60),
            "exp": now_s + 540,
            "iss": self.app_id,
        });
        jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &self.key)
            .map_err(|e| CallError::NotSent(format!("cannot sign the App JWT: {e}")))
    }

    /// The installation token for `repo`, exchanged or renewed when needed, over `transport`;
    /// each answer is shown to `observe`.
    pub fn installation_token(
        &self,
        transport: &Transport,
        repo: &str,
        observe: &dyn Fn(&'static str, &Reply),
    ) -> Result<String, CallError> {
        let now = (self.now_ms)();
        if let Some(held) = self.tokens.borrow().get(repo) {
            if held.expires_ms > now + RENEW_BEFORE_MS {
                return Ok(held.token.clone());
            }
        }
        let jwt = self
            .jwt()
            .inspect_err(|e| transport.note_unreachable(e.message()))?;
        let bearer = format!("Bearer {jwt}");
        let found =
            transport.call_with("GET", &format!("/repos/{repo}/installation"), &bearer, None)?;
        observe("installation", &found);
        if found.status != 200 {
            return Err(CallError::NotSent(format!(
                "the App has no installation on {repo}: HTTP {}: {}",
                found.status,
                found.message()
            )));
        }
        let id = found
            .json()?
            .get("id")
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| CallError::NotSent(format!("no installation id for {repo}")))?;
        let issued = transport.call_with(
            "POST",
            &format!("/app/installations/{id}/access_tokens"),
            &bearer,
            Some(b"{}"),
        )?;
        observe("installation-token", &issued);
        if issued.status != 201 {
            // The answer may carry a token after all: never quoted (see `refusal_message`).
            return Err(CallError::NotSent(format!(
                "installation token refused: HTTP {}{}",
                issued.status,
                refusal_message(&issued)
            )));
        }
        let body = issued.json()?;
        let token = body
            .get("token")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| CallError::NotSent("the installation token answer has no token".into()))?
            .to_string();
        let expires_ms = body
            .get("expires_at")
            .and_then(serde_json::Value::as_str)
            .and_then(parse_iso8601)
            .ok_or_else(|| CallError::NotSent("the installation token has no expires_at".into()))?;
        self.tokens.borrow_mut().insert(
            repo.to_string(),
            Installation {
                token: token.clone(),
                expires_ms,
            },
        );
        Ok(token)
    }
}
