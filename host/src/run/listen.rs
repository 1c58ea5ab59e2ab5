//! Another replica's notice: on a PostgreSQL store, `run` keeps one connection of its own that
//! `LISTEN`s on [`WORK_CHANNEL`]; the store's writes that change due work (a record, a
//! deferral due again, a released admission) send `NOTIFY` there at commit, with their schema
//! as payload. Each notice for this store's schema rings the scheduler's [`Wake`]. A lost
//! connection is opened again (and the scheduler woken, since notices may have been missed).

use super::wake::Wake;
use crate::store::WORK_CHANNEL;
use postgres::fallible_iterator::FallibleIterator;
use postgres::Client;
use std::sync::Arc;
use std::time::Duration;

/// How long one wait for notices lasts before the stop flag is looked at again.
const ROUND: Duration = Duration::from_millis(500);

/// Starts the listening thread for the PostgreSQL store at `url`.
pub fn start(url: String, wake: Arc<Wake>) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("deferral-listen".into())
        .spawn(move || listen(&url, &wake))
        .expect("a thread for LISTEN")
}

fn connect(url: &str) -> Result<(Client, String), String> {
    let mut client = crate::store::postgres_tls::connect(url).map_err(|e| match e {
        crate::store::postgres_tls::ConnectError::Setup(message) => message,
        crate::store::postgres_tls::ConnectError::Connect(err) => err.to_string(),
    })?;
    client
        .batch_execute(&format!("LISTEN {WORK_CHANNEL}"))
        .map_err(|e| e.to_string())?;
    let schema: Option<String> = client
        .query_one("SELECT current_schema()", &[])
        .map_err(|e| e.to_string())?
        .get(0);
    Ok((client, schema.unwrap_or_default()))
}

fn listen(url: &str, wake: &Wake) {
    let mut retry = Duration::from_millis(250);
    while !wake.is_stopping() {
        let (mut client, schema) = match connect(url) {
            Ok(connected) => connected,
            Err(why) => {
                crate::logs::message(
                    "warn",
                    "run",
                    &format!(
                        "cannot LISTEN for other replicas' notices: {why}; trying again in {} ms",
                        retry.as_millis()
                    ),
                );
                std::thread::sleep(retry);
                retry = (retry * 2).min(Duration::from_secs(30));
                continue;
            }
        };
        retry = Duration::from_millis(250);
        // Notices sent while no connection listened are lost: look once.
        wake.changed();
        let mut lost = false;
        while !lost && !wake.is_stopping() && !client.is_closed() {
            let mut notices = client.notifications();
            let mut round = notices.timeout_iter(ROUND);
            loop {
                match round.next() {
                    Ok(Some(notice)) if notice.payload() == schema => wake.changed(),
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(err) => {
                        crate::logs::message("warn", "run", &format!("LISTEN connection: {err}"));
                        lost = true;
                        break;
                    }
                }
            }
        }
    }
}
