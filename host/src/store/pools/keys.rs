//! A deferral's fairness key when it is recorded without one: the launch target's repository
//! and workflow (`workflow-dispatch:OWNER/REPO/WORKFLOW@REF` gives `OWNER/REPO/WORKFLOW`), the
//! program of an `exec:` target (its path, without arguments), else the whole target. And a
//! deferral's tenant, which its key cannot choose: the repository of a `workflow-dispatch:`
//! target, the program of an `exec:` one, else the whole target (see `pools::fair`).

/// The default fairness key of `launch`.
pub fn default_key(launch: &str) -> String {
    if let Some(rest) = launch.strip_prefix("workflow-dispatch:") {
        let workflow = rest.split_once('@').map_or(rest, |(w, _)| w);
        return workflow.to_string();
    }
    if let Some(rest) = launch.strip_prefix("exec:") {
        let rest = rest.trim_start();
        let program = match rest.chars().next() {
            Some(q @ ('\'' | '"')) => rest[1..].split(q).next().unwrap_or(""),
            _ => rest.split_whitespace().next().unwrap_or(""),
        };
        return format!("exec:{program}");
    }
    launch.to_string()
}

/// The tenant of `launch`: whose work it is, whatever fairness key it was recorded with. The
/// keys of one tenant share one tenant's turns (`pools::fair`), so giving each job its own key
/// gains no share.
pub fn tenant_of(launch: &str) -> String {
    let key = default_key(launch);
    if launch.starts_with("workflow-dispatch:") {
        // OWNER/REPO/WORKFLOW: the repository is the tenant.
        if let Some((repo, _)) = key.rsplit_once('/') {
            return repo.to_string();
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_key_is_the_workflow_or_the_program() {
        assert_eq!(
            default_key("workflow-dispatch:acme/site/sync.yml@main"),
            "acme/site/sync.yml"
        );
        assert_eq!(
            default_key("workflow-dispatch:acme/site/sync.yml@refs/tags/v1@x"),
            "acme/site/sync.yml"
        );
        assert_eq!(
            default_key("exec:/usr/bin/sync --all"),
            "exec:/usr/bin/sync"
        );
        assert_eq!(default_key("exec:'/a b/run.sh' x"), "exec:/a b/run.sh");
        assert_eq!(
            tenant_of("workflow-dispatch:acme/site/sync.yml@main"),
            "acme/site"
        );
        assert_eq!(tenant_of("exec:/usr/bin/sync --all"), "exec:/usr/bin/sync");
        assert_eq!(tenant_of("other:thing"), "other:thing");
    }
}
