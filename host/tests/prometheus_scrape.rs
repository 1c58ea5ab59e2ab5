//! A real Prometheus server (Debian `prometheus`) scrapes `deferral-host serve` on loopback,
//! with the bearer token from a file as docs/host-api.md's scrape config says, and the value
//! read back through Prometheus' own query API equals what the store holds.
//!
//! Without `prometheus` on PATH the test says loudly that it is skipped, unless
//! `DEFERRAL_REQUIRE_PROMETHEUS=1` (set by scripts/test.sh, which `.ci/run` runs after
//! installing it): then a missing server fails the test.

mod common;

use common::server::{Server, TOKEN};
use deferral_core::lifecycle::State;
use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Prometheus {
    child: Child,
    url: String,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn prometheus_binary() -> Option<String> {
    let bin = std::env::var("PROMETHEUS").unwrap_or_else(|_| "prometheus".into());
    let found = Command::new(&bin)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        return Some(bin);
    }
    assert!(
        std::env::var("DEFERRAL_REQUIRE_PROMETHEUS").as_deref() != Ok("1"),
        "DEFERRAL_REQUIRE_PROMETHEUS=1 but {bin:?} does not run: install the Debian package prometheus"
    );
    // Straight to the file descriptor: the test harness does not capture it, so the skip is
    // seen in a plain `cargo test` too.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\n!!! SKIPPED prometheus_scrape: {bin:?} not found. Install the Debian package prometheus \
         (apt-get install prometheus) to run this test; CI requires it.\n"
    );
    None
}

/// The address Prometheus logged once it listens (`msg="Listening on" address=127.0.0.1:PORT`),
/// polled for up to 30 s; `None` if it exited or never said.
fn listening_address(child: &mut std::process::Child, log: &std::path::Path) -> Option<String> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let said = text
            .lines()
            .filter(|l| l.contains("msg=\"Listening on\""))
            .find_map(|l| l.split("address=").nth(1))
            .and_then(|rest| rest.split_whitespace().next());
        if let Some(address) = said {
            return Some(address.to_string());
        }
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// Starts Prometheus on loopback with a throwaway config and data dir, scraping `target`
/// every second with the token in `token_file`.
fn start_prometheus(
    bin: &str,
    dir: &std::path::Path,
    target: &str,
    token_file: &std::path::Path,
) -> Prometheus {
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: deferral-host\n    metrics_path: /metrics\n    authorization:\n      credentials_file: {}\n    static_configs:\n      - targets: ['{target}']\n",
            token_file.display()
        ),
    )
    .unwrap();
    // Port 0: the kernel picks a free port as Prometheus binds it, and Prometheus logs the
    // address it got (at level info), so no port is picked here and released for it.
    let log = dir.join("prometheus.log");
    let mut child = Command::new(bin)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg("--web.listen-address=127.0.0.1:0")
        .arg("--log.level=info")
        .stdout(Stdio::null())
        .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
        .spawn()
        .unwrap();
    let address = listening_address(&mut child, &log);
    let mut prometheus = Prometheus {
        child,
        url: format!("http://{}", address.as_deref().unwrap_or("127.0.0.1:0")),
    };
    if address.is_some() && ready(&mut prometheus) {
        return prometheus;
    }
    panic!(
        "Prometheus did not start: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// Whether Prometheus answers `/-/ready` (polled for up to 30 s); false once it has exited.
fn ready(prometheus: &mut Prometheus) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        if prometheus.child.try_wait().unwrap().is_some() {
            return false;
        }
        let url = format!("{}/-/ready", prometheus.url);
        if ureq::get(url).call().is_ok_and(|r| r.status() == 200) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// `query` through Prometheus' HTTP API: the result vector, or `None` while it cannot answer.
fn query(prometheus: &Prometheus, query: &str) -> Option<Vec<Value>> {
    let mut answer = ureq::get(format!("{}/api/v1/query", prometheus.url))
        .query("query", query)
        .call()
        .ok()?;
    let body: Value = serde_json::from_str(&answer.body_mut().read_to_string().ok()?).ok()?;
    (body["status"] == "success").then(|| {
        body["data"]["result"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    })
}

/// The single value of `expr` once Prometheus has one, within `bound`.
fn wait_for_value(
    prometheus: &mut Prometheus,
    expr: &str,
    bound: Duration,
    log: &std::path::Path,
) -> f64 {
    let started = Instant::now();
    loop {
        if let Some(result) = query(prometheus, expr) {
            if let Some(sample) = result.first() {
                return sample["value"][1].as_str().unwrap().parse().unwrap();
            }
        }
        if let Some(status) = prometheus.child.try_wait().unwrap() {
            panic!(
                "prometheus exited ({status}): {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        assert!(
            started.elapsed() < bound,
            "no value for {expr} within {bound:?}: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn prometheus_scrapes_serve_and_reads_back_what_the_store_holds() {
    let Some(bin) = prometheus_binary() else {
        return;
    };
    let server = Server::start(&["--allow-launch", "exec:/bin/true"]);
    let recorded = 4;
    let mut ids = Vec::new();
    for _ in 0..recorded {
        ids.push(server.record("exec:/bin/true").0);
    }
    let token_file = server.host.path("scrape-token");
    std::fs::write(&token_file, TOKEN).unwrap();
    let dir = server.host.path("prometheus");
    std::fs::create_dir(&dir).unwrap();
    let mut prometheus = start_prometheus(&bin, &dir, &server.addr, &token_file);
    let log = dir.join("prometheus.log");

    let up = wait_for_value(
        &mut prometheus,
        "up{job=\"deferral-host\"} == 1",
        Duration::from_secs(60),
        &log,
    );
    assert_eq!(up, 1.0, "the scrape with the token succeeded");
    let waiting = wait_for_value(
        &mut prometheus,
        "deferral_host_deferrals_by_state{state=\"deferred\"}",
        Duration::from_secs(30),
        &log,
    );
    let store = server.host.open_any();
    let held = store
        .count_by_state()
        .unwrap()
        .into_iter()
        .find(|(s, _)| *s == State::Deferred)
        .map_or(0, |(_, n)| n);
    assert_eq!(held, recorded);
    assert_eq!(
        waiting, held as f64,
        "Prometheus holds what the store holds"
    );
    let by_cause = wait_for_value(
        &mut prometheus,
        "sum(deferral_host_deferrals{state=\"deferred\",cause=\"recorded\"})",
        Duration::from_secs(30),
        &log,
    );
    assert_eq!(by_cause, recorded as f64);
    let records = wait_for_value(
        &mut prometheus,
        "deferral_host_http_requests_total{route=\"record\",status=\"201\"}",
        Duration::from_secs(30),
        &log,
    );
    assert_eq!(records, recorded as f64);
}

/// The `deferral_host_*` names docs/host-api.md's Metrics section (tables, scrape config, alert
/// rules) uses, `_recovered`-style shorthands spelled out.
fn documented_names() -> (std::collections::BTreeSet<String>, String) {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/host-api.md"))
        .unwrap();
    let start = doc.find("\n## Metrics\n").expect("a Metrics section");
    let section = &doc[start..];
    let section = &section[..section[1..]
        .find("\n## ")
        .map_or(section.len(), |end| end + 1)];
    let mut names = std::collections::BTreeSet::new();
    for (at, _) in section.match_indices("deferral_host_") {
        let name: String = section[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        names.insert(name);
    }
    for short in ["_recovered", "_skipped"] {
        if section.contains(&format!("`{short}`")) {
            names.insert(format!("deferral_host_tick{short}"));
        }
    }
    let rules_start =
        section.find("```yaml\ngroups:").expect("the alert rules") + "```yaml\n".len();
    let rules = &section[rules_start..];
    (names, rules[..rules.find("```").unwrap()].to_string())
}

#[test]
fn the_documented_metrics_exist_and_the_alert_rules_pass_promtool() {
    use common::github::{Script, Standin, TARGET, TOKEN as GITHUB_TOKEN};
    let (names, rules) = documented_names();
    // What the host writes: serve's answer, and a tick's file with GitHub requests in it.
    let server = Server::start(&[]);
    let mut written = std::collections::BTreeSet::new();
    // Twice: a request is counted once answered, so the first scrape is in the second.
    for _ in 0..2 {
        let mut answer = ureq::get(format!("http://{}/metrics", server.addr))
            .header("Authorization", format!("Bearer {TOKEN}"))
            .call()
            .unwrap();
        let text = answer.body_mut().read_to_string().unwrap();
        written.extend(common::exposition::parse(&text).families.into_keys());
    }
    let standin = Standin::start();
    standin.script(Script::default());
    server.host.record(TARGET, 0, common::HOUR, &[]);
    // One held for later: its pool has a forecast drain time.
    server
        .host
        .record(TARGET, common::HOUR, 2 * common::HOUR, &[]);
    let file = server.host.path("deferral.prom");
    let out = server
        .host
        .command(&["tick", "--quiet", "--metrics-file", file.to_str().unwrap()])
        .env("GITHUB_TOKEN", GITHUB_TOKEN)
        .env("GITHUB_API_URL", &standin.api)
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    written.extend(common::exposition::parse(&text).families.into_keys());
    let missing: Vec<_> = names
        .iter()
        .filter(|n| !written.contains(*n) && *n != "deferral_host_held_deferrals")
        .collect();
    assert!(
        missing.is_empty(),
        "documented but never written: {missing:?}; written: {written:?}"
    );
    let undocumented: Vec<_> = written.iter().filter(|n| !names.contains(*n)).collect();
    assert!(
        undocumented.is_empty(),
        "written but not documented: {undocumented:?}"
    );

    let Some(bin) = prometheus_binary() else {
        return;
    };
    let promtool = std::path::Path::new(&bin).with_file_name("promtool");
    let promtool = if promtool.exists() {
        promtool
    } else {
        "promtool".into()
    };
    let path = server.host.path("rules.yml");
    std::fs::write(&path, &rules).unwrap();
    let out = Command::new(&promtool)
        .args(["check", "rules"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "promtool check rules on docs/host-api.md's rules:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
