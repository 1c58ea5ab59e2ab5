//! Credentials for GitHub calls: a token (`GITHUB_TOKEN`), or a GitHub App that exchanges a
//! signed JWT for an installation token per repository (see [`super::app`]).
//!
//! The token is only ever put in the `Authorization` header: never logged, stored, or put in
//! an error message; `Debug` does not show it.

use super::app::AppAuth;
use super::transport::{CallError, Reply, Transport};
use std::fmt;

pub enum Auth {
    Token(String),
    App(AppAuth),
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Auth::Token(_) => f.write_str("Token(..)"),
            Auth::App(app) => write!(f, "App({})", app.app_id()),
        }
    }
}

impl Auth {
    /// The `Authorization` header value for a call about `repo` (`owner/name`). An App's own
    /// calls go over `transport`, each answer shown to `observe` (the client counts it and
    /// reads its rate headers).
    pub fn authorization(
        &self,
        transport: &Transport,
        repo: Option<&str>,
        observe: &dyn Fn(&'static str, &Reply),
    ) -> Result<String, CallError> {
        match self {
            Auth::Token(token) => Ok(format!("Bearer {token}")),
            Auth::App(app) => {
                let repo = repo.ok_or_else(|| {
                    CallError::NotSent("a GitHub App call needs the repository".into())
                })?;
                Ok(format!(
                    "Bearer {}",
                    app.installation_token(transport, repo, observe)?
                ))
            }
        }
    }
}
