//! The port's flags, shared by `serve` and `run`, and the one place they become the
//! [`ServeOptions`] of the port: the token, the launch policy and the connection limits.

use crate::error::{HostError, HostErrorKind};
use crate::launch::{LaunchPolicy, Launchers};
use crate::private_file::{self, Holds};
use crate::serve::{Limits, Policy, ServeOptions};
use crate::store::StoreUrl;
use clap::Args;
use std::path::PathBuf;

/// Largest token file read.
const MAX_TOKEN_FILE_BYTES: u64 = 64 * 1024;

#[derive(Args, Debug, Clone)]
pub struct PortArgs {
    /// Address to listen on (port 0: any free port). Anything but loopback prints a warning.
    #[arg(long, default_value = "127.0.0.1:8787", value_name = "ADDR:PORT")]
    pub listen: String,
    /// File whose first line is the bearer token (instead of DEFERRAL_SERVE_TOKEN): a regular
    /// file of this user's (or root's) that no one else may read (`chmod 600`). Under systemd,
    /// `LoadCredential=` puts it in $CREDENTIALS_DIRECTORY: give that path.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// A launch target a request may name (repeatable): `exec:/ABS/PROGRAM` (that program with
    /// any arguments), `exec:/ABS/PROGRAM ARGS` (exactly those), a full
    /// `workflow-dispatch:O/R/W@REF`, or `exec:` / `workflow-dispatch:` alone for any target of
    /// that kind. Never a prefix. Default: `workflow-dispatch:` only, since an `exec:` target
    /// runs a program on this host.
    #[arg(long, value_name = "TARGET")]
    pub allow_launch: Vec<String>,
    /// Open connections at most; at the cap a new connection sheds the oldest idle one.
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub max_connections: usize,
    /// Milliseconds a client has, from connecting (or its previous answer), to send a whole
    /// request, head and body; also how long an idle kept-alive connection stays open.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub request_timeout_ms: u64,
    /// Webhook requests handled at once (GitHub's deliveries take no token, so until their
    /// signature is checked anyone may send one): the rest of --max-connections stays for token
    /// holders. Default: a quarter of --max-connections, at most 64.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub webhook_connections: Option<u32>,
    /// Largest webhook body read, in bytes (1 KiB to 25 MiB, GitHub's own cap). A
    /// `workflow_run` delivery is 20-40 KB.
    #[arg(
        long,
        default_value_t = crate::serve::unsigned::DEFAULT_MAX_BODY as u32,
        value_name = "BYTES",
        value_parser = clap::value_parser!(u32).range(1024..=25 * 1024 * 1024)
    )]
    pub webhook_max_body_bytes: u32,
    /// Do not check that `exec:` programs (allowed or requested) exist here (they live on the
    /// machine that runs tick).
    #[arg(long)]
    pub no_check: bool,
}

impl PortArgs {
    /// The bearer token: `--token-file`'s first line, else `DEFERRAL_SERVE_TOKEN`; at least
    /// [`crate::serve::MIN_TOKEN_LEN`] characters.
    pub fn token(&self) -> Result<String, HostError> {
        let token = match &self.token_file {
            Some(path) => {
                let what = format!("the port's token file {}", path.display());
                let bytes = private_file::read(path, Holds::Secret, MAX_TOKEN_FILE_BYTES).map_err(
                    |refusal| {
                        HostError::new(
                            HostErrorKind::NoToken,
                            refusal.message(&what, path, Holds::Secret),
                        )
                    },
                )?;
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string()
            }
            None => std::env::var("DEFERRAL_SERVE_TOKEN")
                .unwrap_or_default()
                .trim()
                .to_string(),
        };
        if token.len() < crate::serve::MIN_TOKEN_LEN {
            return Err(HostError::new(
                HostErrorKind::NoToken,
                "the port needs a bearer token of at least 16 characters: --token-file FILE or DEFERRAL_SERVE_TOKEN",
            ));
        }
        Ok(token)
    }

    /// The port's options over `store` with `token`; `pools` is how admissions count a window
    /// that reset (`--pool-buffer`). Checks that allowed `exec:` programs exist (`--no-check`).
    pub fn serve_options(
        &self,
        token: String,
        store: StoreUrl,
        pools: crate::pools::PoolOptions,
    ) -> Result<ServeOptions, HostError> {
        let launchers = Launchers::builtin();
        let launch_policy = if self.allow_launch.is_empty() {
            LaunchPolicy::by_default(&launchers)
        } else {
            LaunchPolicy::parse(&launchers, &self.allow_launch)?
        };
        if !self.no_check {
            for target in launch_policy.targets() {
                target.check_installed()?;
            }
        }
        Ok(ServeOptions {
            // GitHub's webhooks are set by the command that has their flags (`serve`).
            webhook: None,
            listen: self.listen.clone(),
            token,
            store,
            policy: Policy {
                launch_policy,
                check_programs: !self.no_check,
                pools,
            },
            limits: Limits {
                max_connections: self.max_connections,
                request_timeout: std::time::Duration::from_millis(self.request_timeout_ms),
                webhook_connections: self.webhook_connections()?,
                webhook_max_body: self.webhook_max_body_bytes as usize,
                ..Limits::default()
            },
        })
    }

    /// `--webhook-connections`, or its default; below `--max-connections`, so token holders
    /// always keep a share.
    fn webhook_connections(&self) -> Result<usize, HostError> {
        let Some(given) = self.webhook_connections else {
            return Ok(crate::serve::unsigned::default_connections(
                self.max_connections,
            ));
        };
        let given = given as usize;
        if given >= self.max_connections {
            return Err(HostError::new(
                HostErrorKind::InvalidValue,
                format!(
                    "--webhook-connections ({given}) must be below --max-connections ({}): the rest of the cap is what token holders are sure of",
                    self.max_connections
                ),
            ));
        }
        Ok(given)
    }
}
