//! GitHub App authentication: an RS256 JWT signed with the App's private key (`jsonwebtoken`),
//! exchanged for an installation token of the repository's installation:
//! `GET /repos/{owner}/{repo}/installation`, then `POST /app/installations/{id}/access_tokens`.
//!
//! Installation tokens live in memory only and are renewed [`RENEW_BEFORE_MS`] before they
//! expire (GitHub issues them for an hour). The private key is read once, by the caller.

use super::client::{CallError, GithubClient};
use deferral_core::signals::time::parse_iso8601;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use std::cell::RefCell;
use std::collections::HashMap;

/// An installation token is renewed when less than this is left of it.
pub const RENEW_BEFORE_MS: u64 = 5 * 60 * 1000;

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
    /// `pem` is the App's private key as GitHub issues it (PKCS#1 or PKCS#8 PEM).
    pub fn new(app_id: &str, pem: &[u8], now_ms: Box<dyn Fn() -> u64>) -> Result<AppAuth, String> {
        if app_id.is_empty() || !app_id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("the GitHub App id {app_id:?} is not a number"));
        }
        let key = EncodingKey::from_rsa_pem(pem)
            .map_err(|e| format!("the GitHub App key is not an RSA private key in PEM: {e}"))?;
        Ok(AppAuth {
            app_id: app_id.to_string(),
            key,
            now_ms,
            tokens: RefCell::new(HashMap::new()),
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

    /// The installation token for `repo`, exchanged or renewed when needed.
    pub fn installation_token(
        &self,
        client: &GithubClient,
        repo: &str,
    ) -> Result<String, CallError> {
        let now = (self.now_ms)();
        if let Some(held) = self.tokens.borrow().get(repo) {
            if held.expires_ms > now + RENEW_BEFORE_MS {
                return Ok(held.token.clone());
            }
        }
        let bearer = format!("Bearer {}", self.jwt()?);
        let found =
            client.call_with("GET", &format!("/repos/{repo}/installation"), &bearer, None)?;
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
        let issued = client.call_with(
            "POST",
            &format!("/app/installations/{id}/access_tokens"),
            &bearer,
            Some(b"{}"),
        )?;
        if issued.status != 201 {
            return Err(CallError::NotSent(format!(
                "installation token refused: HTTP {}: {}",
                issued.status,
                issued.message()
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
