//! What a GitHub request was for, as the metrics label it (`kind` of
//! `deferral_host_tick_github_requests`): a few fixed words, never a repository or an id.

/// The kind of an API request to `path` (which may hold a query).
pub fn of(method: &str, path: &str) -> &'static str {
    let path = path.split('?').next().unwrap_or(path);
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match parts[..] {
        ["app", "installations", _, "access_tokens"] => "installation-token",
        ["repos", _, _, "installation"] => "installation",
        ["repos", _, _, "actions", "workflows", _, "dispatches"] if method == "POST" => "dispatch",
        ["repos", _, _, "actions", "workflows", _, "runs"] => "list-runs",
        ["repos", _, _, "actions", "runs", _] => "run",
        ["repos", _, _, "actions", "runs", _, "artifacts"] => "run-artifacts",
        ["repos", _, _, "actions", "artifacts"] => "artifacts",
        ["repos", _, _, "actions", "artifacts", _, "zip"] => "artifact-download",
        ["rate_limit"] => "rate-limit",
        ["app", "hook", "deliveries"] => "hook-deliveries",
        ["app", "hook", "deliveries", _, "attempts"] if method == "POST" => "hook-redeliver",
        _ => "other",
    }
}

/// Requests to blob storage (an artifact's redirect target, not GitHub's API, no quota).
pub const BLOB: &str = "blob";

#[cfg(test)]
mod tests {
    #[test]
    fn each_call_the_host_makes_has_its_kind() {
        let cases = [
            (
                "POST",
                "/repos/o/r/actions/workflows/resume.yml/dispatches",
                "dispatch",
            ),
            (
                "GET",
                "/repos/o/r/actions/workflows/resume.yml/runs?event=workflow_dispatch&per_page=100",
                "list-runs",
            ),
            ("GET", "/repos/o/r/actions/runs/42", "run"),
            (
                "GET",
                "/repos/o/r/actions/runs/42/artifacts?name=deferred-receipt",
                "run-artifacts",
            ),
            (
                "GET",
                "/repos/o/r/actions/artifacts?name=x&per_page=100",
                "artifacts",
            ),
            (
                "GET",
                "/repos/o/r/actions/artifacts/7/zip",
                "artifact-download",
            ),
            ("GET", "/repos/o/r/installation", "installation"),
            (
                "POST",
                "/app/installations/9/access_tokens",
                "installation-token",
            ),
            ("GET", "/rate_limit", "rate-limit"),
        ];
        for (method, path, kind) in cases {
            assert_eq!(super::of(method, path), kind, "{method} {path}");
        }
    }
}
