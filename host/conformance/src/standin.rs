//! The stand-in "GitHub" window the pool scenarios (`backlog`, `fleet`) launch against, and
//! how they run the host ([`host`]): a
//! counter file whose window of `limit` requests resets every `window_s` seconds, and the
//! resume script that plays a job's resume against it.
//!
//! The script spends `cost` when that fits above `reserve` (exit 0, a `ready` line with the
//! state it read), else defers its receipt to the next reset (exit 6, a `deferred` line). It
//! logs to files beside the counter: `launches` (`WINDOW MS ID` per launch), `spends`
//! (`WINDOW ID MS` per spend) and `redeferred` (`WINDOW ID`).

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The stand-in's quota: a window of `limit` requests every `window_s` seconds, and what the
/// resume script spends of it.
pub struct QuotaStandin<'a> {
    /// Holds the counter, its lock, the logs and the script.
    pub dir: &'a Path,
    pub window_s: u64,
    pub limit: u64,
    pub reserve: u64,
    pub cost: u64,
}

/// What the script does besides printing its line on stdout.
#[derive(Clone, Copy)]
pub struct Reports {
    /// Also append the line to `DEFERRAL_REPORT_FILE` when the host gives one, as the
    /// `deferral` CLI does (the report channel).
    pub report_file: bool,
    /// After a `ready` line, print a JSON line of the work's own (`{"status":"complete"}`), as a
    /// work script does: stdout's last line then tells the host nothing.
    pub work_line: bool,
}

impl QuotaStandin<'_> {
    /// Writes `resume.sh` into the folder and answers its `exec:` target.
    pub fn script(&self, reports: Reports) -> String {
        let d = self.dir.display();
        let body = format!(
            r#"#!/bin/sh
receipt=$(cat)
now=$(date +%s%3N)
k=$((now / {w}000))
reset=$(((k + 1) * {w}))
exec 9>>'{d}/lock'
flock 9
read wk spent < '{d}/gh' || {{ wk=$k; spent=0; }}
[ "$wk" = "$k" ] || spent=0
remaining=$(({limit} - spent))
echo "$k $now $DEFERRAL_ID" >> '{d}/launches'
rest="\"rest\":{{\"limit\":{limit},\"remaining\":$remaining,\"reserve\":{reserve},\"plannedCost\":{cost},\"reset\":$reset,\"ok\":true}}"
if [ $((remaining - {cost})) -ge {reserve} ]; then
  echo "$k $((spent + {cost}))" > '{d}/gh'
  echo "$k $DEFERRAL_ID $now" >> '{d}/spends'
  line="{{\"status\":\"ready\",\"mode\":\"resume\",\"code\":null,$rest,\"graphql\":null}}"
  echo "$line"
  {report}
  {work}
  exit 0
fi
echo "$k $DEFERRAL_ID" >> '{d}/redeferred'
after=$((reset * 1000 + 200))
new=$(printf '%s' "$receipt" | sed -e "s/\"resume_after_ms\":[0-9]*/\"resume_after_ms\":$after/" -e "s/\"resume_by_ms\":[0-9]*/\"resume_by_ms\":$((after + 600000))/")
line="{{\"status\":\"deferred\",\"mode\":\"resume\",\"code\":\"core-below-reserve\",$rest,\"graphql\":null,\"deferredReceipt\":$new}}"
echo "$line"
{report}
exit 6
"#,
            w = self.window_s,
            limit = self.limit,
            reserve = self.reserve,
            cost = self.cost,
            report = if reports.report_file {
                r#"[ -z "$DEFERRAL_REPORT_FILE" ] || printf '%s\n' "$line" >> "$DEFERRAL_REPORT_FILE""#
            } else {
                ":"
            },
            work = if reports.work_line {
                r#"echo '{"status":"complete"}'"#
            } else {
                ":"
            },
        );
        let path = self.dir.join("resume.sh");
        std::fs::write(&path, body).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        format!("exec:'{}'", path.display())
    }
}

/// Runs `bin --store STORE ARGS` (no GitHub token, no `DEFERRAL_STORE` from the test's
/// environment), asserts it succeeded, and answers its last stdout line as JSON (null when
/// it is not JSON).
pub fn host(bin: &Path, store: &str, args: &[&str]) -> Value {
    let out = Command::new(bin)
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("GITHUB_TOKEN")
        .env_remove("DEFERRAL_STORE")
        .output()
        .expect("deferral-host runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "deferral-host {args:?}: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or(Value::Null)
}
