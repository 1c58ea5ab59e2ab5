//! SIGHUP, read on a thread of its own: the configuration is read and checked there, the
//! webhook's secrets (and watches) replaced at once, and the scheduler's new settings handed to
//! the scheduler, which takes them before its next pass. So a secret rotated out is refused
//! from the moment the file is read, even while the scheduler is inside a long `exec:` launch
//! (a pass can last up to a lease). A configuration that does not check changes nothing.

use super::scheduler::{Pending, Settings};
use super::wake::Wake;
use super::{Outside, RunArgs};
use crate::error::{HostError, HostErrorKind};
use crate::webhook::Intake;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;

/// Starts the thread that answers SIGHUP; the answer is a bell to ring at each one (several
/// rung while one is read make one more read). The thread ends when the bell is dropped.
pub fn start(
    outside: Outside,
    intake: Option<Intake>,
    wake: Arc<Wake>,
    pending: Pending,
) -> Result<SyncSender<()>, HostError> {
    let (bell, rung) = sync_channel::<()>(1);
    std::thread::Builder::new()
        .name("deferral-reload".into())
        .spawn(move || {
            while rung.recv().is_ok() {
                reload(&outside, intake.as_ref(), &wake, &pending);
            }
        })
        .map_err(|e| {
            HostError::new(
                HostErrorKind::RuntimeFailed,
                format!("cannot start the reload thread: {e}"),
            )
        })?;
    Ok(bell)
}

fn log(level: &str, message: &str) {
    crate::logs::message(level, "run", message);
}

/// Reads the command line and the file as they are now; when all of it checks, the secrets and
/// watches apply now and the scheduler's settings from its next pass.
fn reload(outside: &Outside, intake: Option<&Intake>, wake: &Wake, pending: &Pending) {
    let read = (outside.reload)().and_then(|args| {
        // Checked here, built again on the scheduler's thread.
        let settings = Settings::from_args(&args, outside)?;
        let secrets = webhook_secrets(&args, intake.is_some())?;
        Ok((
            args,
            settings.watches().to_vec(),
            settings.gates().to_vec(),
            secrets,
        ))
    });
    match read {
        Ok((args, watches, gates, secrets)) => {
            if let (Some(intake), Some(secrets)) = (intake, secrets) {
                intake.replace(secrets, watches);
                intake.gates().replace(gates);
            }
            if let Ok(mut slot) = pending.lock() {
                *slot = Some(args);
            }
            wake.reload();
            log(
                "info",
                "configuration read again (SIGHUP): the webhook's secrets apply now, the scheduler's settings from its next pass",
            );
        }
        Err(err) => log(
            "error",
            &format!("configuration not applied, the running one stays: {err}"),
        ),
    }
}

/// The webhook's secrets read again from their file, when webhooks run; an error when the
/// configuration now turns them on or off, which needs a restart.
fn webhook_secrets(args: &RunArgs, running: bool) -> Result<Option<Vec<Vec<u8>>>, HostError> {
    match (running, args.webhook.secrets()?) {
        (true, Some(secrets)) => Ok(Some(secrets)),
        (false, None) => Ok(None),
        (true, None) => Err(HostError::new(
            HostErrorKind::InvalidConfig,
            "github-webhook-secret-file is no longer given: turning webhooks off needs a restart",
        )),
        (false, Some(_)) => Err(HostError::new(
            HostErrorKind::InvalidConfig,
            "github-webhook-secret-file is new: turning webhooks on needs a restart",
        )),
    }
}
