//! Listen addresses (`unix:///path` or `host:port`) and binding them: a
//! unix socket left behind by a daemon that died is removed first (one that
//! still answers is not: another daemon is serving there), and a new one is
//! made group-accessible (0660), so Curio's user reaches it through the group.

use std::fmt;
use std::net::IpAddr;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::PathBuf;
use std::str::FromStr;

use tokio::net::{TcpListener, UnixListener};

/// Where gRPC (or metrics HTTP) is served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Address {
    /// `host:port` (a name resolved when bound; port 0 takes a free port).
    Tcp(String),
    /// An absolute socket path.
    Unix(PathBuf),
}

impl FromStr for Address {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if let Some(path) = s.strip_prefix("unix://") {
            let path = PathBuf::from(path);
            if !path.is_absolute() {
                return Err(format!("{s}: a unix socket path must be absolute (unix:///run/cuzk/cuzk.sock)"));
            }
            return Ok(Address::Unix(path));
        }
        let hostport = s.strip_prefix("tcp://").unwrap_or(s);
        let port = hostport.rsplit_once(':').map(|(host, port)| (host, port.parse::<u16>()));
        match port {
            Some((host, Ok(_))) if !host.is_empty() => Ok(Address::Tcp(hostport.to_string())),
            _ => Err(format!("{s}: expected unix:///path or host:port")),
        }
    }
}

impl Address {
    /// Whether the address is reachable from this host only: a unix socket,
    /// or a TCP host that is a loopback IP literal (127.0.0.0/8, `::1`,
    /// `::ffff:127.0.0.1`) or `localhost`. Other names are not resolved
    /// here and count as remote: what a name resolves to can change.
    pub fn is_loopback(&self) -> bool {
        let Address::Tcp(hostport) = self else { return true };
        let host = hostport.rsplit_once(':').map_or(hostport.as_str(), |(host, _)| host);
        let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
        host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.to_canonical().is_loopback())
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Tcp(a) => f.write_str(a),
            Address::Unix(p) => write!(f, "unix://{}", p.display()),
        }
    }
}

/// A bound listener.
pub(crate) enum Bound {
    /// TCP, with the address it got (the port when 0 was asked for).
    Tcp(TcpListener, std::net::SocketAddr),
    /// A unix socket, removed again when the daemon stops.
    Unix(UnixListener, PathBuf),
}

impl Bound {
    /// The bound address, as a client would dial it.
    pub(crate) fn address(&self) -> Address {
        match self {
            Bound::Tcp(_, a) => Address::Tcp(a.to_string()),
            Bound::Unix(_, p) => Address::Unix(p.clone()),
        }
    }
}

/// Binds `address`.
pub(crate) async fn bind(address: &Address) -> Result<Bound, String> {
    match address {
        Address::Tcp(a) => {
            let listener = TcpListener::bind(a.as_str()).await.map_err(|e| e.to_string())?;
            let local = listener.local_addr().map_err(|e| e.to_string())?;
            Ok(Bound::Tcp(listener, local))
        }
        Address::Unix(path) => {
            remove_stale(path)?;
            let listener = UnixListener::bind(path).map_err(|e| e.to_string())?;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
                .map_err(|e| format!("setting mode 0660: {e}"))?;
            Ok(Bound::Unix(listener, path.clone()))
        }
    }
}

/// Removes a socket nobody answers on; refuses to touch anything else.
fn remove_stale(path: &PathBuf) -> Result<(), String> {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return Ok(()) };
    if !meta.file_type().is_socket() {
        return Err(format!("{} exists and is not a socket", path.display()));
    }
    if std::os::unix::net::UnixStream::connect(path).is_ok() {
        return Err(format!("{} is in use by a running server", path.display()));
    }
    tracing::info!(path = %path.display(), "removing a stale socket");
    std::fs::remove_file(path).map_err(|e| format!("removing the stale socket: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse() {
        assert_eq!("unix:///run/c.sock".parse(), Ok(Address::Unix("/run/c.sock".into())));
        assert_eq!("127.0.0.1:9820".parse(), Ok(Address::Tcp("127.0.0.1:9820".into())));
        assert_eq!("tcp://localhost:0".parse(), Ok(Address::Tcp("localhost:0".into())));
        assert_eq!("[::1]:1".parse(), Ok(Address::Tcp("[::1]:1".into())));
        for bad in ["", "unix://x.sock", "9820", ":9820", "host:port", "host:70000"] {
            assert!(bad.parse::<Address>().is_err(), "{bad}");
        }
    }

    #[test]
    fn loopback_is_a_literal_or_localhost() {
        let local = ["127.0.0.1:1", "127.8.9.10:1", "[::1]:1", "[::ffff:127.0.0.1]:1", "localhost:0", "unix:///s"];
        for a in local {
            assert!(a.parse::<Address>().unwrap().is_loopback(), "{a}");
        }
        for a in ["0.0.0.0:1", "[::]:1", "10.0.0.1:1", "192.168.1.2:1", "prover.example:1", "localhost.evil:1"] {
            assert!(!a.parse::<Address>().unwrap().is_loopback(), "{a}");
        }
    }

    #[tokio::test]
    async fn a_stale_socket_is_replaced_and_a_live_one_or_a_file_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.sock");
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        let bound = bind(&Address::Unix(path.clone())).await.unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o660);
        let live = bind(&Address::Unix(path.clone())).await.err().unwrap();
        assert!(live.contains("in use"), "{live}");
        drop(bound);
        let file = dir.path().join("plain");
        std::fs::write(&file, b"keep me").unwrap();
        let refused = bind(&Address::Unix(file.clone())).await.err().unwrap();
        assert!(refused.contains("not a socket"), "{refused}");
        assert_eq!(std::fs::read(&file).unwrap(), b"keep me");
    }
}
