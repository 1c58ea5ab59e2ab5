//! A backlog of jobs behind one quota, run through a `deferral-host` binary: the scenario of
//! the pools test (`host/tests/pool_backlog.rs`) and of its benchmark (`bench/host/pools.sh`).
//!
//! Each job's launch is a script that plays the resume against a stand-in "GitHub": a counter
//! file whose window of `limit` requests resets every `window_s` seconds. It spends `cost` when
//! that fits above `reserve` (exit 0, a `ready` line with the state it read), else it defers its
//! receipt to the next reset (exit 6, a `deferred` line). Every job is recorded deferred to the
//! same reset of a spent window, as its gate's line (or only its `deferredReceipt`), and
//! `tickers` ticks (processes at once) run every `tick_every` until every job has ended.

use super::{distinct_handoff, now};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Backlog<'a> {
    pub bin: &'a Path,
    pub store: &'a str,
    /// Holds the stand-in's files and the script.
    pub dir: &'a Path,
    pub jobs: usize,
    pub limit: u64,
    pub reserve: u64,
    pub cost: u64,
    pub window_s: u64,
    /// Record each gate's whole line in pool `app-42` and tick with a short pool buffer (a host
    /// with pools); else record the bare receipts with nothing else (any host).
    pub gate_lines: bool,
    /// The work prints a JSON line of its own last (`{"status":"complete"}`) after the resume's
    /// `ready` line, as a work script does: the host then learns nothing from stdout.
    pub work_line: bool,
    /// The resume also writes its line to `DEFERRAL_REPORT_FILE` when the host gives one, as
    /// the `deferral` CLI does (the report channel).
    pub report_file: bool,
    pub deadline: Duration,
    pub tick_every: Duration,
    /// `tick` processes started at once each time (several tickers on one store).
    pub tickers: usize,
}

/// One job of a backlog run with [`Backlog::run_jobs`].
#[derive(Debug, Clone, Default)]
pub struct Job {
    /// `record --fairness-key` (default: none given).
    pub key: Option<String>,
    /// `record --priority` (default: none given).
    pub priority: Option<i64>,
    /// Launched by a copy of the resume script named `resume-PROGRAM.sh` (another program:
    /// its default fairness key differs); default: the one script.
    pub program: Option<String>,
    /// Recorded once the first launch was seen, deferred to the stand-in's next reset (work
    /// that comes while a backlog drains); else recorded before the first tick.
    pub late: bool,
}

pub struct BacklogRun {
    /// Each job's id, in the order of the jobs given.
    pub ids: Vec<String>,
    /// `(window, id)` of each spend, in order.
    pub spends: Vec<(u64, String)>,
    /// When the last job spent (epoch ms): the backlog's actual drain.
    pub drained_ms: Option<u64>,
    /// `(when, the pool's expected_drain_ms)` read by `status --pools --json` after each round
    /// of ticks while jobs were held (a host with pools).
    pub drain_forecasts: Vec<(u64, u64)>,
    /// When each late job became due: the stand-in window it was deferred to.
    pub late_due_window: Option<u64>,
    pub states: Vec<String>,
    pub causes: Vec<String>,
    pub launches: usize,
    /// Launches per stand-in window: `(window, launches that began in it)`, in order.
    pub launches_per_window: Vec<(u64, usize)>,
    /// The stand-in windows jobs spent in (distinct).
    pub windows: Vec<u64>,
    /// A dry-run tick taken while jobs were held (a host with pools).
    pub held_seen: Option<Value>,
    /// The status page (`status --html`) at that moment.
    pub page_seen: Option<String>,
    pub elapsed: Duration,
}

impl BacklogRun {
    pub fn count(&self, state: &str) -> usize {
        self.states.iter().filter(|s| *s == state).count()
    }
}

impl Backlog<'_> {
    /// Jobs that fit one window above the reserve.
    pub fn fit(&self) -> u64 {
        (self.limit - self.reserve) / self.cost
    }

    /// The fewest windows the backlog can complete in.
    pub fn minimum_windows(&self) -> u64 {
        (self.jobs as u64).div_ceil(self.fit())
    }

    fn host(&self, args: &[&str]) -> Value {
        super::standin::host(self.bin, self.store, args)
    }

    fn script(&self) -> String {
        super::standin::QuotaStandin {
            dir: self.dir,
            window_s: self.window_s,
            limit: self.limit,
            reserve: self.reserve,
            cost: self.cost,
        }
        .script(super::standin::Reports {
            report_file: self.report_file,
            work_line: self.work_line,
        })
    }

    /// The gate's line for one job deferred to `reset_s` (plus `offset_ms`: jobs recorded in
    /// order are due in that order), or its bare receipt.
    fn gate_input(&self, reset_s: u64, offset_ms: u64) -> String {
        let at = now();
        // Recorded after the reset (a slow machine): due at once, in a window the stand-in
        // has not spent.
        let after = (reset_s * 1000 + 200 + offset_ms).saturating_sub(at).max(1);
        let receipt = distinct_handoff(at, after, after + 600_000).to_json();
        if !self.gate_lines {
            return receipt;
        }
        let (limit, reserve, cost) = (self.limit, self.reserve, self.cost);
        format!(
            r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","reason":"rest-reserve","rest":{{"limit":{limit},"remaining":0,"reserve":{reserve},"plannedCost":{cost},"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":{cost},"graphql":0,"contentCreating":{cost}}},"deferredReceipt":{receipt}}}"#
        )
    }

    /// One round of ticks: `tickers` `tick` processes started at once, each waited for.
    fn ticks(&self, extra: &[&str]) {
        let mut args: Vec<&str> = if self.gate_lines {
            vec![
                "tick",
                "--quiet",
                "--pool-buffer",
                "200ms",
                "--pool-jitter",
                "100ms",
            ]
        } else {
            vec!["tick", "--quiet"]
        };
        args.extend(extra);
        let args = &args[..];
        if self.tickers <= 1 {
            self.host(args);
            return;
        }
        let children: Vec<_> = (0..self.tickers)
            .map(|_| {
                Command::new(self.bin)
                    .arg("--store")
                    .arg(self.store)
                    .args(args)
                    .env_remove("GITHUB_TOKEN")
                    .env_remove("DEFERRAL_STORE")
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("deferral-host runs")
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().expect("tick ends");
            assert!(
                out.status.success(),
                "deferral-host {args:?}: {} {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// Records the backlog and ticks until every job has ended or the deadline passes.
    pub fn run(&self) -> BacklogRun {
        self.run_jobs(&vec![Job::default(); self.jobs], &[])
    }

    fn record(&self, launch: &str, i: usize, job: &Job, reset_s: u64) -> String {
        let file = self.dir.join(format!("gate-{i}.json"));
        // Late jobs are due with the window's first admissions (the pool's buffer after the
        // reset); the others one millisecond apart, in the order they are given.
        let offset = if job.late { 0 } else { i as u64 };
        std::fs::write(&file, self.gate_input(reset_s, offset)).unwrap();
        let priority = job.priority.map(|p| p.to_string());
        let copy = job.program.as_ref().map(|name| {
            let path = self.dir.join(format!("resume-{name}.sh"));
            if !path.exists() {
                std::fs::copy(self.dir.join("resume.sh"), &path).unwrap();
            }
            format!("exec:'{}'", path.display())
        });
        let launch = copy.as_deref().unwrap_or(launch);
        let mut args = vec!["record", "--launch", launch];
        if self.gate_lines {
            args.extend(["--pool", "app-42"]);
        }
        if let Some(key) = &job.key {
            args.extend(["--fairness-key", key]);
        }
        if let Some(p) = &priority {
            args.extend(["--priority", p]);
        }
        args.push(file.to_str().unwrap());
        self.host(&args)["id"].as_str().unwrap().to_string()
    }

    /// [`Backlog::run`] of `jobs` (each with its key, priority, and whether it comes late),
    /// ticking with `tick_args` added.
    pub fn run_jobs(&self, jobs: &[Job], tick_args: &[&str]) -> BacklogRun {
        // Only `init` creates a store (harmless on one that exists).
        self.host(&["init"]);
        let launch = self.script();
        let window_ms = self.window_s * 1000;
        // The window before `reset_s` is spent: every gate defers to its reset, far enough
        // away for the recording to end before it.
        let k0 = (now() + 500 + 100 * jobs.len() as u64).div_ceil(window_ms) - 1;
        std::fs::write(self.dir.join("gh"), format!("{k0} {}\n", self.limit)).unwrap();
        let reset_s = (k0 + 1) * self.window_s;
        let mut ids = vec![String::new(); jobs.len()];
        for (i, job) in jobs.iter().enumerate().filter(|(_, j)| !j.late) {
            ids[i] = self.record(&launch, i, job, reset_s);
        }
        let mut late_due_window = None;
        let mut drain_forecasts = Vec::new();
        let started = Instant::now();
        let mut held_seen = None;
        let mut page_seen = None;
        loop {
            self.ticks(tick_args);
            let launched = self.dir.join("launches").exists();
            if launched && late_due_window.is_none() && jobs.iter().any(|j| j.late) {
                let k = now() / window_ms;
                late_due_window = Some(k + 1);
                for (i, job) in jobs.iter().enumerate().filter(|(_, j)| j.late) {
                    ids[i] = self.record(&launch, i, job, (k + 1) * self.window_s);
                }
            }
            let listed = self.host(&["status", "--json"]);
            let rows: Vec<&Value> = listed["deferrals"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| ids.iter().any(|id| d["id"] == id.as_str()))
                .collect();
            let live = rows
                .iter()
                .filter(|s| matches!(s["state"].as_str(), Some("deferred" | "resumable")))
                .count();
            if self.gate_lines && live > 0 {
                let pools = self.host(&["status", "--pools", "--json"]);
                let drain = pools["pools"]
                    .as_array()
                    .and_then(|l| l.iter().find(|p| p["pool"] == "app-42"))
                    .and_then(|p| p["expected_drain_ms"].as_u64());
                if let Some(drain) = drain {
                    drain_forecasts.push((now(), drain));
                }
            }
            if held_seen.is_none()
                && rows
                    .iter()
                    .any(|s| s.get("held").is_some_and(|h| !h.is_null()))
            {
                held_seen = Some(self.host(&["tick", "--dry-run"]));
                let page = self.dir.join("page.html");
                self.host(&["status", "--html", page.to_str().unwrap()]);
                page_seen = std::fs::read_to_string(&page).ok();
            }
            if live == 0 || started.elapsed() > self.deadline {
                let lines = |name: &str| -> Vec<String> {
                    std::fs::read_to_string(self.dir.join(name))
                        .map(|t| t.lines().map(str::to_string).collect())
                        .unwrap_or_default()
                };
                let fields: Vec<Vec<String>> = lines("spends")
                    .iter()
                    .map(|l| l.split_whitespace().map(str::to_string).collect())
                    .collect();
                let spends: Vec<(u64, String)> = fields
                    .iter()
                    .map(|f| (f[0].parse().unwrap(), f[1].clone()))
                    .collect();
                let drained_ms = fields.iter().filter_map(|f| f[2].parse().ok()).max();
                let mut windows: Vec<u64> = spends.iter().map(|s| s.0).collect();
                windows.dedup();
                let mut launches_per_window: Vec<(u64, usize)> = Vec::new();
                for line in lines("launches") {
                    let k: u64 = line.split(' ').next().unwrap().parse().unwrap();
                    match launches_per_window.iter_mut().find(|(w, _)| *w == k) {
                        Some((_, n)) => *n += 1,
                        None => launches_per_window.push((k, 1)),
                    }
                }
                launches_per_window.sort_unstable();
                let text = |key: &str| {
                    rows.iter()
                        .map(|s| s[key].as_str().unwrap_or("").to_string())
                        .collect()
                };
                return BacklogRun {
                    ids: ids.clone(),
                    spends,
                    drained_ms,
                    drain_forecasts: drain_forecasts.clone(),
                    late_due_window,
                    states: text("state"),
                    causes: text("cause"),
                    launches: lines("launches").len(),
                    launches_per_window,
                    windows,
                    held_seen,
                    page_seen,
                    elapsed: started.elapsed(),
                };
            }
            std::thread::sleep(self.tick_every);
        }
    }
}
