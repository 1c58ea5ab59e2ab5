//! Launch targets: how a claimed deferral starts its fresh process.
//!
//! * `exec:PROGRAM [ARG...]`: a local program, by absolute path, run directly with its
//!   arguments: no shell, no expansion (see [`words`] for the quoting, [`exec`] for the run).
//! * `workflow-dispatch:OWNER/REPO/WORKFLOW@REF`: a GitHub `workflow_dispatch` (see
//!   [`crate::github::dispatch`]), each part checked against GitHub's rules ([`github_names`]).
//!
//! A target is parsed when it is recorded (anything that does not parse is `invalid-launch`)
//! and parsed again, from the stored text, when it is launched.

pub mod exec;
pub mod github_names;
pub mod installed;
pub mod process_group;
pub mod words;

use crate::error::HostError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Exec {
        /// An absolute path.
        program: String,
        args: Vec<String>,
    },
    WorkflowDispatch {
        owner: String,
        repo: String,
        workflow: String,
        git_ref: String,
    },
}

fn invalid(text: &str, why: impl std::fmt::Display) -> HostError {
    HostError::invalid("invalid-launch", format!("launch target {text:?} {why}"))
}

impl Target {
    /// Parses a launch target; every refusal is `invalid-launch` with a sentence saying why.
    pub fn parse(text: &str) -> Result<Target, HostError> {
        if let Some(command) = text.strip_prefix("exec:") {
            let mut words = words::split(command)
                .map_err(|e| invalid(text, e))?
                .into_iter();
            let program = words.next().unwrap_or_default();
            if !program.starts_with('/') {
                return Err(invalid(
                    text,
                    format!(
                        "names the program {program:?} by a relative path: give its absolute path \
                         (no PATH lookup), e.g. exec:/usr/local/bin/resume-sync"
                    ),
                ));
            }
            return Ok(Target::Exec {
                program,
                args: words.collect(),
            });
        }
        if let Some(rest) = text.strip_prefix("workflow-dispatch:") {
            let bad = |why: &str| {
                invalid(
                    text,
                    format!("{why}: use workflow-dispatch:OWNER/REPO/WORKFLOW@REF (e.g. workflow-dispatch:octo/app/sync.yml@main)"),
                )
            };
            let (path, git_ref) = rest.split_once('@').ok_or_else(|| bad("has no @REF"))?;
            let [owner, repo, workflow] = path.split('/').collect::<Vec<_>>()[..] else {
                return Err(bad("is not OWNER/REPO/WORKFLOW"));
            };
            if let Some(part) = github_names::first_bad_part(owner, repo, workflow, git_ref) {
                return Err(bad(&format!("has a {part} that GitHub does not allow")));
            }
            return Ok(Target::WorkflowDispatch {
                owner: owner.to_string(),
                repo: repo.to_string(),
                workflow: workflow.to_string(),
                git_ref: git_ref.to_string(),
            });
        }
        Err(invalid(
            text,
            "is not a launch target: use exec:/ABSOLUTE/PROGRAM [ARGS] or workflow-dispatch:OWNER/REPO/WORKFLOW@REF",
        ))
    }
}

/// What `serve --allow-launch` lets a caller name. Each entry is one of:
///
/// * `exec:` or `workflow-dispatch:` alone: any target of that kind;
/// * `exec:/path/program`: that program exactly, with any arguments;
/// * `exec:/path/program ARG...`: that program with exactly those arguments;
/// * `workflow-dispatch:OWNER/REPO/WORKFLOW@REF`: that target exactly.
///
/// Entries are parsed as targets, so `exec:/opt/resume-` names the program `/opt/resume-`
/// and nothing else: there is no prefix matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchPolicy {
    entries: Vec<Allowed>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Allowed {
    AnyExec,
    AnyDispatch,
    Program(String),
    Exact(Target),
}

impl LaunchPolicy {
    /// Parses `--allow-launch` entries (an entry that is not a target is `invalid-launch`).
    pub fn parse(entries: &[String]) -> Result<LaunchPolicy, HostError> {
        let entries = entries
            .iter()
            .map(|entry| match entry.as_str() {
                "exec:" => Ok(Allowed::AnyExec),
                "workflow-dispatch:" => Ok(Allowed::AnyDispatch),
                _ => match Target::parse(entry)? {
                    Target::Exec { program, args } if args.is_empty() => {
                        Ok(Allowed::Program(program))
                    }
                    target => Ok(Allowed::Exact(target)),
                },
            })
            .collect::<Result<_, HostError>>()?;
        Ok(LaunchPolicy { entries })
    }

    /// The target `text` names, if this port may record it: `launch-not-allowed` when no entry
    /// allows its kind or it is not one the entries name, `invalid-launch` when it does not parse.
    pub fn check(&self, text: &str) -> Result<Target, HostError> {
        let refused = || {
            HostError::refused(
                "launch-not-allowed",
                format!(
                    "this port does not accept the launch target {text:?}; --allow-launch permits: {}",
                    self.describe()
                ),
            )
        };
        let kind_allowed = self.entries.iter().any(|entry| match entry {
            Allowed::AnyExec | Allowed::Program(_) => text.starts_with("exec:"),
            Allowed::AnyDispatch => text.starts_with("workflow-dispatch:"),
            Allowed::Exact(Target::Exec { .. }) => text.starts_with("exec:"),
            Allowed::Exact(Target::WorkflowDispatch { .. }) => {
                text.starts_with("workflow-dispatch:")
            }
        });
        if !kind_allowed {
            return Err(refused());
        }
        let target = Target::parse(text)?;
        if self.allows(&target) {
            Ok(target)
        } else {
            Err(refused())
        }
    }

    fn describe(&self) -> String {
        let names: Vec<String> = self
            .entries
            .iter()
            .map(|entry| match entry {
                Allowed::AnyExec => "any exec: program".to_string(),
                Allowed::AnyDispatch => "any workflow-dispatch: target".to_string(),
                Allowed::Program(program) => format!("exec:{program} with any arguments"),
                Allowed::Exact(Target::Exec { program, args }) => {
                    let mut all = vec![program.clone()];
                    all.extend(args.iter().cloned());
                    format!("exactly exec:{}", words::join(&all))
                }
                Allowed::Exact(Target::WorkflowDispatch {
                    owner,
                    repo,
                    workflow,
                    git_ref,
                }) => format!("exactly workflow-dispatch:{owner}/{repo}/{workflow}@{git_ref}"),
            })
            .collect();
        names.join("; ")
    }

    /// Whether `target` may be recorded through this port.
    pub fn allows(&self, target: &Target) -> bool {
        self.entries.iter().any(|entry| match (entry, target) {
            (Allowed::AnyExec, Target::Exec { .. }) => true,
            (Allowed::AnyDispatch, Target::WorkflowDispatch { .. }) => true,
            (Allowed::Program(allowed), Target::Exec { program, .. }) => allowed == program,
            (Allowed::Exact(allowed), target) => allowed == target,
            _ => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exec(program: &str, args: &[&str]) -> Target {
        Target::Exec {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn parses_targets() {
        assert_eq!(
            Target::parse("exec:/opt/run.sh --x 'a b'").unwrap(),
            exec("/opt/run.sh", &["--x", "a b"])
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
            "exec:true",
            "exec:./run.sh",
            "exec:/bin/run; id",
            "exec:/bin/run\nid",
            "ssh:x",
            "workflow-dispatch:octo/app@main",
            "workflow-dispatch:o/r/w",
            "workflow-dispatch:o/r/../w@x/",
            "workflow-dispatch:o/r/w.yml@a/../b",
            "workflow-dispatch:o/r/w.yml@main\r",
        ] {
            assert_eq!(
                Target::parse(bad).unwrap_err().code,
                "invalid-launch",
                "{bad}"
            );
        }
    }

    #[test]
    fn policy_matches_programs_exactly_never_by_prefix() {
        let entries = [
            "exec:/opt/resume-",
            "exec:/opt/sync --fast",
            "workflow-dispatch:o/r/w.yml@main",
        ]
        .map(String::from);
        let policy = LaunchPolicy::parse(&entries).unwrap();
        let allowed = |t: &str| policy.allows(&Target::parse(t).unwrap());
        assert!(allowed("exec:/opt/resume-"));
        assert!(allowed("exec:/opt/resume- any 'args'"));
        assert!(!allowed("exec:/opt/resume-x"));
        assert!(!allowed("exec:/opt/resume-/../../bin/sh"));
        assert!(allowed("exec:/opt/sync --fast"));
        assert!(!allowed("exec:/opt/sync"));
        assert!(!allowed("exec:/opt/sync --fast --more"));
        assert!(allowed("workflow-dispatch:o/r/w.yml@main"));
        assert!(!allowed("workflow-dispatch:o/r/w.yml@dev"));
        let any = LaunchPolicy::parse(&["workflow-dispatch:".into()]).unwrap();
        assert!(any.allows(&Target::parse("workflow-dispatch:a/b/c.yml@x").unwrap()));
        assert!(!any.allows(&Target::parse("exec:/bin/true").unwrap()));
        assert_eq!(
            LaunchPolicy::parse(&["exec:resume".into()])
                .unwrap_err()
                .code,
            "invalid-launch"
        );
    }
}
