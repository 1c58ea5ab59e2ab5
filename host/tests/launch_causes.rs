//! The host says why: a launch that stops records the launched process's own code (its last
//! JSON line on stdout) as the cause, and a program that is missing or not executable gets
//! `launch-not-found` / `launch-not-executable`, not a bare exit code.

mod common;

use common::{now, script, sq, Host, HOUR};
use deferral_core::receipt::{Bindings, Reason, Receipt};

fn cause_and_detail(host: &Host, id: &str) -> (String, String, String) {
    let s = host.status(id);
    (
        s["state"].as_str().unwrap_or_default().to_string(),
        s["cause"].as_str().unwrap_or_default().to_string(),
        s["detail"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn a_blocked_resume_records_its_code_as_the_cause() {
    let host = Host::new();
    let launch = script(
        &host.path("resume.sh"),
        r#"cat > /dev/null
echo 'progress: checking the receipt'
echo '{"status":"blocked","code":"approval-required","message":"fresh approval is required: pass --approval granted"}'
exit 5"#,
    );
    let (id, _) = host.record(&launch, 0, HOUR, &[]);
    host.tick(&[]);
    let (state, cause, detail) = cause_and_detail(&host, &id);
    assert_eq!(
        (state.as_str(), cause.as_str()),
        ("blocked", "approval-required")
    );
    assert_eq!(
        detail,
        "exit 5: fresh approval is required: pass --approval granted"
    );
    let show = host.expect(0, &["show", "--json", &id], "");
    let last = show["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["cause"], "approval-required", "the event says it too");
}

#[test]
fn an_error_line_gives_its_code_and_a_plain_exit_stays_blocked() {
    let host = Host::new();
    let error = script(
        &host.path("error.sh"),
        r#"echo '{"error":{"code":"invalid-receipt","message":"not a receipt"}}'; exit 2"#,
    );
    let plain = script(&host.path("plain.sh"), "echo done-nothing; exit 3");
    let hostile = script(
        &host.path("hostile.sh"),
        r#"echo '{"code":"x\"; DROP TABLE deferrals; --"}'; exit 5"#,
    );
    let (a, _) = host.record(&error, 0, HOUR, &[]);
    let (b, _) = host.record(&plain, 0, HOUR, &[]);
    let (c, _) = host.record(&hostile, 0, HOUR, &[]);
    host.tick(&[]);
    assert_eq!(
        cause_and_detail(&host, &a),
        (
            "blocked".into(),
            "invalid-receipt".into(),
            "exit 2: not a receipt".into()
        )
    );
    assert_eq!(
        cause_and_detail(&host, &b),
        ("blocked".into(), "blocked".into(), "exit 3".into())
    );
    assert_eq!(
        cause_and_detail(&host, &c).1,
        "blocked",
        "a code outside [a-z0-9-] is not recorded as a cause"
    );
}

#[test]
fn missing_and_non_executable_programs_say_so() {
    let host = Host::new();
    let missing = format!("exec:{}", host.path("no-such-program").display());
    let not_executable = host.path("not-executable.sh");
    std::fs::write(&not_executable, "#!/bin/sh\nexit 0\n").unwrap();
    let bad_interpreter = script(&host.path("interp.sh"), "exit 0");
    std::fs::write(host.path("interp.sh"), "#!/no/such/interpreter\nexit 0\n").unwrap();
    let exits_127 = script(&host.path("e127.sh"), "exit 127");
    let exits_126 = script(&host.path("e126.sh"), "exit 126");
    let cases = [
        (missing, "launch-not-found"),
        (
            format!("exec:{}", sq(&not_executable)),
            "launch-not-executable",
        ),
        (bad_interpreter, "launch-not-found"),
        // The program started; a command inside it was not found (cron's PATH).
        (exits_127, "command-not-found"),
        (exits_126, "launch-not-executable"),
    ];
    let ids: Vec<String> = cases
        .iter()
        // Past the door check (issue 21): this test is about what tick records.
        .map(|(launch, _)| host.record(launch, 0, HOUR, &["--no-check"]).0)
        .collect();
    host.tick(&[]);
    for ((launch, want), id) in cases.iter().zip(&ids) {
        let (state, cause, detail) = cause_and_detail(&host, id);
        assert_eq!(
            (state.as_str(), cause.as_str()),
            ("blocked", *want),
            "{launch}: {detail}"
        );
        if *want == "command-not-found" {
            assert!(
                detail.contains("a command inside the program was not found")
                    && detail.contains("PATH"),
                "{detail}"
            );
        }
    }
}

#[test]
fn the_new_receipt_is_read_from_one_json_line_or_a_bare_last_line() {
    let host = Host::new();
    // The CLI's one-line form: the receipt inside the decision as `deferredReceipt`.
    let wrapped = script(
        &host.path("wrapped.sh"),
        r#"r=$(cat); printf '{"status":"deferred","code":null,"deferredReceipt":%s}\n' "$r"; exit 6"#,
    );
    let bare = script(
        &host.path("bare.sh"),
        "echo '{\"status\":\"deferred\"}'; cat; exit 6",
    );
    let (a, _) = host.record(&wrapped, 0, HOUR, &[]);
    let (b, _) = host.record(&bare, 0, HOUR, &[]);
    host.tick(&[]);
    for id in [&a, &b] {
        let (state, cause, _) = cause_and_detail(&host, id);
        assert_eq!(
            (state.as_str(), cause.as_str()),
            ("deferred", "deferred"),
            "{id}"
        );
    }
    // Other bindings: blocked, and the cause names the receipt error.
    let t = now();
    let other = Receipt::handoff(
        Reason::RestReserve,
        t,
        t,
        t + HOUR,
        Bindings {
            scope_digest: "e".repeat(64),
            request_digest: "b".repeat(64),
            plan_digest: None,
        },
        true,
    )
    .unwrap();
    let file = host.path("other.json");
    std::fs::write(&file, other.to_json()).unwrap();
    let mismatch = script(
        &host.path("mismatch.sh"),
        &format!("cat > /dev/null; cat {}; exit 6", sq(&file)),
    );
    let (c, _) = host.record(&mismatch, 0, HOUR, &[]);
    host.tick(&[&c]);
    let (state, cause, detail) = cause_and_detail(&host, &c);
    assert_eq!(
        (state.as_str(), cause.as_str()),
        ("blocked", "binding-mismatch")
    );
    assert!(detail.contains("scope_digest"), "{detail}");
}
