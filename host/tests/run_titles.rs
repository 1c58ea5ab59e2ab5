//! The 204 fallback of `workflow-dispatch:` finds the attempt's run by its title, and only by
//! the exact `run-name` of docs/examples/resume.yml (`Resume ID #ATTEMPT`): a run of another
//! attempt (`Resume ID #12` for attempt 1) or a planted title holding it is never taken.

mod common;

use common::github::{Origin, Script, Standin, DEFAULT_BRANCH, TARGET, WORKFLOW};
use common::github_cli::tick;
use common::{Host, HOUR};

#[test]
fn only_the_exact_run_name_is_the_attempts_run() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        answer_204: true,
        ..Script::default()
    });
    tick(&host, &standin);
    let attempt = standin.state.lock().unwrap().dispatches[0]["inputs"]["attempt"]
        .as_str()
        .unwrap()
        .to_string();
    let title = format!("Resume {id} #{attempt}");
    // The dispatched run carries another attempt's title; a planted run holds the right one
    // inside a longer title.
    let dispatched = {
        let mut state = standin.state.lock().unwrap();
        let run = state.runs.last_mut().unwrap();
        run.display_title = format!("{title}2");
        run.id
    };
    let planted = standin.completed_run(
        Origin {
            event: "workflow_dispatch",
            path: format!(".github/workflows/{WORKFLOW}"),
            head_branch: DEFAULT_BRANCH.into(),
            fork: false,
        },
        &format!("Not the host: {title}"),
    );
    let second = tick(&host, &standin);
    assert_eq!(
        second.json["waiting"][0]["why"], "no run found yet",
        "{}",
        second.output
    );
    assert!(
        second.json["followed"].as_array().unwrap().is_empty(),
        "{}",
        second.output
    );
    let status = host.status(&id);
    assert_eq!(
        (status["attempt_status"].as_str(), status["run_id"].as_u64()),
        (Some("dispatched"), None),
        "{status}"
    );
    // Its own title: taken, and it is the dispatched run, not the planted one.
    standin
        .state
        .lock()
        .unwrap()
        .runs
        .iter_mut()
        .find(|r| r.id == dispatched)
        .unwrap()
        .display_title = title;
    let third = tick(&host, &standin);
    assert_eq!(
        third.json["followed"][0]["run_id"], dispatched,
        "{}",
        third.output
    );
    assert_ne!(dispatched, planted);
    assert_eq!(host.status(&id)["state"], "complete");
}
