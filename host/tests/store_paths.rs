//! A store path that is relative or starts with a literal `~` is refused with the absolute
//! path it would have meant and the working directory (issue 28 item 6): under cron a relative
//! path lands in `$HOME`, and a quoted `~` is no home folder at all.

mod common;

use common::Host;

#[test]
fn a_relative_or_tilde_store_path_is_refused_with_what_it_would_mean() {
    let host = Host::uncreated();
    let dir = host.dir.path();
    for (store, meant) in [
        ("sqlite:host.db".to_string(), dir.join("host.db")),
        ("state/host.db".to_string(), dir.join("state/host.db")),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_deferral-host"))
            .args(["--store", &store, "init"])
            .current_dir(dir)
            .env_remove("DEFERRAL_STORE")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{store}: {stdout}");
        let error: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(error["error"]["code"], "no-store", "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&meant.display().to_string())
                && message.contains(&format!("working directory {}", dir.display())),
            "{message}"
        );
        assert!(
            !meant.exists(),
            "nothing was created at {}",
            meant.display()
        );
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_deferral-host"))
        .args(["--store", "sqlite:~/host.db", "init"])
        .current_dir(dir)
        .env("HOME", "/home/someone")
        .env_remove("DEFERRAL_STORE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("/home/someone/host.db") && stdout.contains("~"),
        "{stdout}"
    );
    assert!(!dir.join("~").exists(), "no folder named ~");
}
