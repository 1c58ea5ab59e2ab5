//! TLS for the PostgreSQL store, on rustls: the store URL's `sslmode` and `sslrootcert`, read
//! as libpq reads them.
//!
//! | `sslmode` | encrypted | server checked |
//! |---|---|---|
//! | `disable` | no | no |
//! | `prefer` (the default) | when the server offers it | no |
//! | `require` | always | no; with `sslrootcert`, the chain as `verify-ca` |
//! | `verify-ca` | always | the chain, against `sslrootcert` (else the Mozilla roots) |
//! | `verify-full` | always | the chain and that the certificate names the host |
//!
//! tokio-postgres knows only `disable`, `prefer` and `require` and no `sslrootcert`, so both
//! are taken out of the URL here and turned into its TLS mode and a rustls configuration.
//!
//! It knows nothing of the store: [`super::postgres`] calls [`connect`] and turns a
//! [`ConnectError`] into its own error.

use postgres::config::SslMode;
use postgres::{Client, NoTls};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// The TLS part of a store URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    pub mode: TlsMode,
    pub root_cert: Option<PathBuf>,
}

/// Why [`connect`] failed.
#[derive(Debug)]
pub enum ConnectError {
    /// The URL's TLS settings or the TLS setup: a sentence for the user.
    Setup(String),
    /// The connection itself (refused, handshake, authentication).
    Connect(postgres::Error),
}

fn invalid(message: String) -> ConnectError {
    ConnectError::Setup(message)
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Takes `sslmode` and `sslrootcert` out of `url`: the URL left for tokio-postgres, and the settings.
pub fn split(url: &str) -> Result<(String, TlsSettings), ConnectError> {
    let mut settings = TlsSettings {
        mode: TlsMode::Prefer,
        root_cert: None,
    };
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), settings));
    };
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslmode" => {
                settings.mode = match percent_decode(value).as_str() {
                    "disable" => TlsMode::Disable,
                    "prefer" => TlsMode::Prefer,
                    "require" => TlsMode::Require,
                    "verify-ca" => TlsMode::VerifyCa,
                    "verify-full" => TlsMode::VerifyFull,
                    other => {
                        return Err(invalid(format!(
                    "sslmode {other:?} is not disable, prefer, require, verify-ca or verify-full"
                )))
                    }
                }
            }
            "sslrootcert" => settings.root_cert = Some(PathBuf::from(percent_decode(value))),
            _ => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((rest, settings))
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn roots(settings: &TlsSettings) -> Result<rustls::RootCertStore, ConnectError> {
    let Some(path) = &settings.root_cert else {
        return Ok(rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        });
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .and_then(Iterator::collect)
        .map_err(|e| invalid(format!("cannot read sslrootcert {}: {e}", path.display())))?;
    let mut store = rustls::RootCertStore::empty();
    let (added, _) = store.add_parsable_certificates(certs);
    if added == 0 {
        return Err(invalid(format!(
            "sslrootcert {} holds no usable certificate",
            path.display()
        )));
    }
    Ok(store)
}

/// Encrypts without checking who answers (libpq's `prefer` and `require`): the handshake's
/// signatures are still verified, the certificate is not.
#[derive(Debug)]
struct EncryptOnly(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for EncryptOnly {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}

/// libpq's `verify-ca`: the chain must lead to a trusted root; the host name is not checked.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

fn client_config(settings: &TlsSettings) -> Result<rustls::ClientConfig, ConnectError> {
    let provider = provider();
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid(format!("TLS setup: {e}")))?;
    let mode = match (settings.mode, &settings.root_cert) {
        (TlsMode::Require, Some(_)) => TlsMode::VerifyCa,
        (mode, _) => mode,
    };
    let verifier: Arc<dyn ServerCertVerifier> = match mode {
        TlsMode::Disable | TlsMode::Prefer | TlsMode::Require => {
            Arc::new(EncryptOnly(provider.signature_verification_algorithms))
        }
        TlsMode::VerifyCa | TlsMode::VerifyFull => {
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots(settings)?), provider)
                    .build()
                    .map_err(|e| invalid(format!("TLS setup: {e}")))?;
            if mode == TlsMode::VerifyCa {
                Arc::new(ChainOnly(webpki))
            } else {
                webpki
            }
        }
    };
    Ok(builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth())
}

/// Connects to `url` with the TLS its `sslmode` asks for.
pub fn connect(url: &str) -> Result<Client, ConnectError> {
    let (rest, settings) = split(url)?;
    let mut config: postgres::Config = rest
        .parse()
        .map_err(|e: postgres::Error| invalid(format!("invalid PostgreSQL URL: {e}")))?;
    let connected = match settings.mode {
        TlsMode::Disable => config.ssl_mode(SslMode::Disable).connect(NoTls),
        mode => {
            let tls = MakeRustlsConnect::new(client_config(&settings)?);
            let ssl = if mode == TlsMode::Prefer {
                SslMode::Prefer
            } else {
                SslMode::Require
            };
            config.ssl_mode(ssl).connect(tls)
        }
    };
    connected.map_err(ConnectError::Connect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_tls_settings_out_of_the_url() {
        let (rest, s) = split("postgres://u@h:5/db?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&options=-c%20x%3Dy").unwrap();
        assert_eq!(rest, "postgres://u@h:5/db?options=-c%20x%3Dy");
        assert_eq!(
            s,
            TlsSettings {
                mode: TlsMode::VerifyFull,
                root_cert: Some("/etc/ca.pem".into())
            }
        );
        let (rest, s) = split("postgres://u@h/db").unwrap();
        assert_eq!(
            (rest.as_str(), s.mode),
            ("postgres://u@h/db", TlsMode::Prefer)
        );
        let (rest, s) = split("postgres://u@h/db?sslmode=disable").unwrap();
        assert_eq!(
            (rest.as_str(), s.mode),
            ("postgres://u@h/db", TlsMode::Disable)
        );
        assert!(split("postgres://u@h/db?sslmode=allow-everything").is_err());
        assert_eq!(percent_decode("a%20b%2"), "a b%2");
    }
}
