//! Process-level tests of `tick` with `exec:` launches: timing, the launch protocol, outcome
//! mapping, expiry, the re-entry bound, racing tickers and a ticker killed with SIGKILL.

mod common;

use common::{lines, now, script, sq, Host, HOUR};
use deferral_core::digest::sha256_hex;
use deferral_core::receipt::validate_str;
use deferral_host::handle::handle_digest;
use std::collections::HashMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn launched_ids(report: &serde_json::Value) -> Vec<String> {
    report["launched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn nothing_is_launched_before_resume_after() {
    let host = Host::new();
    let marker = host.path("launched");
    let launch = script(
        &host.path("mark.sh"),
        &format!("echo \"$DEFERRAL_ID\" >> {}", sq(&marker)),
    );
    let (later, _) = host.record(&launch, 60_000, HOUR, &[]);
    let (soon, _) = host.record(&launch, 1_200, HOUR, &[]);
    let dry = host.tick(&["--dry-run"]);
    assert!(dry["launched"].as_array().unwrap().is_empty());
    let report = host.tick(&[]);
    assert!(launched_ids(&report).is_empty(), "{report}");
    assert!(lines(&marker).is_empty());
    common::clock::until_past_field(&host, &soon, "resume_after_ms");
    let dry = host.tick(&["--dry-run"]);
    assert_eq!(
        launched_ids(&dry),
        [soon.as_str()],
        "dry-run shows the plan"
    );
    assert_eq!(
        host.status(&soon)["state"],
        "deferred",
        "dry-run changes nothing"
    );
    assert!(lines(&marker).is_empty(), "dry-run launches nothing");
    let report = host.tick(&[]);
    assert_eq!(launched_ids(&report), [soon.as_str()]);
    assert_eq!(lines(&marker), [soon.as_str()]);
    assert_eq!(host.status(&soon)["state"], "complete");
    assert_eq!(host.status(&later)["state"], "deferred");
    host.tick(&[]);
    assert_eq!(
        lines(&marker).len(),
        1,
        "a complete deferral is not launched again"
    );
}

#[test]
fn exec_gets_receipt_on_stdin_and_only_the_documented_environment() {
    let host = Host::new();
    let (env_file, stdin_file) = (host.path("env"), host.path("stdin"));
    let launch = script(
        &host.path("env.sh"),
        &format!(
            "env > {}; cat > {}; stat -c %a \"$(dirname \"$DEFERRAL_REPORT_FILE\")\" > {}",
            sq(&env_file),
            sq(&stdin_file),
            sq(&host.path("report-dir-mode"))
        ),
    );
    let (id, _) = host.record(&launch, 0, HOUR, &[]);
    let out = host
        .command(&["tick"])
        .env("SECRET_OF_THE_TICKER", "must-not-leak")
        .env("GITHUB_TOKEN", "ghs_must_not_leak")
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert!(out.status.success());
    let env: HashMap<String, String> = lines(&env_file)
        .into_iter()
        .filter_map(|l| {
            l.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    let mut keys: Vec<&str> = env
        .keys()
        .map(String::as_str)
        .filter(|k| !["PWD", "SHLVL", "_", "OLDPWD"].contains(k))
        .collect();
    keys.sort();
    let allowed = [
        "DEFERRAL_ATTEMPT",
        "DEFERRAL_ID",
        "DEFERRAL_RECEIPT_DIGEST",
        "DEFERRAL_REPORT_FILE",
        "DEFERRAL_WAKEUP_HANDLE",
        "HOME",
        "LANG",
        "PATH",
    ];
    assert!(
        keys.iter().all(|k| allowed.contains(k)),
        "unexpected variables: {keys:?}"
    );
    assert_eq!(env["DEFERRAL_ID"], id);
    assert_eq!(env["DEFERRAL_ATTEMPT"], "1");
    // The report file is in a directory of its own that only the host's user can enter, and
    // that is gone once the attempt was read.
    let report = std::path::Path::new(&env["DEFERRAL_REPORT_FILE"]);
    assert_eq!(
        lines(&host.path("report-dir-mode")),
        ["700"],
        "{}",
        report.display()
    );
    assert!(!report.parent().unwrap().exists(), "{}", report.display());
    let stdin = std::fs::read_to_string(&stdin_file).unwrap();
    let receipt = validate_str(stdin.trim_end()).unwrap();
    assert_eq!(
        env["DEFERRAL_RECEIPT_DIGEST"],
        sha256_hex(stdin.trim_end().as_bytes())
    );
    let wakeup = receipt.to_value()["ownership"]["wakeup_digest"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        wakeup,
        handle_digest(&env["DEFERRAL_WAKEUP_HANDLE"]),
        "the receipt names the handle's digest"
    );
    let show = host.expect(0, &["show", "--json", &id], "");
    let claimed = show["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "claimed")
        .unwrap();
    assert_eq!(
        claimed["receipt"],
        receipt.to_value(),
        "the receipt given to the launch is stored"
    );
}

#[test]
fn exit_codes_map_to_outcomes() {
    let host = Host::new();
    let cases = [
        ("exit 0", "complete", "completed"),
        ("exit 5", "blocked", "blocked"),
        ("exit 3", "blocked", "blocked"),
        ("echo not-a-receipt; exit 6", "blocked", "missing-receipt"),
        (
            "echo '{\"schema\":2}'; exit 6",
            "blocked",
            "missing-receipt",
        ),
        ("cat; exit 6", "deferred", "deferred"),
        ("kill -9 $$", "blocked", "blocked"),
    ];
    let cases: Vec<(String, &str, &str)> = cases
        .iter()
        .enumerate()
        .map(|(n, (body, state, cause))| {
            let launch = script(&host.path(&format!("case{n}.sh")), body);
            (launch, *state, *cause)
        })
        .collect();
    let ids: Vec<String> = cases
        .iter()
        .map(|(launch, _, _)| host.record(launch, 0, HOUR, &[]).0)
        .collect();
    host.tick(&[]);
    for ((launch, state, cause), id) in cases.iter().zip(&ids) {
        let s = host.status(id);
        assert_eq!(
            (s["state"].as_str(), s["cause"].as_str()),
            (Some(*state), Some(*cause)),
            "{launch}: {s}"
        );
    }
    assert_eq!(
        host.status(&ids[2])["detail"],
        "exit 3",
        "the exit code is recorded"
    );
    assert_eq!(
        host.status(&ids[4])["detail"],
        "exit 6 without a receipt on stdout",
        "a JSON line that is no receipt is no receipt"
    );
}

#[test]
fn reentries_are_bounded_and_every_receipt_is_kept() {
    let host = Host::new();
    let marker = host.path("launched");
    // Still limited every time: hands back the receipt it got (a new receipt, due at once).
    let launch = script(
        &host.path("again.sh"),
        &format!("echo \"$DEFERRAL_ATTEMPT\" >> {}; cat; exit 6", sq(&marker)),
    );
    let (id, cancel) = host.record(&launch, 0, HOUR, &[]);
    host.tick(&[]);
    let s = host.status(&id);
    assert_eq!(
        (s["state"].as_str(), s["reentries"].as_u64()),
        (Some("deferred"), Some(1))
    );
    host.tick(&[]);
    let s = host.status(&id);
    assert_eq!(
        (s["state"].as_str(), s["cause"].as_str()),
        (Some("blocked"), Some("reentry-limit"))
    );
    host.tick(&[]);
    assert_eq!(lines(&marker), ["1", "2"], "exactly max_reentries launches");
    let show = host.expect(0, &["show", "--json", &id], "");
    let kinds: Vec<&str> = show["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "submitted",
            "retained",
            "claimed",
            "submitted",
            "retained",
            "claimed",
            "submitted",
            "retained"
        ]
    );
    let events: Vec<&str> = show["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["record", "claim", "defer", "claim", "defer"]);
    host.expect(5, &["cancel", &id, "--handle", &cancel], "");

    // --max-reentries raises the bound.
    let again = script(&host.path("cat.sh"), "cat; exit 6");
    let (three, _) = host.record(&again, 0, HOUR, &["--max-reentries", "3"]);
    for _ in 0..4 {
        host.tick(&[]);
    }
    let s = host.status(&three);
    assert_eq!(
        (
            s["state"].as_str(),
            s["reentries"].as_u64(),
            s["cause"].as_str()
        ),
        (Some("blocked"), Some(3), Some("reentry-limit"))
    );
}

#[test]
fn expired_deferrals_are_cancelled_without_launch() {
    let host = Host::new();
    let marker = host.path("launched");
    let launch = script(&host.path("x.sh"), &format!("echo x >> {}", sq(&marker)));
    // Opens in 600 ms and closes at the same instant: it expires before any tick sees it due.
    let t = now();
    let receipt = deferral_host_conformance::handoff(t, 600, 600).to_json();
    let id = host.expect(0, &["record", "--launch", &launch, "-"], &receipt)["id"]
        .as_str()
        .unwrap()
        .to_string();
    common::clock::until_past_field(&host, &id, "resume_by_ms");
    let dry = host.tick(&["--dry-run"]);
    assert_eq!(dry["expired"], serde_json::json!([id]));
    let report = host.tick(&[]);
    assert_eq!(report["expired"], serde_json::json!([id]));
    let s = host.status(&id);
    assert_eq!(
        (s["state"].as_str(), s["cause"].as_str()),
        (Some("cancelled"), Some("expired"))
    );
    assert!(lines(&marker).is_empty());
}

#[test]
fn tick_with_ids_touches_only_those() {
    let host = Host::new();
    let (a, _) = host.record("exec:/bin/true", 0, HOUR, &[]);
    let (b, _) = host.record("exec:/bin/true", 0, HOUR, &[]);
    let report = host.tick(&[&b]);
    assert_eq!(launched_ids(&report), [b.as_str()]);
    assert_eq!(host.status(&a)["state"], "deferred");
    assert_eq!(
        host.expect(2, &["tick", "dmissing"], "")["error"]["code"],
        "not-found"
    );
}

fn record_many(host: &Host, launch: &str, count: usize) -> Vec<String> {
    // Through the library for speed: the tickers under test are separate processes.
    let store = host.open_any();
    (0..count)
        .map(|_| {
            // A distinct receipt each (recording is idempotent by receipt digest).
            let t = now();
            let text = deferral_host_conformance::distinct_handoff(t, 0, HOUR).to_json();
            deferral_host::lifecycle::insert::insert_new(&*store, text.as_bytes(), launch, 2, t)
                .unwrap()
                .deferral
                .id
        })
        .collect()
}

#[test]
fn four_racing_tickers_launch_each_deferral_exactly_once() {
    four_racing_tickers(&Host::new(), 300);
}

/// The same race on PostgreSQL: four processes, as if on four machines, share one database.
#[test]
fn four_racing_tickers_on_postgres_launch_each_deferral_exactly_once() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    four_racing_tickers(&Host::with_store(&schema.url).init(), 200);
}

fn four_racing_tickers(host: &Host, count: usize) {
    let marker = host.path("launched");
    // Each launch takes a little while, so that on a loaded machine one ticker cannot finish
    // every launch before the other three have started.
    let ids = record_many(
        host,
        &script(
            &host.path("mark.sh"),
            &format!("echo \"$DEFERRAL_ID\" >> {}; sleep 0.02", sq(&marker)),
        ),
        count,
    );
    let tickers: Vec<_> = (0..4)
        .map(|_| {
            host.command(&["tick"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut per_ticker = Vec::new();
    let mut reports = Vec::new();
    for ticker in tickers {
        let out = ticker.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        per_ticker.push(report["launched"].as_array().unwrap().len());
        reports.push(report);
    }
    let launched = lines(&marker);
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for id in &launched {
        *counts.entry(id.as_str()).or_default() += 1;
    }
    assert_eq!(
        launched.len(),
        count,
        "{count} launches in all (per ticker: {per_ticker:?}; reports: {reports:?})"
    );
    assert!(
        ids.iter().all(|id| counts.get(id.as_str()) == Some(&1)),
        "each deferral launched exactly once"
    );
    assert_eq!(per_ticker.iter().sum::<usize>(), count);
    assert!(
        per_ticker.iter().filter(|n| **n > 0).count() >= 2,
        "the tickers really raced: {per_ticker:?}"
    );
    assert_eq!(
        host.open_any().count_by_state().unwrap(),
        [(deferral_core::lifecycle::State::Complete, count as u64)]
    );
}

#[test]
fn a_ticker_killed_mid_run_is_recovered_by_the_next_tick() {
    let host = Host::new();
    let marker = host.path("launched");
    let ids = record_many(
        &host,
        &script(
            &host.path("mark.sh"),
            &format!("echo \"$DEFERRAL_ID\" >> {}; sleep 0.05", sq(&marker)),
        ),
        40,
    );
    let mut ticker = host
        .command(&["tick", "--lease-timeout", "1500ms"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once it is well into the run (some launched, some not).
    let start = Instant::now();
    while lines(&marker).len() < 5 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(ticker.id() as i32, libc::SIGKILL) };
    ticker.wait().unwrap();
    let before = lines(&marker).len();
    assert!(
        before > 0 && before < 40,
        "killed mid-run ({before} launched)"
    );
    // An immediate tick must not touch the leased deferral; the rest are launched.
    host.tick(&[]);
    // Until the killed ticker's lease has ended.
    let leased = ids
        .iter()
        .filter_map(|id| host.status(id)["lease_until_ms"].as_u64())
        .max()
        .expect("the killed ticker's lease");
    common::clock::until_past(leased);
    let report = host.tick(&[]);
    let store = host.open();
    use deferral_host::store::Store;
    store.check_integrity().unwrap();
    let mut counts: HashMap<String, usize> = HashMap::new();
    for id in lines(&marker) {
        *counts.entry(id).or_default() += 1;
    }
    let mut recovered = Vec::new();
    for id in &ids {
        let d = store.get(id).unwrap().unwrap();
        assert!(d.state.is_terminal(), "{id} is {}", d.state);
        assert!(
            counts.get(id).copied().unwrap_or(0) >= 1,
            "{id} never launched"
        );
        if store.events(id).unwrap().iter().any(|e| {
            e.detail
                .as_deref()
                .is_some_and(|x| x.starts_with("lease-expired"))
        }) {
            recovered.push(id.clone());
        }
    }
    let duplicated: Vec<&String> = counts
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(id, _)| id)
        .collect();
    assert!(
        duplicated.len() <= 1,
        "only the in-flight launch may repeat: {duplicated:?}"
    );
    for id in &duplicated {
        assert!(
            recovered.contains(id),
            "a repeated launch comes from a recovered lease"
        );
    }
    assert!(
        recovered.len() <= 1,
        "one launch was in flight at most: {recovered:?} ({report})"
    );
}

/// The kill comes a tenth of the lease before its end (at most a second before), not sooner: a
/// command that ends at 70% of a 2 s lease completes.
#[test]
fn a_launch_that_ends_well_inside_its_lease_completes() {
    let host = Host::new();
    let (id, _) = host.record(&script(&host.path("timely.sh"), "sleep 1.4"), 0, HOUR, &[]);
    host.tick(&["--lease-timeout", "2s"]);
    let s = host.status(&id);
    assert_eq!(s["state"], "complete", "{s}");
}

#[test]
fn a_launch_that_outlives_its_lease_is_killed_and_blocked() {
    let host = Host::new();
    let marker = host.path("survived");
    let (id, _) = host.record(
        &script(
            &host.path("late.sh"),
            &format!("sleep 20; echo late >> {}", sq(&marker)),
        ),
        0,
        HOUR,
        &[],
    );
    let start = Instant::now();
    host.tick(&["--lease-timeout", "1s"]);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "killed at the lease, not after the command"
    );
    let s = host.status(&id);
    assert_eq!(s["state"], "blocked");
    assert!(
        s["detail"].as_str().unwrap().starts_with("lease-timeout"),
        "{s}"
    );
    assert!(lines(&marker).is_empty(), "the process group was killed");
}
