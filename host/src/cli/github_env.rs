//! The environment the GitHub client reads (`cli` is the one place that reads the host's
//! settings from environment variables).

use crate::github::options::GithubEnv;

/// The GitHub token, API URL and proxy: the only environment the GitHub client reads.
pub fn github_env() -> GithubEnv {
    GithubEnv {
        token: github_token(),
        api_url: std::env::var("GITHUB_API_URL").ok(),
        proxy: crate::github::client::proxy_from_env(),
    }
}

/// The token as the `deferral` CLI reads it: `GITHUB_TOKEN`, else `GH_TOKEN` (the first that
/// is set and not blank).
fn github_token() -> Option<String> {
    ["GITHUB_TOKEN", "GH_TOKEN"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|token| !token.trim().is_empty())
}
