//! Launch targets: how a claimed deferral starts its fresh process.
//!
//! A target is `KIND:REST`, and each kind is one [`Launcher`] in its own file under
//! [`kinds`]:
//!
//! * `exec:PROGRAM [ARG...]`: a local program, by absolute path, run directly with its
//!   arguments: no shell, no expansion ([`kinds::exec`]; [`words`] for the quoting, [`exec`]
//!   for the run);
//! * `workflow-dispatch:OWNER/REPO/WORKFLOW@REF`: a GitHub `workflow_dispatch`
//!   ([`kinds::workflow_dispatch`]), each part checked against GitHub's rules
//!   ([`github_names`]).
//!
//! A target is parsed ([`Launchers::parse`]) where it is given (`record`, `serve`, `watch`,
//! `retry`; anything that does not parse is `invalid-launch`) and parsed again, from the
//! stored text, when it is launched. The kind a target's text names is the text before its
//! first colon, which the store keeps in a column of its own (see
//! [`crate::store::launch_kind`]).

pub mod attempt;
pub mod exec;
pub mod exec_outcome;
pub mod github_names;
pub mod installed;
pub mod kind;
pub mod kinds;
pub mod launched;
pub mod launchers;
pub mod policy;
pub mod process_group;
pub mod recover;
pub mod report_file;
pub mod words;

pub use self::attempt::{Attempt, LaunchPass};
pub use self::kind::{Launcher, Target};
pub use self::launched::{LaunchEnd, Launched};
pub use self::launchers::Launchers;
pub use self::policy::LaunchPolicy;

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Target, crate::error::HostError> {
        Launchers::builtin().parse(text)
    }

    #[test]
    fn parses_targets() {
        let exec = parse("exec:/opt/run.sh --x 'a b'").unwrap();
        assert_eq!(
            (exec.kind().name(), exec.parts()),
            ("exec", &["/opt/run.sh", "--x", "a b"].map(String::from)[..])
        );
        let dispatch = parse("workflow-dispatch:octo/app/sync.yml@main").unwrap();
        assert_eq!(
            (dispatch.kind().name(), dispatch.parts()),
            (
                "workflow-dispatch",
                &["octo", "app", "sync.yml", "main"].map(String::from)[..]
            )
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
            assert_eq!(parse(bad).unwrap_err().code, "invalid-launch", "{bad}");
        }
        assert_eq!(
            parse("ssh:x").unwrap_err().message,
            "launch target \"ssh:x\" is not a launch target: use exec:/ABSOLUTE/PROGRAM [ARGS] \
             or workflow-dispatch:OWNER/REPO/WORKFLOW@REF \
             or environment-gate:OWNER/REPO/RUN_ID/ENVIRONMENT"
        );
    }
}
