//! Certificates: a server's PEM pair from files, or a generated
//! self-signed one for `localhost` and 127.0.0.1 (tests, emulated runs,
//! a quick `bbrlab serve`).

use std::path::Path;

/// A certificate chain and its private key, PEM-encoded.
#[derive(Clone, Debug)]
pub struct Identity {
    /// The certificate (chain), PEM.
    pub cert_pem: String,
    /// The private key, PEM.
    pub key_pem: String,
}

impl Identity {
    /// A fresh self-signed certificate for `localhost`, 127.0.0.1 and ::1.
    ///
    /// # Errors
    /// Key generation failed.
    pub fn self_signed() -> Result<Identity, String> {
        let names = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
        let certified = rcgen::generate_simple_self_signed(names)
            .map_err(|e| format!("cannot generate a self-signed certificate: {e}"))?;
        Ok(Identity {
            cert_pem: certified.cert.pem(),
            key_pem: certified.key_pair.serialize_pem(),
        })
    }

    /// Reads a PEM certificate and key.
    ///
    /// # Errors
    /// A file cannot be read or does not hold what it should; the message
    /// names the file.
    pub fn from_files(cert: &Path, key: &Path) -> Result<Identity, String> {
        let read = |path: &Path, what: &str, marker: &str| -> Result<String, String> {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("{}: cannot read the {what}: {e}", path.display()))?;
            if !text.contains(marker) {
                return Err(format!(
                    "{}: expected a PEM {what} (a \"{marker}\" block)",
                    path.display()
                ));
            }
            Ok(text)
        };
        Ok(Identity {
            cert_pem: read(cert, "certificate", "-----BEGIN CERTIFICATE-----")?,
            key_pem: read(key, "private key", "PRIVATE KEY-----")?,
        })
    }
}
