//! The check runs' side of the GitHub stand-in, shaped as GitHub's REST description gives it:
//! `POST /repos/{owner}/{repo}/check-runs` (201, the check run with its `id`), `PATCH
//! /repos/{owner}/{repo}/check-runs/{check_run_id}` (200), `GET
//! /repos/{owner}/{repo}/collaborators/{username}/permission` (`permission`, `role_name`,
//! `user`), and the `check_run` `requested_action` delivery a press of a button sends the App.
//!
//! It refuses what GitHub refuses (422): a completed run without a conclusion, more than 3
//! actions or one over its limits (label 20, description 40, identifier 20 characters), an
//! output without title or summary; and it refuses to change a run once `completed` (integrators
//! report GitHub does not move a completed run on), so the host must make a new one.

use super::github::{REPO, REPO_ID};
use serde_json::{json, Value};

/// One write of a check run: `POST` (a new one) or `PATCH`.
#[derive(Debug, Clone)]
pub struct CheckWrite {
    pub method: String,
    pub id: u64,
    pub body: Value,
    /// Whether the stand-in took it.
    pub taken: bool,
}

impl CheckWrite {
    pub fn status(&self) -> &str {
        self.body["status"].as_str().unwrap_or_default()
    }
    pub fn conclusion(&self) -> Option<&str> {
        self.body["conclusion"].as_str()
    }
    pub fn buttons(&self) -> Vec<String> {
        self.body["actions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|b| b["identifier"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
    pub fn summary(&self) -> &str {
        self.body["output"]["summary"].as_str().unwrap_or_default()
    }
}

/// The check runs made and every write.
#[derive(Debug, Default)]
pub struct Checks {
    /// The check runs as they are now (GitHub's shape), by id order.
    pub runs: Vec<Value>,
    pub writes: Vec<CheckWrite>,
}

fn valid(body: &Value) -> bool {
    let status = body["status"].as_str().unwrap_or("queued");
    let conclusion = body["conclusion"].as_str();
    let status_ok = matches!(status, "queued" | "in_progress" | "completed")
        && (status != "completed" || conclusion.is_some());
    let conclusion_ok = conclusion.is_none_or(|c| {
        [
            "action_required",
            "cancelled",
            "failure",
            "neutral",
            "success",
            "skipped",
            "timed_out",
        ]
        .contains(&c)
    });
    let output_ok = body.get("output").is_none_or(|o| {
        o["title"].as_str().is_some() && o["summary"].as_str().is_some_and(|s| s.len() <= 65_535)
    });
    let within = |v: &Value, key: &str, max: usize| {
        v[key]
            .as_str()
            .is_some_and(|s| !s.is_empty() && s.chars().count() <= max)
    };
    let actions_ok = body.get("actions").is_none_or(|a| {
        a.as_array().is_some_and(|a| {
            a.len() <= 3
                && a.iter().all(|b| {
                    within(b, "label", 20)
                        && within(b, "description", 40)
                        && within(b, "identifier", 20)
                })
        })
    });
    status_ok && conclusion_ok && output_ok && actions_ok
}

impl Checks {
    /// `POST /repos/{owner}/{repo}/check-runs`.
    pub fn create(&mut self, body: &[u8]) -> (u16, Value) {
        let body: Value = serde_json::from_slice(body).unwrap_or_default();
        let id = 880_000 + self.runs.len() as u64 + 1;
        let named = body["name"].as_str().is_some_and(|n| !n.is_empty())
            && body["head_sha"].as_str().is_some_and(|s| s.len() == 40);
        let taken = named && valid(&body);
        self.writes.push(CheckWrite {
            method: "POST".into(),
            id,
            body: body.clone(),
            taken,
        });
        if !taken {
            return (422, json!({"message": "Validation Failed"}));
        }
        let mut run = body;
        run["id"] = json!(id);
        if run.get("status").is_none() {
            run["status"] = json!("queued");
        }
        self.runs.push(run.clone());
        (201, run)
    }

    /// `PATCH /repos/{owner}/{repo}/check-runs/{id}`.
    pub fn update(&mut self, id: u64, body: &[u8]) -> (u16, Value) {
        let body: Value = serde_json::from_slice(body).unwrap_or_default();
        let Some(run) = self.runs.iter_mut().find(|r| r["id"] == id) else {
            return (404, json!({"message": "Not Found"}));
        };
        let taken = run["status"] != "completed" && valid(&body);
        self.writes.push(CheckWrite {
            method: "PATCH".into(),
            id,
            body: body.clone(),
            taken,
        });
        if !taken {
            return (422, json!({"message": "Validation Failed"}));
        }
        for (key, value) in body.as_object().unwrap() {
            run[key] = value.clone();
        }
        (200, run.clone())
    }

    /// The writes taken, in order.
    pub fn taken(&self) -> Vec<CheckWrite> {
        self.writes.iter().filter(|w| w.taken).cloned().collect()
    }
}

/// `GET .../collaborators/{login}/permission` for a login given `permission` (`None`: not a
/// collaborator, 404).
pub fn permission_answer(login: &str, permission: Option<&str>) -> (u16, Value) {
    match permission {
        Some(p) => (
            200,
            json!({"permission": p, "role_name": p,
                "user": {"login": login, "id": 1000, "type": "User"}}),
        ),
        None => (404, json!({"message": "Not Found"})),
    }
}

/// The delivery GitHub sends the App when `login` presses button `identifier` of check run
/// `check_run_id` (`webhook-check-run-requested-action`).
pub fn pressed(check_run: &Value, identifier: &str, login: &str, sender_id: u64) -> Value {
    json!({
        "action": "requested_action",
        "check_run": {
            "id": check_run["id"],
            "node_id": "CR_kwDOtest",
            "head_sha": check_run["head_sha"],
            "external_id": check_run["external_id"],
            "url": format!("https://api.github.example/repos/{REPO}/check-runs/{}", check_run["id"]),
            "html_url": format!("https://github.example/{REPO}/runs/{}", check_run["id"]),
            "details_url": check_run["details_url"],
            "status": check_run["status"],
            "conclusion": check_run["conclusion"],
            "started_at": check_run["started_at"],
            "completed_at": check_run["completed_at"],
            "output": check_run["output"],
            "name": check_run["name"],
            "check_suite": {"id": 5, "head_sha": check_run["head_sha"]},
            "app": {"id": 4242, "slug": "deferral-test"},
            "pull_requests": [],
        },
        "requested_action": {"identifier": identifier},
        "repository": {"id": REPO_ID, "node_id": "R_kgDOtest", "name": "app", "full_name": REPO,
            "private": false, "owner": {"login": "octo-org", "id": 1, "type": "Organization"}},
        "organization": {"login": "octo-org", "id": 1},
        "installation": {"id": 7, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNw=="},
        "sender": {"login": login, "id": sender_id, "type": "User"},
    })
}
