//! The signals `run` answers, on the port's runtime: SIGTERM and SIGINT stop it (the port
//! stops taking requests, the scheduler finishes its pass; a second one ends the process at
//! once, exit 1), SIGHUP reads the configuration again (on the reload thread, `super::reload`,
//! never waiting for the scheduler's pass).

use super::wake::Wake;
use crate::error::{HostError, HostErrorKind};
use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use tokio::signal::unix::{signal, SignalKind};

/// Watches the signals; the future resolves at the first SIGTERM or SIGINT, after telling the
/// scheduler to stop. Must be called on the runtime.
/// Each SIGHUP rings `hangup` (the reload thread's bell).
pub fn watch(
    wake: Arc<Wake>,
    hangup: SyncSender<()>,
) -> Result<impl std::future::Future<Output = ()>, HostError> {
    let failed = |e: std::io::Error| {
        HostError::new(
            HostErrorKind::SignalFailed,
            format!("cannot watch for signals: {e}"),
        )
    };
    let mut term = signal(SignalKind::terminate()).map_err(failed)?;
    let mut int = signal(SignalKind::interrupt()).map_err(failed)?;
    let mut hup = signal(SignalKind::hangup()).map_err(failed)?;
    tokio::spawn(async move {
        while hup.recv().await.is_some() {
            // Full: a read is due already and takes this one's file too.
            let _ = hangup.try_send(());
        }
    });
    Ok(async move {
        let name = tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        };
        crate::logs::message(
            "info",
            "run",
            &format!("{name}: taking no more work; the running pass finishes first (a second SIGTERM or SIGINT stops at once)"),
        );
        wake.stop();
        // A second signal does not wait for the running launch: the process ends now and the
        // launch's lease is recovered by the next pass of any scheduler on this store.
        tokio::spawn(async move {
            let name = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            crate::logs::message(
                "warn",
                "run",
                &format!("second {name}: stopping now; a running launch is recovered when its lease ends"),
            );
            std::process::exit(i32::from(crate::error::EXIT_FAILURE));
        });
    })
}
