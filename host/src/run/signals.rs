//! The signals `run` answers, on the port's runtime: SIGTERM and SIGINT stop it (the port
//! stops taking requests, the scheduler finishes its pass), SIGHUP reads the configuration
//! again (see [`super::config`]).

use super::wake::Wake;
use crate::error::{HostError, HostErrorKind};
use std::sync::Arc;
use tokio::signal::unix::{signal, SignalKind};

/// Watches the signals; the future resolves at the first SIGTERM or SIGINT, after telling the
/// scheduler to stop. Must be called on the runtime.
pub fn watch(wake: Arc<Wake>) -> Result<impl std::future::Future<Output = ()>, HostError> {
    let failed = |e: std::io::Error| {
        HostError::new(
            HostErrorKind::SignalFailed,
            format!("cannot watch for signals: {e}"),
        )
    };
    let mut term = signal(SignalKind::terminate()).map_err(failed)?;
    let mut int = signal(SignalKind::interrupt()).map_err(failed)?;
    let mut hup = signal(SignalKind::hangup()).map_err(failed)?;
    let reload = wake.clone();
    tokio::spawn(async move {
        while hup.recv().await.is_some() {
            reload.reload();
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
            &format!("{name}: taking no more work; the running pass finishes first"),
        );
        wake.stop();
    })
}
