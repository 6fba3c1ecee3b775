//! PEM files of certificates and keys, read for the daemon's TLS and the
//! client's: each read says what is wrong with the file (absent, not a
//! regular file, no certificate in it, a certificate where the key goes),
//! so a mistake is told when the file is named, not as a failed handshake
//! at the first connection.

use std::path::Path;

use tokio_rustls::rustls::pki_types::pem::{self, PemObject};
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The largest PEM file read: a chain of a few certificates, or a key, is
/// a few kilobytes; a path to something else must not be read whole.
const MAX_PEM_BYTES: u64 = 1 << 20;

/// The bytes of the PEM file `path` (a regular file of at most 1 MiB).
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_PEM_BYTES {
        return Err(format!("{} bytes, more than the {MAX_PEM_BYTES} a PEM file may have", meta.len()));
    }
    std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))
}

/// Every certificate of a PEM file, in order; a file without one is an error.
pub(crate) fn certificates(bytes: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_slice_iter(bytes).collect::<Result<Vec<_>, _>>().map_err(not_pem)?;
    if certs.is_empty() {
        return Err("no CERTIFICATE block in it".into());
    }
    Ok(certs)
}

/// The first private key of a PEM file.
pub(crate) fn private_key(bytes: &[u8]) -> Result<PrivateKeyDer<'static>, String> {
    PrivateKeyDer::from_pem_slice(bytes).map_err(|e| match e {
        pem::Error::NoItemsFound => "no PRIVATE KEY block (PKCS#8, PKCS#1 or SEC1) in it".into(),
        e => not_pem(e),
    })
}

fn not_pem(e: pem::Error) -> String {
    format!("not a readable PEM file: {e}")
}
