//! A fresh PostgreSQL schema per test on the server named by `DEFERRAL_TEST_POSTGRES_URL`, so
//! tests run in parallel on one server. Without that variable a test is skipped (a line on
//! stderr), unless `DEFERRAL_REQUIRE_POSTGRES=1`, which makes it fail instead.

use postgres::{Client, NoTls};

pub struct TestSchema {
    base_url: String,
    pub name: String,
    /// The base URL with `search_path` set to this schema: what `--store` gets.
    pub url: String,
}

/// A new empty schema, or `None` (after printing why) when no server is configured.
pub fn schema_or_skip() -> Option<TestSchema> {
    match std::env::var("DEFERRAL_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(TestSchema::create(url)),
        _ if std::env::var("DEFERRAL_REQUIRE_POSTGRES").as_deref() == Ok("1") => panic!(
            "DEFERRAL_REQUIRE_POSTGRES=1 but DEFERRAL_TEST_POSTGRES_URL is unset: \
             start a server with `source scripts/postgres-test-server.sh start`"
        ),
        _ => {
            eprintln!("skipped: DEFERRAL_TEST_POSTGRES_URL is unset (this PostgreSQL test needs a server)");
            None
        }
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
