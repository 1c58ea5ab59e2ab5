//! The `[[watch]]` tables of `run --config`: the repositories whose `deferred-receipt`
//! artifacts `run` ingests, with the arguments `watch OWNER/REPO` takes, checked as `watch`
//! checks them.

use crate::error::{HostError, HostErrorKind};
use crate::github::trust::Trust;
use crate::launch::Launchers;
use crate::ops::ingest::WatchOptions;
use serde::Deserialize;

/// One `[[watch]]` table: what `watch OWNER/REPO` takes as arguments.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WatchConfig {
    pub repo: String,
    pub launch: String,
    #[serde(default, deserialize_with = "one_or_many")]
    pub workflow: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub branch: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub event: Vec<String>,
    #[serde(default)]
    pub artifact: Option<String>,
    #[serde(default)]
    pub pool: Option<String>,
    #[serde(default, rename = "max-reentries")]
    pub max_reentries: Option<u32>,
    /// Keep a commit status (or `"check-run"`: a check run) per ingested deferral on its run's
    /// commit.
    #[serde(default, rename = "commit-status")]
    pub commit_status: crate::ops::commit_status::FaceSetting,
}

/// A string, or a list of strings (`workflow = "gate.yml"` or `workflow = ["a.yml", "b.yml"]`).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(one) => vec![one],
        OneOrMany::Many(many) => many,
    })
}

impl WatchConfig {
    /// What `watch` is given for this table, checked as `watch` checks its arguments.
    pub fn options(&self) -> Result<WatchOptions, HostError> {
        crate::launch::github_names::check_repo(&self.repo)?;
        Launchers::builtin().parse(&self.launch)?;
        if let Some(pool) = &self.pool {
            crate::pools::check_name(pool)?;
        }
        for name in self.workflow.iter().chain(&self.branch).chain(&self.event) {
            if name.trim().is_empty() {
                return Err(HostError::new(
                    HostErrorKind::InvalidConfig,
                    format!(
                        "[[watch]] {}: an empty workflow, branch or event names nothing",
                        self.repo
                    ),
                ));
            }
        }
        Ok(WatchOptions {
            repo: self.repo.clone(),
            launch: self.launch.clone(),
            artifact_name: self
                .artifact
                .clone()
                .unwrap_or_else(|| crate::github::DEFAULT_ARTIFACT.to_string()),
            max_reentries: self
                .max_reentries
                .unwrap_or(deferral_core::lifecycle::DEFAULT_MAX_REENTRIES),
            pool: self.pool.clone(),
            commit_status: self.commit_status.0,
            trust: Trust {
                workflows: self.workflow.clone(),
                branches: self.branch.clone(),
                events: self.event.clone(),
            },
        })
    }
}
