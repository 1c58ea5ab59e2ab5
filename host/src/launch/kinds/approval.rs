//! The `environment-gate` kind: `environment-gate:OWNER/REPO/RUN_ID/ENVIRONMENT`, a job that
//! waits behind an environment whose custom deployment protection rule is this host's GitHub
//! App. Its launch is the approval ([`decide`]): the job then runs in its own
//! run, where the Action still gates with a fresh read of the quota (the approval is admission,
//! not proof of quota).
//!
//! Only the webhook records these targets ([`crate::ops::gate::take`]); `--allow-launch` must
//! name them for any other entry. The environment's name is percent-encoded in the target
//! (every byte but `A-Z a-z 0-9 . _ -`), so a target is one word.
//!
//! The approval is sent once: a claim of this kind is `dispatching` until GitHub answers, and a
//! ticker that stopped meanwhile leaves it `dispatch-unknown` for an operator (as a dispatch).
//! An approval GitHub took completes the deferral; its admission stays charged to the window
//! the job spends in. One GitHub refused (the run is gone or was decided) blocks it with cause
//! `gate-refused`, which is not answered again.

use crate::error::HostError;
use crate::launch::attempt::{Attempt, LaunchPass};
use crate::launch::kind::{invalid, Launcher, Target};
use crate::launch::launched::{LaunchEnd, Launched};
use crate::lifecycle;
use crate::lifecycle::outcome::Outcome;
pub mod decide;

use crate::store::{AttemptStatus, Change, Deferral, Lease, Store};
use decide::{Answered, Decision};

pub struct EnvironmentGate;

/// The kind's name.
pub const NAME: &str = "environment-gate";
/// The cause of a deferral whose approval GitHub refused.
pub const CAUSE_REFUSED: &str = "gate-refused";

/// The target of `environment` of run `run_id` in `repo` (`owner/name`).
pub fn target(repo: &str, run_id: u64, environment: &str) -> String {
    let mut encoded = String::new();
    for b in environment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-') {
            encoded.push(char::from(b));
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    format!("{NAME}:{repo}/{run_id}/{encoded}")
}

fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = text.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-') => {
                out.push(b);
                i += 1;
            }
            _ => return None,
        }
    }
    String::from_utf8(out).ok()
}

impl Launcher for EnvironmentGate {
    fn name(&self) -> &'static str {
        NAME
    }

    fn form(&self) -> &'static str {
        "environment-gate:OWNER/REPO/RUN_ID/ENVIRONMENT"
    }

    /// Owner, repository, run id and the environment's name (decoded).
    fn parse(&self, text: &str, rest: &str) -> Result<Vec<String>, HostError> {
        let bad = |why: &str| invalid(text, format!("{why}: use {}", self.form()));
        let [owner, repo, run, environment] = rest.split('/').collect::<Vec<_>>()[..] else {
            return Err(bad("is not OWNER/REPO/RUN_ID/ENVIRONMENT"));
        };
        crate::launch::github_names::check_repo(&format!("{owner}/{repo}"))
            .map_err(|e| invalid(text, e.message))?;
        if run.parse::<u64>().is_err() {
            return Err(bad("has a run id that is not a number"));
        }
        let environment = decode(environment)
            .filter(|e| !e.is_empty() && !e.chars().any(char::is_control))
            .ok_or_else(|| bad("has an environment that is not percent-encoded"))?;
        Ok(vec![owner.into(), repo.into(), run.into(), environment])
    }

    /// A GitHub App, reachable, with quota left: only an installation token may answer a rule.
    fn not_ready(&self, pass: &LaunchPass<'_>) -> Option<String> {
        match pass.github {
            None => Some("no GitHub App (--github-app-id) to approve with".into()),
            Some(client) if !client.is_app() => Some(
                "only a GitHub App (--github-app-id) may answer a deployment protection rule"
                    .into(),
            ),
            Some(client) => client.not_ready(),
        }
    }

    fn claimed_status(&self) -> AttemptStatus {
        AttemptStatus::Dispatching
    }

    fn launch(&self, target: &Target, run: &Attempt<'_>) -> Launched {
        let [owner, repo, run_id, environment] = target.parts() else {
            unreachable!("an environment-gate target has four parts");
        };
        let Some(client) = run.pass.github else {
            return run.record_outcome(Outcome::Returned {
                detail: "approval not sent: no GitHub App".into(),
            });
        };
        let repo = format!("{owner}/{repo}");
        let run_id: u64 = run_id.parse().unwrap_or_default();
        let comment = approval_comment(run.store(), run.id(), run.now_ms());
        match decide::decide(
            client,
            &repo,
            run_id,
            environment,
            Decision::Approved,
            &comment,
        ) {
            Answered::Taken(status) => run.record_outcome(Outcome::Complete {
                detail: Some(format!("approved: HTTP {status}")),
            }),
            // Nothing reached GitHub: the claim is given back, no re-entry spent.
            Answered::NotTaken(message) if client.unreachable().is_some() => {
                give_back(run, format!("approval not sent: {message}"))
            }
            Answered::NotTaken(message) => run.record_outcome(Outcome::Returned {
                detail: format!("approval not taken: {message}"),
            }),
            Answered::Refused(status, message) => run.record_outcome(Outcome::BlockedBecause {
                cause: CAUSE_REFUSED.into(),
                detail: Some(format!("approval refused: HTTP {status}: {message}")),
            }),
            Answered::Unknown(message) => unknown(run, message),
        }
    }

    /// As a dispatch: an approval that was being sent becomes `dispatch-unknown`.
    fn recover(
        &self,
        store: &dyn Store,
        d: &Deferral,
        now_ms: u64,
    ) -> Result<Option<Deferral>, HostError> {
        super::workflow_dispatch::WorkflowDispatch.recover(store, d, now_ms)
    }
}

/// What the approval says: when the pool admitted the job.
fn approval_comment(store: &dyn Store, id: &str, now_ms: u64) -> String {
    let pool = crate::pools::pool_name_of(store, id);
    format!(
        "deferral-host: pool {pool} has room for this job (deferral {id}), approved at {}; the job's own gate still reads the quota.",
        crate::clock::iso8601(now_ms)
    )
}

/// Gives the claim back (see [`lifecycle::claim::give_back`]).
fn give_back(run: &Attempt<'_>, detail: String) -> Launched {
    let (id, attempt) = (run.id(), run.attempt());
    match lifecycle::claim::give_back(run.store(), &run.claimed.deferral, detail, run.now_ms()) {
        Ok(after) => Launched::new(id, attempt, LaunchEnd::GivenBack(after)),
        Err(err) => Launched::failed(id, Some(attempt), err),
    }
}

/// Sent without a known answer: held as `dispatch-unknown` until an operator resolves it, so
/// the approval is never sent twice.
fn unknown(run: &Attempt<'_>, message: String) -> Launched {
    let (id, attempt, claimed) = (run.id(), run.attempt(), run.claimed);
    let status = AttemptStatus::DispatchUnknown;
    let effects = lifecycle::change::Effects {
        detail: Some(format!("approval sent, answer unknown: {message}")),
        attempt_status: Change::Set(status),
        lease: Change::Set(Lease {
            owner: "operator".into(),
            until_ms: claimed.deferral.resume_by_ms,
        }),
        ..Default::default()
    };
    let event = "dispatch-unknown";
    match lifecycle::change::note(
        run.store(),
        &claimed.deferral,
        event,
        event,
        effects,
        run.now_ms(),
    ) {
        Ok(after) => Launched::new(
            id,
            attempt,
            LaunchEnd::Held {
                state: after.state,
                attempt_status: status,
                detail: after.detail,
                run: None,
            },
        ),
        Err(err) => Launched::failed(id, Some(attempt), err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::Launchers;

    #[test]
    fn a_target_names_the_run_and_the_environment_in_one_word() {
        let text = target("octo/app", 1234, "prod / eu%1");
        assert_eq!(text, "environment-gate:octo/app/1234/prod%20%2F%20eu%251");
        let parsed = Launchers::builtin().parse(&text).unwrap();
        assert_eq!(parsed.parts(), ["octo", "app", "1234", "prod / eu%1"]);
        for bad in [
            "environment-gate:octo/app/1234",
            "environment-gate:octo/app/x/prod",
            "environment-gate:octo/app/1/prod env",
            "environment-gate:octo/app/1/%zz",
            "environment-gate:octo/app/1/",
        ] {
            assert_eq!(
                Launchers::builtin().parse(bad).unwrap_err().code,
                "invalid-launch",
                "{bad}"
            );
        }
    }
}
