//! Launch targets: how a claimed deferral starts its fresh process.
//!
//! * `exec:COMMAND`: a local command run by `sh -c` (see [`exec`]).
//! * `workflow-dispatch:OWNER/REPO/WORKFLOW@REF`: a GitHub `workflow_dispatch` (see [`dispatch`]).

pub mod dispatch;
pub mod exec;

use crate::error::HostError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Exec {
        command: String,
    },
    WorkflowDispatch {
        owner: String,
        repo: String,
        workflow: String,
        git_ref: String,
    },
}

fn segment_ok(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

impl Target {
    pub fn parse(text: &str) -> Result<Target, HostError> {
        if let Some(command) = text.strip_prefix("exec:") {
            if command.trim().is_empty() {
                return Err(HostError::invalid(
                    "invalid-launch",
                    "exec: needs a command, e.g. exec:./resume.sh",
                ));
            }
            return Ok(Target::Exec {
                command: command.to_string(),
            });
        }
        if let Some(rest) = text.strip_prefix("workflow-dispatch:") {
            let bad = || {
                HostError::invalid(
                    "invalid-launch",
                    format!("{text:?} is not workflow-dispatch:OWNER/REPO/WORKFLOW@REF (e.g. workflow-dispatch:octo/app/sync.yml@main)"),
                )
            };
            let (path, git_ref) = rest.split_once('@').ok_or_else(bad)?;
            let parts: Vec<&str> = path.split('/').collect();
            if parts.len() != 3
                || !parts.iter().all(|p| segment_ok(p))
                || git_ref.is_empty()
                || git_ref.contains(char::is_whitespace)
            {
                return Err(bad());
            }
            return Ok(Target::WorkflowDispatch {
                owner: parts[0].to_string(),
                repo: parts[1].to_string(),
                workflow: parts[2].to_string(),
                git_ref: git_ref.to_string(),
            });
        }
        Err(HostError::invalid(
            "invalid-launch",
            format!("{text:?} is not a launch target: use exec:COMMAND or workflow-dispatch:OWNER/REPO/WORKFLOW@REF"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_targets() {
        assert_eq!(
            Target::parse("exec:./run.sh --x").unwrap(),
            Target::Exec {
                command: "./run.sh --x".into()
            }
        );
        assert_eq!(
            Target::parse("workflow-dispatch:octo/app/sync.yml@main").unwrap(),
            Target::WorkflowDispatch {
                owner: "octo".into(),
                repo: "app".into(),
                workflow: "sync.yml".into(),
                git_ref: "main".into()
            }
        );
        for bad in [
            "",
            "exec:",
            "ssh:x",
            "workflow-dispatch:octo/app@main",
            "workflow-dispatch:o/r/w",
            "workflow-dispatch:o/r/../w@x/",
        ] {
            assert_eq!(
                Target::parse(bad).unwrap_err().code,
                "invalid-launch",
                "{bad}"
            );
        }
    }
}
