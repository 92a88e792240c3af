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

    /// The base64 SHA-256 of the certificate's SubjectPublicKeyInfo, as
    /// Chromium's `--ignore-certificate-errors-spki-list` takes it: the
    /// key pair's public key, which a certificate and its key share.
    ///
    /// # Errors
    /// The private key is not a PEM key pair rcgen reads.
    pub fn spki_pin(&self) -> Result<String, String> {
        use base64::Engine;
        let key = rcgen::KeyPair::from_pem(&self.key_pem)
            .map_err(|e| format!("cannot read the private key: {e}"))?;
        let digest = ring::digest::digest(&ring::digest::SHA256, &key.public_key_der());
        Ok(base64::engine::general_purpose::STANDARD.encode(digest.as_ref()))
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
