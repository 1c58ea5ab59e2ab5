//! The PostgreSQL store over TLS (rustls): `sslmode` and `sslrootcert` in the store URL, against
//! the test server, which offers TLS with a throwaway CA whose certificate names 127.0.0.1.

mod common;

use common::pg::schema_or_skip;
use deferral_host::store::{IntegrityCheck, PostgresStore};

fn ca() -> String {
    std::env::var("DEFERRAL_TEST_POSTGRES_CA").expect(
        "DEFERRAL_TEST_POSTGRES_CA is unset: scripts/postgres-test-server.sh sets it (it needs openssl)",
    )
}

/// Whether the store's own connection is encrypted, as the server sees it.
fn encrypted(store: &PostgresStore) -> bool {
    store
        .client()
        .query_one(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .unwrap()
        .get(0)
}

fn open(url: &str) -> Result<PostgresStore, String> {
    PostgresStore::open(url, IntegrityCheck::Off).map_err(|e| e.to_string())
}

fn refused(url: &str) -> String {
    match open(url) {
        Ok(_) => panic!("connected, but it should have been refused"),
        Err(err) => err,
    }
}

#[test]
fn sslmode_require_and_verify_full_encrypt_and_disable_does_not() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let ca = ca();
    let url = |params: &str| format!("{}&{params}", schema.url);
    assert!(encrypted(&open(&url("sslmode=require")).unwrap()));
    assert!(encrypted(
        &open(&url(&format!("sslmode=verify-full&sslrootcert={ca}"))).unwrap()
    ));
    assert!(!encrypted(&open(&url("sslmode=disable")).unwrap()));
    assert!(
        encrypted(&open(&schema.url).unwrap()),
        "the default (prefer) encrypts when the server offers TLS"
    );
}

#[test]
fn verify_full_refuses_an_unknown_ca_and_another_host_name() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let ca = ca();
    let err = refused(&format!("{}&sslmode=verify-full", schema.url));
    assert!(err.contains("certificate"), "an unknown issuer: {err}");
    // The same server as "localhost": its certificate names 127.0.0.1 only.
    let by_name = schema.url.replace("127.0.0.1", "localhost");
    let err = refused(&format!("{by_name}&sslmode=verify-full&sslrootcert={ca}"));
    assert!(err.contains("certificate"), "another host name: {err}");
    // verify-ca checks the chain only, as libpq's does.
    let store = open(&format!("{by_name}&sslmode=verify-ca&sslrootcert={ca}")).unwrap();
    assert!(encrypted(&store));
    let err = refused(&format!(
        "{}&sslmode=verify-full&sslrootcert=/nonexistent.pem",
        schema.url
    ));
    assert!(err.contains("sslrootcert"), "{err}");
    let err = refused(&format!("{}&sslmode=sometimes", schema.url));
    assert!(err.contains("sslmode"), "{err}");
}
