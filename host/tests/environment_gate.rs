//! The environment gate through the real `deferral-host run`, as a GitHub App, against the
//! GitHub stand-in on loopback: jobs waiting behind an environment whose protection rule is the
//! App arrive as signed `deployment_protection_rule` deliveries; the pool their `[[gate]]`
//! table names has a 45-request window every 3 s (GET /rate_limit, read each pass with the
//! App's installation token) and each job costs 10, so 4 fit a window. The host approves them
//! through the callback in waves, each once, never more than fit a window; a redelivery or the
//! same rule requested again changes nothing; a job whose resume-by cannot be met (behind
//! higher priorities, or arriving after it) is rejected with a comment saying why. The same
//! with two `run` replicas on one PostgreSQL store, the deliveries split between them and the
//! same delivery sent to both at once: 24 jobs, each approved once.

mod common;

use common::gate::{requested, sha_of, Decision, StatusPost};
use common::github::Standin;
use common::signing::app_key_pair;
use common::webhook::{secret_file, within, HookServe};
use common::Host;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

const WINDOW_S: u64 = 3;
/// 4 jobs of 10 fit 45 less the reserve.
const FIT: usize = 4;

fn config(host: &Host, key: &std::path::Path) -> String {
    let path = host.path("host.toml");
    let text = format!(
        r#"github-webhook-secret-file = {secrets:?}
http-timeout = "5s"
github-app-id = "4242"
github-app-key = {key:?}
rate-limit-pool = "app-42"
rate-limit-repo = "octo-org/app"
pool-buffer = "200ms"
pool-jitter = "0s"

[[gate]]
repo = "octo-org/app"
environment = "github-quota"
pool = "app-42"
cost = 10
priority = 1
commit-status = true

[[gate]]
repo = "octo-org/app"
environment = "nightly"
pool = "app-42"
cost = {{ rest = 10 }}
resume-by = "2s"
commit-status = true
"#,
        secrets = secret_file(host).display().to_string(),
        key = key.display().to_string(),
    );
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn decisions(standin: &Standin) -> Vec<Decision> {
    standin.state.lock().unwrap().gate_decisions.clone()
}

/// The calls the stand-in answered, one line each, in order.
fn seen_calls(standin: &Standin) -> String {
    let state = standin.state.lock().unwrap();
    let lines: Vec<String> = (state.seen.iter())
        .map(|s| format!("{} {} {}", s.method, s.path, s.status))
        .collect();
    lines.join("\n")
}

fn deliver(run: &HookServe, delivery: &str, body: &Value) -> Value {
    let (status, answer) = run.deliver_signed(
        "deployment_protection_rule",
        delivery,
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{answer}\n{}", run.log_text());
    answer
}

#[test]
fn waiting_jobs_are_approved_in_waves_each_once_and_an_unmeetable_one_is_rejected() {
    let host = Host::new();
    approved_in_waves(&[host], 12);
}

#[test]
fn postgres_two_replicas_approve_each_waiting_job_once() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    let first = Host::with_store(&schema.url).init();
    let second = Host::with_store(&schema.url);
    approved_in_waves(&[first, second], 24);
}

/// `jobs` jobs behind the gate, delivered to the replicas (one `run` per host, one store) in
/// turn; then the unmeetable ones, the redeliveries and the same rule asked again.
fn approved_in_waves(hosts: &[Host], jobs: u64) {
    let (key, public) = app_key_pair(hosts[0].dir.path());
    let standin = Standin::start();
    {
        let mut state = standin.state.lock().unwrap();
        state.app_public_key = Some(public);
        state.app_id = "4242".into();
        state.rate_window = Some((WINDOW_S, 45));
    }
    let mut runs: Vec<HookServe> = hosts
        .iter()
        .map(|host| {
            let config = config(host, &key);
            HookServe::start_command(host, &standin, "run", &["--config", &config])
        })
        .collect();
    let replica = |n: u64| &runs[n as usize % runs.len()];
    let logs = |runs: &[HookServe]| {
        runs.iter()
            .map(HookServe::log_text)
            .collect::<Vec<_>>()
            .join("\n---\n")
    };
    let api = standin.api.clone();
    let mut ids = BTreeMap::new();
    let mut bodies = BTreeMap::new();
    for n in 0..jobs {
        let body = requested(&api, 5000 + n, "github-quota", 9000 + n, 1);
        let answer = deliver(replica(n), &format!("gate-delivery-{n}"), &body);
        assert_eq!(answer["recorded"], true, "{answer}");
        ids.insert(5000 + n, answer["deferral"].as_str().unwrap().to_string());
        bodies.insert(5000 + n, body);
    }
    // Behind the jobs of priority 1, this one cannot start in its 2 s.
    let nightly = deliver(
        replica(0),
        "gate-nightly",
        &requested(&api, 6001, "nightly", 9100, 0),
    );
    assert_eq!(nightly["recorded"], true, "{nightly}");
    // This one began to wait 7 hours ago: its resume-by (6 h) passed before it arrived.
    let late_body = requested(&api, 7001, "github-quota", 9200, 7 * 3600);
    let late = deliver(replica(1), "gate-late", &late_body);
    assert_eq!(
        (&late["recorded"], &late["late"]),
        (&json!(true), &json!(true)),
        "{late}"
    );
    // GitHub redelivers one (the same X-GitHub-Delivery, to another replica), and asks again
    // for another.
    let again = deliver(replica(1), "gate-delivery-0", &bodies[&5000]);
    assert_eq!(
        (&again["already"], &again["deferral"]),
        (&json!(true), &json!(ids[&5000])),
        "{again}"
    );
    let again = deliver(replica(0), "gate-asked-again-1", &bodies[&5001]);
    assert_eq!(again["already"], true, "{again}");
    // The same new request reaches every replica at once: one of them records it.
    let raced = requested(&api, 8001, "github-quota", 9300, 1);
    let answers: Vec<Value> = std::thread::scope(|scope| {
        let sent: Vec<_> = runs
            .iter()
            .map(|run| scope.spawn(|| deliver(run, "gate-raced", &raced)))
            .collect();
        sent.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let recorded = answers.iter().filter(|a| a["recorded"] == true).count();
    assert_eq!(recorded, 1, "recorded once: {answers:?}");
    let raced_id = answers.iter().find(|a| a["recorded"] == true).unwrap()["deferral"]
        .as_str()
        .unwrap()
        .to_string();
    ids.insert(8001, raced_id);
    let approvals_due = ids.len();

    let all_answered = within(Duration::from_secs(60), || {
        let d = decisions(&standin);
        let approvals = d.iter().filter(|d| d.state == "approved").count();
        let rejections = d.iter().filter(|d| d.state == "rejected").count();
        (approvals >= approvals_due && rejections >= 2).then_some(d)
    });
    let seen = all_answered.unwrap_or_else(|| {
        panic!(
            "not all answered: {:#?}\n{}",
            decisions(&standin),
            logs(&runs)
        )
    });
    let ended = within(Duration::from_secs(10), || {
        ids.values()
            .all(|id| hosts[0].status(id)["state"] == "complete")
            .then_some(())
    });
    assert!(ended.is_some(), "{}", logs(&runs));

    // Every approval and rejection is taken. A progress report (no state) may cross another
    // replica's approval of the same job between its re-read and its call, and GitHub then
    // refuses it: harmless, and not closable without a lock held across the HTTP call.
    assert!(
        seen.iter().all(|d| d.taken || d.state.is_empty()),
        "no decision was refused: {seen:#?}"
    );
    let approved: Vec<&Decision> = seen.iter().filter(|d| d.state == "approved").collect();
    let mut approved_runs: Vec<u64> = approved.iter().map(|d| d.run_id).collect();
    approved_runs.sort_unstable();
    assert_eq!(
        approved_runs,
        ids.keys().copied().collect::<Vec<_>>(),
        "each approved once"
    );
    assert!(approved.iter().all(|d| d.environment == "github-quota"));
    assert!(
        approved[0].comment.contains("pool app-42"),
        "{}",
        approved[0].comment
    );
    // While a job waits, its run shows why: one progress comment (a status report, no state)
    // when it starts to wait, before its decision, never after it. Jobs expected to start within
    // 5 s get none (about to be approved): those of the first three windows may not.
    // (A report that crossed the approval was refused above, and shows on no page.)
    let reports: Vec<&Decision> = seen
        .iter()
        .filter(|d| d.state.is_empty() && d.taken)
        .collect();
    assert!(
        reports.len() >= approvals_due - 3 * FIT,
        "the jobs of later waves reported their wait: {reports:#?}"
    );
    for report in &reports {
        let of_run: Vec<&Decision> = seen
            .iter()
            .filter(|d| d.run_id == report.run_id && d.taken)
            .collect();
        assert_eq!(
            of_run.iter().filter(|d| d.state.is_empty()).count(),
            1,
            "one report per wait: {of_run:#?}"
        );
        assert!(
            of_run.last().is_some_and(|d| !d.state.is_empty()),
            "the report before the decision: {of_run:#?}"
        );
        assert!(
            report.comment.contains("waits in pool app-42")
                && report.comment.contains("expected start")
                && report.comment.contains("rejected if it has not started by"),
            "{}",
            report.comment
        );
    }
    // In waves, none early: by the end of any window no more were approved than fit the windows
    // opened so far, in at most one window more than needed. Each approval is placed by when
    // the host approved it (its comment says, to the second; on a loaded machine the request
    // can reach the stand-in seconds later, in another window): one approved late counts in a
    // later window, which is allowed; one approved early is not.
    let approved_at = |d: &Decision| -> u64 {
        let at = d
            .comment
            .split_once("approved at ")
            .and_then(|(_, rest)| rest.split_once(';'))
            .and_then(|(at, _)| deferral_core::signals::time::parse_iso8601(at))
            .unwrap_or_else(|| panic!("no approval time in {:?}", d.comment));
        at / 1000 / WINDOW_S
    };
    let mut times: Vec<u64> = approved.iter().map(|d| approved_at(d)).collect();
    times.sort_unstable();
    let first = times[0];
    for (n, window) in times.iter().enumerate() {
        let opened = (window - first + 1) as usize;
        assert!(
            n < FIT * opened,
            "{} approved by window {opened}, where {FIT} fit each: {times:?}\n{approved:#?}\n{}\nGitHub saw, in order:\n{}",
            n + 1,
            logs(&runs),
            seen_calls(&standin)
        );
    }
    let minimum = approvals_due.div_ceil(FIT);
    let used = (times[times.len() - 1] - first + 1) as usize;
    assert!(
        used <= minimum + 1,
        "{used} windows used ({times:?}); the minimum is {minimum}"
    );
    for (run_id, environment) in [(6001, "nightly"), (7001, "github-quota")] {
        let said: Vec<&Decision> = seen
            .iter()
            .filter(|d| d.run_id == run_id && !d.state.is_empty())
            .collect();
        assert_eq!(said.len(), 1, "answered once: {said:#?}");
        assert_eq!(
            (said[0].state.as_str(), said[0].environment.as_str()),
            ("rejected", environment)
        );
        assert!(
            said[0].comment.contains("resume-by") && said[0].comment.contains("did not run"),
            "the comment says why: {}",
            said[0].comment
        );
    }
    let nightly = hosts[0].status(nightly["deferral"].as_str().unwrap());
    assert_eq!(
        (&nightly["state"], &nightly["cause"]),
        (&json!("cancelled"), &json!("expired")),
        "{nightly}"
    );

    // Each job's commit shows its deferral: one status per state it was seen in, its last the
    // outcome (a job approved in the pass that recorded it shows only that).
    let statuses = within(Duration::from_secs(10), || {
        let posts = standin.state.lock().unwrap().commit_statuses.clone();
        let last = |run_id: u64| {
            posts
                .iter()
                .rfind(|p| p.sha == sha_of(run_id))
                .map(|p| p.state.clone())
        };
        let done = ids.keys().all(|r| last(*r).as_deref() == Some("success"))
            && last(6001).as_deref() == Some("error")
            && last(7001).as_deref() == Some("error");
        done.then_some(posts)
    })
    .unwrap_or_else(|| {
        panic!(
            "{:#?}\n{}",
            standin.state.lock().unwrap().commit_statuses,
            logs(&runs)
        )
    });
    let of = |run_id: u64| -> Vec<&StatusPost> {
        statuses
            .iter()
            .filter(|p| p.sha == sha_of(run_id))
            .collect()
    };
    // Deferred, resumed (an approval in flight, seen by a replica's scan), then the outcome:
    // at most one status each, the outcome last.
    for run_id in ids.keys().copied().chain([6001, 7001]) {
        let posts = of(run_id);
        let outcome = if ids.contains_key(&run_id) {
            "success"
        } else {
            "error"
        };
        let seen: Vec<(&str, &str)> = posts
            .iter()
            .map(|p| (p.state.as_str(), p.description.as_str()))
            .collect();
        let mut distinct = seen.clone();
        distinct.dedup();
        assert!(
            posts.len() <= 3 && distinct.len() == seen.len(),
            "run {run_id}: one status per state change: {seen:?}"
        );
        assert_eq!(
            posts.last().unwrap().state,
            outcome,
            "run {run_id}: {seen:?}"
        );
        assert!(
            posts[..posts.len() - 1]
                .iter()
                .all(|p| p.state == "pending"),
            "run {run_id}: {seen:?}"
        );
    }
    assert!(
        statuses.iter().all(|p| p.context.starts_with("deferral/")),
        "{statuses:#?}"
    );
    let waited = ids.keys().filter(|r| of(**r).len() >= 2).count();
    assert!(
        waited >= 1,
        "the jobs of later waves showed pending first: {statuses:#?}"
    );
    // A job that waited showed when it resumes and its pool (a job caught with its approval in
    // flight shows `resumed` instead).
    let pending = ids
        .keys()
        .map(|r| of(*r))
        .find(|posts| posts[0].description.starts_with("deferred until"))
        .unwrap_or_else(|| panic!("no job showed pending: {statuses:#?}"));
    assert!(
        pending[0].description.contains("resume by")
            && pending[0].description.contains("pool app-42"),
        "{pending:#?}"
    );
    assert!(of(6001)[of(6001).len() - 1].description.contains("expired"));

    // Asked again once every job is answered: nothing new is recorded or sent.
    let before = decisions(&standin).len();
    for run in &runs {
        let again = deliver(run, "gate-asked-again-2", &bodies[&5002]);
        assert_eq!(again["already"], true, "{again}");
        let late_again = deliver(run, "gate-late-again", &late_body);
        assert_eq!(late_again["already"], true, "{late_again}");
    }
    assert_eq!(decisions(&standin).len(), before);
    for run in &mut runs {
        assert_eq!(
            run.terminate(Duration::from_secs(10)),
            Some(0),
            "{}",
            run.log_text()
        );
    }
    assert_eq!(
        decisions(&standin).len(),
        before,
        "nothing sent on the way out"
    );
}

/// `run --config FILE` that must refuse to start: its error, within 10 s (killed otherwise).
fn refused(host: &Host, text: &str) -> Value {
    let path = host.path("refused.toml");
    std::fs::write(&path, text).unwrap();
    let mut child = host
        .command(&["run", "--listen", "127.0.0.1:0", "--config"])
        .arg(&path)
        .env("DEFERRAL_SERVE_TOKEN", common::server::TOKEN)
        .env("GITHUB_TOKEN", common::github::TOKEN)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ended = within(Duration::from_secs(10), || child.try_wait().unwrap());
    if ended.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("run started with {text}");
    }
    assert_eq!(ended.unwrap().code(), Some(2), "{text}");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    serde_json::from_str(out.lines().next().unwrap_or_default()).unwrap()
}

#[test]
fn a_gate_needs_a_table_that_checks_the_webhook_and_a_github_app() {
    let host = Host::new();
    let secrets = format!(
        "github-webhook-secret-file = {:?}\n",
        secret_file(&host).display().to_string()
    );
    let table = "[[gate]]\nrepo = \"octo-org/app\"\nenvironment = \"github-quota\"\n";
    let cases = [
        (
            format!("{secrets}{table}"),
            "invalid-config",
            "give the cost",
        ),
        (
            format!("{secrets}{table}cost = 10\nresume-by = \"2w\"\n"),
            "invalid-config",
            "unknown unit",
        ),
        (
            format!("{secrets}{table}cost = 10\n{table}cost = 5\n"),
            "invalid-config",
            "named by two [[gate]] tables",
        ),
        (
            format!("{table}cost = 10\n"),
            "invalid-config",
            "needs github-webhook-secret-file",
        ),
        // A GITHUB_TOKEN cannot answer a protection rule: only the App's installation token.
        (
            format!("{secrets}{table}cost = 10\n"),
            "no-github-credentials",
            "GitHub App",
        ),
    ];
    for (text, code, says) in cases {
        let error = refused(&host, &text);
        assert_eq!(error["error"]["code"], code, "{text}\n{error}");
        assert!(
            error["error"]["message"].as_str().unwrap().contains(says),
            "{text}\n{error}"
        );
    }
}
