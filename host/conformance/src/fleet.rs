//! A fleet behind several quotas, run through a `deferral-host` binary: the scenario of the
//! fleet benchmark (`host/examples/fleet_bench.rs`, issue 26 item 7).
//!
//! Each pool has its own stand-in "GitHub" window (a counter file, `window_s` seconds long) and
//! its own jobs of one cost. A job's launch plays the resume against its pool's window (spend
//! when the cost fits above the reserve, else defer to the next reset), writes its line to the
//! host's report file as the CLI does, and then prints a JSON line of its own last, as a work
//! script does. Another program may spend part of a pool's every window beside the host. All
//! jobs are recorded deferred to the reset of a spent window; `tickers` ticks run at once every
//! `tick_every` until every job has ended.

use super::{distinct_handoff, now};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct PoolSpec {
    pub name: &'static str,
    pub jobs: usize,
    pub limit: u64,
    pub reserve: u64,
    pub cost: u64,
    /// What another program spends at the start of each of this pool's windows.
    pub other: u64,
}

impl PoolSpec {
    /// Jobs that fit one window above the reserve, after the other program's spending.
    pub fn fit(&self) -> u64 {
        (self.limit - self.reserve - self.other) / self.cost
    }

    pub fn minimum_windows(&self) -> u64 {
        (self.jobs as u64).div_ceil(self.fit())
    }
}

pub struct Fleet<'a> {
    pub bin: &'a Path,
    pub store: &'a str,
    pub dir: &'a Path,
    pub pools: Vec<PoolSpec>,
    pub window_s: u64,
    pub tickers: usize,
    pub tick_every: Duration,
    pub deadline: Duration,
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

impl Fleet<'_> {
    fn pool_dir(&self, pool: &PoolSpec) -> PathBuf {
        self.dir.join(pool.name)
    }

    fn host(&self, args: &[&str]) -> Value {
        super::standin::host(self.bin, self.store, args)
    }

    /// The launch script of `pool`: the resume against its stand-in window, the line on the
    /// report file, then the work's own line.
    fn script(&self, pool: &PoolSpec) -> String {
        let d = self.pool_dir(pool);
        std::fs::create_dir_all(&d).unwrap();
        super::standin::QuotaStandin {
            dir: &d,
            window_s: self.window_s,
            limit: pool.limit,
            reserve: pool.reserve,
            cost: pool.cost,
        }
        .script(super::standin::Reports {
            report_file: true,
            work_line: true,
        })
    }

    /// Another program beside the host: at the start of each window of `pool` it spends
    /// `pool.other` (under the same lock as the jobs), until killed.
    fn other_program(&self, pool: &PoolSpec) -> Option<Child> {
        if pool.other == 0 {
            return None;
        }
        let d = self.pool_dir(pool);
        let d = d.display();
        let body = format!(
            r#"last=-1
while :; do
  k=$(($(date +%s%3N) / {w}000))
  if [ "$k" != "$last" ]; then
    ( flock 9
      read wk spent < '{d}/gh' || {{ wk=$k; spent=0; }}
      [ "$wk" = "$k" ] || spent=0
      echo "$k $((spent + {other}))" > '{d}/gh'
      echo "$k" >> '{d}/other' ) 9>>'{d}/lock'
    last=$k
  fi
  sleep 0.05
done"#,
            w = self.window_s,
            other = pool.other,
        );
        Some(
            Command::new("sh")
                .arg("-c")
                .arg(body)
                .stdout(Stdio::null())
                .spawn()
                .expect("sh runs"),
        )
    }

    fn ticks(&self) {
        let children: Vec<_> = (0..self.tickers)
            .map(|_| {
                Command::new(self.bin)
                    .arg("--store")
                    .arg(self.store)
                    .args([
                        "tick",
                        "--quiet",
                        "--pool-buffer",
                        "200ms",
                        "--pool-jitter",
                        "100ms",
                    ])
                    .env_remove("GITHUB_TOKEN")
                    .env_remove("DEFERRAL_STORE")
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("deferral-host runs")
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().expect("tick ends");
            assert!(
                out.status.success(),
                "tick: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// The first forecast of each pool's drain made once the pool has learned its window
    /// length from consecutive resets (before that the forecast assumes GitHub's hour): when it
    /// was read and the drain it gave, both in milliseconds.
    fn sample_forecasts(&self, forecasts: &mut [Option<(u64, u64)>]) {
        let window_ms = self.window_s * 1000;
        let listed = self.host(&["status", "--pools", "--json"]);
        let at = now();
        for (i, pool) in self.pools.iter().enumerate() {
            if forecasts[i].is_some() {
                continue;
            }
            let Some(view) = listed["pools"]
                .as_array()
                .and_then(|all| all.iter().find(|p| p["pool"] == pool.name))
            else {
                continue;
            };
            let learned = view["rest"]["learned_window_length_ms"]
                .as_u64()
                .is_some_and(|l| l.abs_diff(window_ms) * 5 <= window_ms);
            if let (true, Some(drain)) = (learned, view["expected_drain_ms"].as_u64()) {
                forecasts[i] = Some((at, drain));
            }
        }
    }

    /// Records the fleet, ticks until every job has ended or the deadline passes, and reports
    /// per pool.
    pub fn run(&self) -> Value {
        // Only `init` creates a store (harmless on one that exists).
        self.host(&["init"]);
        let window_ms = self.window_s * 1000;
        let total: usize = self.pools.iter().map(|p| p.jobs).sum();
        let k0 = (now() + 1_000 + 150 * total as u64).div_ceil(window_ms) - 1;
        let reset_s = (k0 + 1) * self.window_s;
        let mut ids: Vec<(usize, String, u64)> = Vec::new();
        for (i, pool) in self.pools.iter().enumerate() {
            let launch = self.script(pool);
            std::fs::write(
                self.pool_dir(pool).join("gh"),
                format!("{k0} {}\n", pool.limit),
            )
            .unwrap();
            for j in 0..pool.jobs {
                let at = now();
                let after = (reset_s * 1000 + 200).saturating_sub(at).max(1);
                let receipt = distinct_handoff(at, after, after + 900_000).to_json();
                let (limit, reserve, cost) = (pool.limit, pool.reserve, pool.cost);
                let line = format!(
                    r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","reason":"rest-reserve","rest":{{"limit":{limit},"remaining":0,"reserve":{reserve},"plannedCost":{cost},"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":{cost},"graphql":0,"contentCreating":{cost}}},"deferredReceipt":{receipt}}}"#
                );
                let file = self.pool_dir(pool).join(format!("gate-{j}.json"));
                std::fs::write(&file, line).unwrap();
                let out = self.host(&[
                    "record",
                    "--launch",
                    &launch,
                    "--pool",
                    pool.name,
                    file.to_str().unwrap(),
                ]);
                ids.push((i, out["id"].as_str().unwrap().to_string(), at + after));
            }
        }
        let others: Vec<Child> = self
            .pools
            .iter()
            .filter_map(|p| self.other_program(p))
            .collect();
        let started = Instant::now();
        let mut forecasts: Vec<Option<(u64, u64)>> = vec![None; self.pools.len()];
        loop {
            self.ticks();
            self.sample_forecasts(&mut forecasts);
            let listed = self.host(&["status", "--json"]);
            let live = listed["deferrals"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| matches!(d["state"].as_str(), Some("deferred" | "resumable")))
                .count();
            if live == 0 || started.elapsed() > self.deadline {
                break;
            }
            std::thread::sleep(self.tick_every);
        }
        for mut other in others {
            let _ = other.kill();
            let _ = other.wait();
        }
        let listed = self.host(&["status", "--json"]);
        let state_of = |id: &str| -> String {
            listed["deferrals"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["id"] == id)
                .and_then(|d| d["state"].as_str())
                .unwrap_or("?")
                .to_string()
        };
        let mut report = Vec::new();
        for (i, pool) in self.pools.iter().enumerate() {
            let d = self.pool_dir(pool);
            let mut windows: Vec<String> = lines(&d.join("spends"))
                .iter()
                .filter_map(|l| l.split(' ').next().map(str::to_string))
                .collect();
            windows.dedup();
            let launches = lines(&d.join("launches"));
            let redeferred = lines(&d.join("redeferred"));
            let others: Vec<String> = lines(&d.join("other"));
            let forced = redeferred
                .iter()
                .filter(|l| others.iter().any(|k| l.split(' ').next() == Some(k)))
                .count();
            let mine: Vec<&(usize, String, u64)> = ids.iter().filter(|(p, _, _)| *p == i).collect();
            let complete = mine
                .iter()
                .filter(|(_, id, _)| state_of(id) == "complete")
                .count();
            // Held time: from when a job was due to its last launch.
            let mut waits: Vec<u64> = mine
                .iter()
                .filter_map(|(_, id, due)| {
                    launches
                        .iter()
                        .filter(|l| l.ends_with(id.as_str()))
                        .filter_map(|l| l.split(' ').nth(1)?.parse::<u64>().ok())
                        .max()
                        .map(|t| t.saturating_sub(*due))
                })
                .collect();
            waits.sort_unstable();
            let minimum = pool.minimum_windows();
            let drained = launches
                .iter()
                .filter_map(|l| l.split(' ').nth(1)?.parse::<u64>().ok())
                .max();
            let forecast = forecast_json(forecasts[i], drained, window_ms);
            report.push(json!({
                "pool": pool.name,
                "jobs": pool.jobs,
                "limit": pool.limit, "reserve": pool.reserve, "cost": pool.cost,
                "other_program_spends_per_window": pool.other,
                "complete": complete,
                "launches": launches.len(),
                "re_deferrals": redeferred.len(),
                "re_deferrals_in_windows_the_other_program_spent_in": forced,
                "windows_used": windows.len(),
                "minimum_windows": minimum,
                "target_windows": (1.1 * minimum as f64).floor() as u64 + 1,
                "held_ms_median": waits.get(waits.len() / 2).copied().unwrap_or(0),
                "held_ms_max": waits.last().copied().unwrap_or(0),
                "forecast": forecast,
            }));
        }
        json!({
            "jobs": total,
            "tickers": self.tickers,
            "window_s": self.window_s,
            "seconds": started.elapsed().as_secs_f64().round(),
            "pools": report,
        })
    }
}

/// A pool's forecast against its actual drain (its last launch): the error in windows.
fn forecast_json(forecast: Option<(u64, u64)>, drained: Option<u64>, window_ms: u64) -> Value {
    let Some((read_ms, drain_ms)) = forecast else {
        return json!({"read": false});
    };
    let error_ms = drained.map(|d| d.abs_diff(drain_ms));
    json!({
        "read": true,
        "read_before_drain_ms": drained.map(|d| d.saturating_sub(read_ms)),
        "forecast_error_ms": error_ms,
        "forecast_error_windows": error_ms.map(|e| (e as f64 / window_ms as f64 * 100.0).round() / 100.0),
        "forecast_early": drained.map(|d| drain_ms < d),
    })
}
