//! The `[[gate]]` tables of `run --config`: which pool a repository's environment gate waits
//! in, and what each job behind it costs, checked when the file is read (and again on SIGHUP).
//!
//! ```toml
//! [[gate]]
//! repo = "octo/app"
//! environment = "github-quota"
//! pool = "app-42"
//! cost = { rest = 300, graphql = 0 }   # or: cost = 300, or: plan = "/etc/deferral/sync-plan.json"
//! priority = 0
//! fairness-key = "octo/app"
//! resume-by = "6h"
//! commit-status = true
//! ```

use crate::clock::parse_duration;
use crate::error::{HostError, HostErrorKind};
use crate::store::pools::{Cost, Resource};
use deferral_core::plan::Plan;
use deferral_protocol::PerResource;
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

/// How long a job may wait when the table names no `resume-by`.
pub const DEFAULT_RESUME_BY_MS: u64 = 6 * 3_600_000;
/// The longest: a receipt's window is at most 24 hours (DESIGN section 2).
pub const MAX_RESUME_BY_MS: u64 = deferral_core::receipt::MAX_WINDOW_MS;
/// The largest plan file read.
const MAX_PLAN_BYTES: u64 = 1 << 20;

/// A job's cost as the table gives it: REST requests, or the cost object.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum CostConfig {
    Rest(u64),
    Object(CostObject),
}

/// The cost object: each resource by its wire name (`rest`, `graphql`) and `content`, each
/// optional (0); other keys are not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CostObject(pub Cost);

impl<'de> Deserialize<'de> for CostObject {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<CostObject, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = CostObject;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a cost table")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<CostObject, A::Error> {
                let mut cost = Cost::default();
                while let Some(key) = map.next_key::<String>()? {
                    if Cost::names().any(|name| name == key) {
                        cost = cost.with_named(&key, map.next_value()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(CostObject(cost))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// One `[[gate]]` table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateConfig {
    pub repo: String,
    pub environment: String,
    #[serde(default)]
    pub pool: Option<String>,
    #[serde(default)]
    pub cost: Option<CostConfig>,
    #[serde(default)]
    pub plan: Option<PathBuf>,
    #[serde(default)]
    pub priority: Option<i64>,
    #[serde(default, rename = "fairness-key")]
    pub fairness_key: Option<String>,
    #[serde(default, rename = "resume-by")]
    pub resume_by: Option<String>,
    #[serde(default, rename = "max-reentries")]
    pub max_reentries: Option<u32>,
    /// Keep a commit status per job on its commit (`deferral/ENVIRONMENT`); the App then needs
    /// Commit statuses: read and write. `"check-run"`: a check run instead (Checks: read and
    /// write), with a cancel button while the job waits.
    #[serde(default, rename = "commit-status")]
    pub commit_status: crate::ops::commit_status::FaceSetting,
}

/// A checked `[[gate]]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateOptions {
    pub repo: String,
    pub environment: String,
    pub pool: Option<String>,
    pub cost: Cost,
    /// The plan document, when the cost is a plan's (its digest binds the receipt).
    pub plan: Option<Value>,
    pub priority: Option<i64>,
    pub fairness_key: Option<String>,
    pub resume_by_ms: u64,
    pub max_reentries: u32,
    /// How the job shows on its commit, if at all.
    pub commit_status: Option<crate::store::Face>,
}

fn invalid(table: &GateConfig, why: impl std::fmt::Display) -> HostError {
    HostError::new(
        HostErrorKind::InvalidConfig,
        format!("[[gate]] {} {:?}: {why}", table.repo, table.environment),
    )
}

impl GateConfig {
    /// The table checked: a repository, an environment, a pool name, exactly one of `cost` and
    /// `plan`, a fairness key, and a `resume-by` of at most 24 hours.
    pub fn options(&self) -> Result<GateOptions, HostError> {
        crate::launch::github_names::check_repo(&self.repo)?;
        let environment_ok = !self.environment.trim().is_empty()
            && self.environment.chars().count() <= 255
            && !self.environment.chars().any(char::is_control);
        if !environment_ok {
            return Err(invalid(
                self,
                "environment must be 1 to 255 characters, none a control character",
            ));
        }
        if let Some(pool) = &self.pool {
            crate::pools::check_name(pool)?;
        }
        if let Some(key) = &self.fairness_key {
            if !deferral_protocol::FairnessKey::is_valid(key) {
                return Err(invalid(
                    self,
                    "fairness-key must be 1 to 200 characters, none a control character",
                ));
            }
        }
        let (cost, plan) = match (&self.cost, &self.plan) {
            (Some(cost), None) => (cost_of(cost), None),
            (None, Some(path)) => {
                let (cost, plan) = read_plan(path).map_err(|why| invalid(self, why))?;
                (cost, Some(plan))
            }
            _ => {
                return Err(invalid(
                    self,
                    "give the cost of one job: `cost` (REST requests, or { rest, graphql, content }) or `plan` (a plan file), one of them",
                ))
            }
        };
        let resume_by_ms = match &self.resume_by {
            None => DEFAULT_RESUME_BY_MS,
            Some(text) => {
                let d =
                    parse_duration(text).map_err(|e| invalid(self, format!("resume-by: {e}")))?;
                u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
            }
        };
        if !(1000..=MAX_RESUME_BY_MS).contains(&resume_by_ms) {
            return Err(invalid(
                self,
                "resume-by must be between 1s and 24h (a receipt's window is at most 24 hours)",
            ));
        }
        Ok(GateOptions {
            repo: self.repo.clone(),
            environment: self.environment.clone(),
            pool: self.pool.clone(),
            cost,
            plan,
            priority: self.priority,
            fairness_key: self.fairness_key.clone(),
            resume_by_ms,
            max_reentries: self
                .max_reentries
                .unwrap_or(deferral_core::lifecycle::DEFAULT_MAX_REENTRIES),
            commit_status: self.commit_status.0,
        })
    }
}

fn cost_of(cost: &CostConfig) -> Cost {
    match *cost {
        CostConfig::Rest(rest) => Cost::default().with(Resource::Rest, rest),
        CostConfig::Object(CostObject(cost)) => cost,
    }
}

/// A plan file's cost and document (the core's plan rules, DESIGN section 4).
fn read_plan(path: &std::path::Path) -> Result<(Cost, Value), String> {
    use std::io::Read;
    let shown = path.display();
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_PLAN_BYTES + 1).read_to_string(&mut text))
        .map_err(|e| format!("cannot read the plan {shown}: {e}"))?;
    if text.len() as u64 > MAX_PLAN_BYTES {
        return Err(format!("the plan {shown} is larger than 1 MiB"));
    }
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("the plan {shown} is not JSON: {e}"))?;
    let cost = Plan::from_value(&value)
        .and_then(|plan| plan.cost())
        .map_err(|e| format!("the plan {shown}: {e}"))?;
    Ok((
        Cost {
            resources: PerResource::from_fn(|r| cost.of(r)),
            content: cost.content_creating,
        },
        value,
    ))
}

/// Checks every table, and that no repository's environment is named twice.
pub fn check_all(tables: &[GateConfig]) -> Result<Vec<GateOptions>, HostError> {
    let gates = tables
        .iter()
        .map(GateConfig::options)
        .collect::<Result<Vec<_>, _>>()?;
    for (i, gate) in gates.iter().enumerate() {
        if gates[..i]
            .iter()
            .any(|g| g.repo.eq_ignore_ascii_case(&gate.repo) && g.environment == gate.environment)
        {
            return Err(invalid(&tables[i], "is named by two [[gate]] tables"));
        }
    }
    Ok(gates)
}

/// `run`'s gates checked: the tables, and what answering a rule needs (the webhook, to hear of
/// a request, and a GitHub App, the only credentials GitHub lets answer one).
pub fn check_for_run(
    tables: &[GateConfig],
    webhooks: bool,
    client: Option<&crate::github::client::GithubClient>,
) -> Result<Vec<GateOptions>, HostError> {
    let gates = check_all(tables)?;
    if gates.is_empty() {
        return Ok(gates);
    }
    if !webhooks {
        return Err(HostError::new(
            HostErrorKind::InvalidConfig,
            "[[gate]] needs github-webhook-secret-file: GitHub tells the host of a waiting job by a deployment_protection_rule delivery",
        ));
    }
    if !client.is_some_and(|c| c.is_app()) {
        return Err(HostError::new(
            HostErrorKind::NoGithubCredentials,
            "[[gate]] needs --github-app-id with --github-app-key: only a GitHub App's installation token may answer a deployment protection rule",
        ));
    }
    Ok(gates)
}

/// The gates a delivery is taken for, shared by the port and `run`'s scheduler, which replaces
/// them on SIGHUP.
#[derive(Clone, Default)]
pub struct Gates(Arc<RwLock<Vec<GateOptions>>>);

impl Gates {
    pub fn replace(&self, gates: Vec<GateOptions>) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = gates;
    }

    /// The gate of `repo`'s `environment` (GitHub compares repository names without case).
    pub fn find(&self, repo: &str, environment: &str) -> Option<GateOptions> {
        self.0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|g| g.repo.eq_ignore_ascii_case(repo) && g.environment == environment)
            .cloned()
    }
}

impl std::fmt::Debug for Gates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.read().map(|g| g.len()).unwrap_or(0);
        write!(f, "Gates {{ {n} gate(s) }}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(extra: &str) -> Result<GateOptions, String> {
        let text = format!("repo = \"octo/app\"\nenvironment = \"github-quota\"\n{extra}");
        let config: GateConfig = toml::from_str(&text).map_err(|e| e.to_string())?;
        config.options().map_err(|e| e.message)
    }

    #[test]
    fn a_table_gives_its_cost_once_and_a_window_of_at_most_a_day() {
        let gate = table("cost = 10\npool = \"app-42\"\nresume-by = \"2h\"").unwrap();
        assert_eq!(
            (gate.cost.of(Resource::Rest), gate.resume_by_ms),
            (10, 7_200_000)
        );
        let gate = table("cost = { rest = 3, graphql = 5 }").unwrap();
        assert_eq!(
            (
                gate.cost.of(Resource::Rest),
                gate.cost.of(Resource::Graphql)
            ),
            (3, 5)
        );
        assert_eq!(gate.resume_by_ms, DEFAULT_RESUME_BY_MS);
        assert!(table("").unwrap_err().contains("give the cost"));
        assert!(table("cost = 1\nplan = \"/p.json\"")
            .unwrap_err()
            .contains("one of them"));
        assert!(table("cost = 1\nresume-by = \"25h\"")
            .unwrap_err()
            .contains("24h"));
        assert!(
            table("cost = 1\nlaunch = \"x\"").is_err(),
            "unknown keys are refused"
        );
        assert!(table("cost = 1\npool = \"no spaces\"").is_err());
    }
}
