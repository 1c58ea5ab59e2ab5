//! A fresh PostgreSQL schema per test on the server named by `DEFERRAL_TEST_POSTGRES_URL`, so
//! tests run in parallel on one server. Without that variable a PostgreSQL test **fails**
//! (saying how to start a server), unless the skip is asked for explicitly with
//! `DEFERRAL_SKIP_POSTGRES=1`: a plain `cargo test` never reports a PostgreSQL test as passed
//! when it did not run.

use postgres::{Client, NoTls};

pub struct TestSchema {
    base_url: String,
    pub name: String,
    /// The base URL with `search_path` set to this schema: what `--store` gets.
    pub url: String,
}

/// A new empty schema; `None` (after a line on stderr) only when `DEFERRAL_SKIP_POSTGRES=1`.
pub fn schema_or_skip() -> Option<TestSchema> {
    let url = std::env::var("DEFERRAL_TEST_POSTGRES_URL").unwrap_or_default();
    let skip = std::env::var("DEFERRAL_SKIP_POSTGRES").as_deref() == Ok("1");
    match (url.is_empty(), skip) {
        (false, _) => Some(TestSchema::create(url)),
        (true, true) => {
            eprintln!("skipped: DEFERRAL_SKIP_POSTGRES=1 (this PostgreSQL test did not run)");
            None
        }
        (true, false) => panic!(
            "this PostgreSQL test needs a server: `source scripts/postgres-test-server.sh start` \
             (sets DEFERRAL_TEST_POSTGRES_URL), or skip it explicitly with DEFERRAL_SKIP_POSTGRES=1"
        ),
    }
}

impl TestSchema {
    fn create(base_url: String) -> TestSchema {
        let name = format!("t_{}", &deferral_host::handle::new_handle()[..16]);
        let mut admin = Client::connect(&base_url, NoTls).expect("connect to the test server");
        admin
            .batch_execute(&format!("CREATE SCHEMA {name}"))
            .expect("create the test schema");
        let separator = if base_url.contains('?') { '&' } else { '?' };
        let url = format!("{base_url}{separator}options=-c%20search_path%3D{name}");
        TestSchema {
            base_url,
            name,
            url,
        }
    }

    /// A plain connection to this schema, for checks below the `Store` trait.
    pub fn client(&self) -> Client {
        Client::connect(&self.url, NoTls).expect("connect to the test schema")
    }
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        if let Ok(mut admin) = Client::connect(&self.base_url, NoTls) {
            let _ = admin.batch_execute(&format!("DROP SCHEMA {} CASCADE", self.name));
        }
    }
}
