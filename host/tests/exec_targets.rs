//! `exec:` targets are a program and its arguments, never a shell string: what `record` and
//! `serve` refuse, what `--allow-launch` lets through, and what `tick` does with a stored
//! target that would need a shell (written by an older version).

mod common;

use common::serve_client::Serve;
use common::{lines, now, script, Host, HOUR};
use deferral_host::store::{NewDeferral, NewReceipt, ResumeWindow, Store};

#[test]
fn allow_launch_is_not_a_prefix_a_token_holder_can_extend() {
    let host = Host::new();
    let bin = host.path("bin");
    std::fs::create_dir(&bin).unwrap();
    script(&bin.join("resume-x"), "exit 0");
    let marker = host.path("pwned");
    let prefix = format!("exec:{}/resume-", bin.display());
    // The entry names no program that exists: serve checks exact programs at start unless
    // told the programs live elsewhere (issue 21); this test is about prefixes, not that check.
    let server = Serve::start_with(&host, &[&prefix], &["--no-check"]);
    let m = marker.display();
    for launch in [
        format!("{prefix}x; touch {m}"),
        format!("{prefix}x $(touch {m})"),
        format!("{prefix}x `touch {m}`"),
        format!("{prefix}x\ntouch {m}"),
        format!("{prefix}x && touch {m}"),
        // A valid target, but not the program the operator allowed.
        format!("{prefix}x"),
    ] {
        let (status, answer) = server.record(&launch);
        assert!(
            status == 422 || status == 403,
            "{launch:?} refused: {status} {answer}"
        );
        let code = answer["error"]["code"].as_str().unwrap_or_default();
        assert!(
            ["invalid-launch", "launch-not-allowed"].contains(&code),
            "{launch:?}: {answer}"
        );
    }
    host.tick(&[]);
    assert!(!marker.exists(), "no extra command ran");
    assert_eq!(host.open_any().count_by_state().unwrap(), []);
    // The program itself, exactly as allowed, with any arguments.
    let (status, _) = server.record(&format!("{prefix} --flag 'a b'"));
    assert_eq!(status, 201);
}

#[test]
fn record_refuses_targets_that_need_a_shell_or_a_path_lookup() {
    let host = Host::new();
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    for launch in [
        "exec:true",
        "exec:./resume.sh",
        "exec:resume.sh --x",
        "exec:/bin/echo hi; id",
        "exec:/bin/echo $(id)",
        "exec:/bin/echo hi > /tmp/x",
        "exec:/bin/echo hi\nid",
        "exec:/bin/echo 'hi",
        "exec:   ",
        "workflow-dispatch:octo/app/sync.yml@../../etc",
        "workflow-dispatch:octo/app/sync.yml@main\nx",
        "workflow-dispatch:octo/../sync.yml@main",
    ] {
        let out = host.expect(2, &["record", "--launch", launch, "-"], &receipt);
        assert_eq!(out["error"]["code"], "invalid-launch", "{launch:?}: {out}");
    }
    assert_eq!(host.open().count_by_state().unwrap(), []);
}

#[test]
fn arguments_reach_the_program_exactly_as_quoted() {
    let host = Host::new();
    let program = host.path("args.sh");
    let out = host.path("args");
    script(
        &program,
        &format!("printf '%s\\n' \"$@\" > '{}'", out.display()),
    );
    let launch = format!(
        r#"exec:{} 'a b' "c\"d" e\ f '$(touch x); `id`' '' $HOME"#,
        program.display()
    );
    // Written unquoted, `$HOME` is refused: it would need a shell.
    host.expect(2, &["record", "--launch", &launch, "-"], "{}");
    let launch = launch.replace(" $HOME", r" \$HOME");
    let (id, _) = host.record(&launch, 0, HOUR, &[]);
    host.tick(&[]);
    assert_eq!(host.status(&id)["state"], "complete");
    assert_eq!(
        lines(&out),
        ["a b", "c\"d", "e f", "$(touch x); `id`", "", "$HOME"]
    );
}

#[test]
fn a_stored_target_that_would_need_a_shell_is_refused_at_launch_never_run() {
    let host = Host::new();
    let marker = host.path("ran");
    let store = host.open();
    let t = now();
    let retained = deferral_host_conformance::handoff(t, 0, HOUR)
        .retain(&"c".repeat(64), &"d".repeat(64))
        .unwrap();
    // As an older version recorded it, before targets were split into words.
    let legacy = format!("exec:echo ran >> '{}'", marker.display());
    let d = store
        .insert(&NewDeferral {
            id: "dlegacy".into(),
            state: deferral_core::lifecycle::State::Deferred,
            reentries: 0,
            max_reentries: 2,
            cause: "recorded".into(),
            launch: legacy,
            window: ResumeWindow {
                reason: "rest-reserve".into(),
                resume_after_ms: t,
                resume_by_ms: t + HOUR,
            },
            wakeup_digest: "c".repeat(64),
            cancellation_digest: "d".repeat(64),
            receipts: vec![NewReceipt::new("retained", retained.to_json())],
            at_ms: t,
            keys: Default::default(),
        })
        .unwrap();
    let report = host.tick(&[]);
    let s = host.status(&d.id);
    assert_eq!(
        (s["state"].as_str(), s["cause"].as_str()),
        (Some("blocked"), Some("invalid-launch")),
        "{s} {report}"
    );
    assert!(
        s["detail"].as_str().unwrap().contains("shell"),
        "the detail says why: {s}"
    );
    assert!(!marker.exists(), "the stored command never ran");
}
