//! What `serve --allow-launch` lets a caller name. Each entry is one of:
//!
//! * `KIND:` alone (`exec:`, `workflow-dispatch:`): any target of that kind;
//! * a target: the targets its kind says that entry allows ([`Launcher::allows`]): for
//!   `exec:/path/program`, that program with any arguments; for `exec:/path/program ARG...`,
//!   that program with exactly those arguments; for any other target, that target exactly.
//!
//! Entries are parsed as targets, so `exec:/opt/resume-` names the program `/opt/resume-`
//! and nothing else: there is no prefix matching.

use super::kind::{Launcher, Target};
use super::Launchers;
use crate::error::{HostError, HostErrorKind};
use std::fmt;

#[derive(Clone)]
pub struct LaunchPolicy {
    entries: Vec<Allowed>,
    launchers: Launchers,
}

#[derive(Clone)]
enum Allowed {
    Any(&'static dyn Launcher),
    Entry(Target),
}

impl Allowed {
    fn kind(&self) -> &'static dyn Launcher {
        match self {
            Allowed::Any(kind) => *kind,
            Allowed::Entry(entry) => entry.kind(),
        }
    }
}

impl LaunchPolicy {
    /// Parses `--allow-launch` entries (an entry that is not a target is `invalid-launch`).
    pub fn parse(launchers: &Launchers, entries: &[String]) -> Result<LaunchPolicy, HostError> {
        let entries = entries
            .iter()
            .map(|entry| {
                let any = launchers
                    .kind_of(entry)
                    .filter(|kind| entry.len() == kind.name().len() + 1);
                match any {
                    Some(kind) => Ok(Allowed::Any(kind)),
                    None => launchers.parse(entry).map(Allowed::Entry),
                }
            })
            .collect::<Result<_, HostError>>()?;
        Ok(LaunchPolicy {
            entries,
            launchers: launchers.clone(),
        })
    }

    /// Without `--allow-launch`: any target of the kinds allowed by default
    /// ([`Launcher::allowed_by_default`]: `workflow-dispatch`, since an `exec:` target runs a
    /// program on this host).
    pub fn by_default(launchers: &Launchers) -> LaunchPolicy {
        LaunchPolicy {
            entries: launchers
                .iter()
                .filter(|kind| kind.allowed_by_default())
                .map(Allowed::Any)
                .collect(),
            launchers: launchers.clone(),
        }
    }

    /// The entries that are targets (not `KIND:` alone), for the door check of each.
    pub fn targets(&self) -> impl Iterator<Item = &Target> {
        self.entries.iter().filter_map(|entry| match entry {
            Allowed::Entry(target) => Some(target),
            Allowed::Any(_) => None,
        })
    }

    /// The target `text` names, if this port may record it: `launch-not-allowed` when no entry
    /// allows its kind or it is not one the entries name, `invalid-launch` when it does not parse.
    pub fn check(&self, text: &str) -> Result<Target, HostError> {
        let refused = || {
            HostError::new(
                HostErrorKind::LaunchNotAllowed,
                format!(
                    "this port does not accept the launch target {text:?}; --allow-launch permits: {}",
                    self.describe()
                ),
            )
        };
        let kind = self.launchers.kind_of(text).map(Launcher::name);
        let kind_allowed = self
            .entries
            .iter()
            .any(|entry| Some(entry.kind().name()) == kind);
        if !kind_allowed {
            return Err(refused());
        }
        let target = self.launchers.parse(text)?;
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
                Allowed::Any(kind) => kind.describe_any(),
                Allowed::Entry(target) => target.kind().describe_entry(target),
            })
            .collect();
        names.join("; ")
    }

    /// Whether `target` may be recorded through this port.
    pub fn allows(&self, target: &Target) -> bool {
        let kind = target.kind().name();
        self.entries.iter().any(|entry| match entry {
            Allowed::Any(any) => any.name() == kind,
            Allowed::Entry(allowed) => {
                allowed.kind().name() == kind && allowed.kind().allows(allowed, target)
            }
        })
    }
}

impl fmt::Debug for LaunchPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Target {
        Launchers::builtin().parse(text).unwrap()
    }

    #[test]
    fn policy_matches_programs_exactly_never_by_prefix() {
        let entries = [
            "exec:/opt/resume-",
            "exec:/opt/sync --fast",
            "workflow-dispatch:o/r/w.yml@main",
        ]
        .map(String::from);
        let launchers = Launchers::builtin();
        let policy = LaunchPolicy::parse(&launchers, &entries).unwrap();
        let allowed = |t: &str| policy.allows(&parse(t));
        assert!(allowed("exec:/opt/resume-"));
        assert!(allowed("exec:/opt/resume- any 'args'"));
        assert!(!allowed("exec:/opt/resume-x"));
        assert!(!allowed("exec:/opt/resume-/../../bin/sh"));
        assert!(allowed("exec:/opt/sync --fast"));
        assert!(!allowed("exec:/opt/sync"));
        assert!(!allowed("exec:/opt/sync --fast --more"));
        assert!(allowed("workflow-dispatch:o/r/w.yml@main"));
        assert!(!allowed("workflow-dispatch:o/r/w.yml@dev"));
        let any = LaunchPolicy::parse(&launchers, &["workflow-dispatch:".into()]).unwrap();
        assert!(any.allows(&parse("workflow-dispatch:a/b/c.yml@x")));
        assert!(!any.allows(&parse("exec:/bin/true")));
        assert_eq!(
            LaunchPolicy::parse(&launchers, &["exec:resume".into()])
                .unwrap_err()
                .code,
            "invalid-launch"
        );
    }

    #[test]
    fn a_refusal_names_what_the_entries_permit() {
        let entries = [
            "exec:",
            "exec:/opt/resume",
            "exec:/opt/sync --fast 'a b'",
            "workflow-dispatch:",
            "workflow-dispatch:o/r/w.yml@main",
        ]
        .map(String::from);
        let policy = LaunchPolicy::parse(&Launchers::builtin(), &entries).unwrap();
        assert_eq!(
            format!("{policy:?}"),
            "any exec: program; exec:/opt/resume with any arguments; \
             exactly exec:/opt/sync --fast 'a b'; any workflow-dispatch: target; \
             exactly workflow-dispatch:o/r/w.yml@main"
        );
        let by_default = LaunchPolicy::by_default(&Launchers::builtin());
        let err = by_default.check("exec:/bin/true").unwrap_err();
        assert_eq!(err.code, "launch-not-allowed");
        assert!(
            err.message
                .ends_with("--allow-launch permits: any workflow-dispatch: target"),
            "{}",
            err.message
        );
        // A kind no entry allows is refused before its text is parsed.
        assert_eq!(
            by_default.check("exec:relative").unwrap_err().code,
            "launch-not-allowed"
        );
        assert_eq!(
            by_default.check("workflow-dispatch:o/r").unwrap_err().code,
            "invalid-launch"
        );
    }
}
