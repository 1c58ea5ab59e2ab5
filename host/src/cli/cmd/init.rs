//! `init`: the one command that creates a store (or migrates one that exists).

use crate::cli::args::Cli;
use crate::cli::store_open::{integrity, store_url};
use crate::error::HostError;
use crate::store::StoreUrl;
use serde_json::json;

pub(in crate::cli) fn execute(cli: &Cli) -> Result<(), HostError> {
    let url = store_url(cli)?;
    let existed = url.exists()?;
    drop(url.open(integrity(cli))?);
    let store = match &url {
        StoreUrl::Sqlite(path) => format!("sqlite:{}", path.display()),
        StoreUrl::Postgres(_) => "postgres".to_string(),
    };
    out!("{}", json!({"store": store, "created": !existed}));
    Ok(())
}
