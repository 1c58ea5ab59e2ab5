//! The command-line options that build a [`GithubClient`] (`tick`, `watch`). The token and the
//! API URL come from the environment through `cli.rs`; the App's key from a file.

use super::api_version::ApiVersion;
use super::app::AppAuth;
use super::auth::Auth;
use super::client::{GithubClient, DEFAULT_API_URL};
use super::quota::Quota;
use crate::error::{HostError, HostErrorKind};
use clap::Args;
use deferral_core::decision::Reserve;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct GithubArgs {
    /// Authenticate as this GitHub App (with --github-app-key) instead of GITHUB_TOKEN.
    #[arg(long, env = "DEFERRAL_GITHUB_APP_ID", value_name = "ID")]
    pub github_app_id: Option<String>,
    /// The GitHub App's private key (PEM), read once: a regular file of at most 64 KiB, this
    /// user's (or root's), that no one else may access (`chmod 600`); installation tokens stay
    /// in memory.
    #[arg(long, env = "DEFERRAL_GITHUB_APP_KEY_FILE", value_name = "FILE")]
    pub github_app_key: Option<PathBuf>,
    /// REST quota left untouched: a count (`500`) or a share of the limit (`10%`); once
    /// `x-ratelimit-remaining` reaches it, the host makes no more calls in this pass.
    #[arg(long, default_value = "10%", value_name = "COUNT|PERCENT")]
    pub github_reserve: String,
    /// GitHub's REST API version (`X-GitHub-Api-Version`): `2022-11-28` or `2026-03-10`
    /// (its dispatch answers with the run and takes no `return_run_details`).
    #[arg(
        long,
        env = "DEFERRAL_GITHUB_API_VERSION",
        default_value = "2022-11-28",
        value_name = "VERSION"
    )]
    pub github_api_version: String,
}

/// What `cli.rs` read from the environment.
pub struct GithubEnv {
    pub token: Option<String>,
    pub api_url: Option<String>,
    /// From `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` and `NO_PROXY`.
    pub proxy: Option<ureq::Proxy>,
}

impl GithubArgs {
    /// The client, or `None` when no credentials are given at all.
    pub fn client(
        &self,
        env: GithubEnv,
        timeout: Duration,
    ) -> Result<Option<GithubClient>, HostError> {
        let bad = |message: String| HostError::new(HostErrorKind::InvalidGithub, message);
        let version = ApiVersion::parse(&self.github_api_version)?;
        let reserve = Reserve::parse(&self.github_reserve).ok_or_else(|| {
            bad(format!(
                "--github-reserve {:?} is neither a count nor a percentage",
                self.github_reserve
            ))
        })?;
        let auth = match (&self.github_app_id, &self.github_app_key) {
            (Some(id), Some(path)) => Auth::App(AppAuth::from_key_file(
                id,
                path,
                Box::new(crate::clock::now_ms),
            )?),
            (Some(_), None) | (None, Some(_)) => {
                return Err(bad(
                    "--github-app-id and --github-app-key go together".into()
                ))
            }
            (None, None) => match env.token.filter(|t| !t.is_empty()) {
                Some(token) => Auth::Token(token),
                None => return Ok(None),
            },
        };
        let api = env
            .api_url
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| DEFAULT_API_URL.to_string());
        GithubClient::with_proxy(&api, auth, timeout, Quota::new(reserve), env.proxy)
            .map(|client| Some(client.with_api_version(version)))
            .map_err(|m| bad(format!("GITHUB_API_URL: {m}")))
    }
}
