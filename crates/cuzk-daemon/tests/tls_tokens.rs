//! TLS and bearer tokens on the daemon's TCP listener, with certificates
//! rcgen makes as the tests run (tests/support/pki.rs): a status over TLS
//! with the right CA and none with another; the certificate replaced by a
//! reload (what SIGHUP does), a bad one refused with the old kept; a
//! listener that requires client certificates refusing a client without
//! one or with one of another CA; bearer tokens (none or an unknown one:
//! `UNAUTHENTICATED`, before the body is decoded; a kind, a priority, a
//! job or parameters beyond the token's: `PERMISSION_DENIED`; one token's
//! jobs hidden from another; a proof within the token's grant proved),
//! the unix socket needing none; `cuzk client`'s blocking client with all
//! of it; and the start refused for unusable PEM or tokens files and for a
//! plain listener beyond loopback.

mod support;

use std::path::{Path, PathBuf};
use std::time::Instant;

use cuzk_daemon::client::{Client as Blocking, ClientError, Options, Token};
use cuzk_daemon::proto::{self, proving_engine_client::ProvingEngineClient};
use cuzk_daemon::{DaemonError, TlsConfig};
use support::pki::{self, Ca};
use support::{mul_chain_params, start, status, timed, token_entry, workload, LARGE, SMALL};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use tonic::Code;

use proto::await_proof_response::Status as AwaitStatus;

/// GetStatus over TLS to `addr`, trusting `ca`, with the client
/// certificate and key `identity` when given; an error of the connection
/// or of the call, as text.
async fn tls_status(
    addr: &str,
    ca: &Path,
    identity: Option<(&Path, &Path)>,
) -> Result<proto::GetStatusResponse, String> {
    let read = |p: &Path| std::fs::read(p).unwrap();
    let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read(ca)));
    if let Some((cert, key)) = identity {
        tls = tls.identity(Identity::from_pem(read(cert), read(key)));
    }
    let endpoint = Endpoint::from_shared(format!("https://{addr}")).unwrap().tls_config(tls).unwrap();
    let channel = endpoint.connect().await.map_err(|e| format!("connect: {e:?}"))?;
    let mut client = ProvingEngineClient::new(channel);
    client.get_status(proto::GetStatusRequest {}).await.map(|r| r.into_inner()).map_err(|s| format!("call: {s:?}"))
}

/// A plain (no TLS) channel to `addr`.
async fn plain_channel(addr: &str) -> tonic::transport::Channel {
    Endpoint::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap()
}

/// A request carrying `authorization: Bearer <token>`.
fn bearer<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    request
}

/// Runs `f` on a thread of its own (the blocking client has a runtime of
/// its own, which must not start on one of the test's) and awaits it.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let thread = std::thread::spawn(f);
    tokio::task::spawn_blocking(move || thread.join().unwrap()).await.unwrap()
}

/// A server certificate of `ca` and its key, written into `dir`; their paths.
fn server_files(ca: &Ca, dir: &Path) -> (PathBuf, PathBuf) {
    let leaf = ca.server();
    (pki::write(dir, "server.pem", &leaf.cert), pki::write(dir, "server.key", &leaf.key))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_answers_a_client_of_the_right_ca_and_a_reload_replaces_the_certificate() {
    let t = Instant::now();
    let files = tempfile::tempdir().unwrap();
    let dir = files.path();
    let (ca, other) = (Ca::new("cuzk test CA"), Ca::new("another CA"));
    let (ca_pem, other_pem) = (pki::write(dir, "ca.pem", &ca.pem), pki::write(dir, "other.pem", &other.pem));
    let (cert, key) = server_files(&ca, dir);
    let tls = TlsConfig { cert: cert.clone(), key: key.clone(), client_ca: None };
    let daemon = start(move |c| c.server.tls = Some(tls)).await;

    let s = tls_status(&daemon.tcp, &ca_pem, None).await.unwrap();
    assert_eq!(s.gpus[0].name, "cpu");
    let refused = tls_status(&daemon.tcp, &other_pem, None).await.unwrap_err();
    assert!(refused.contains("UnknownIssuer"), "{refused}");
    // Plain HTTP/2 to the TLS port is not answered.
    let plain = async {
        let channel = Endpoint::from_shared(format!("http://{}", daemon.tcp)).unwrap().connect().await?;
        ProvingEngineClient::new(channel).get_status(proto::GetStatusRequest {}).await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    };
    assert!(plain.await.is_err(), "a plain client was answered on the TLS listener");
    // The unix socket is served as before.
    daemon.unix().await.get_status(proto::GetStatusRequest {}).await.unwrap();

    // cuzk client's blocking client: https with --tls-ca, refused with another CA.
    let (addr, trusted) = (daemon.tcp.clone(), ca_pem.clone());
    let options = Options { tls_ca: Some(trusted), ..Options::default() };
    let answered = blocking(move || Blocking::connect_with(&addr, &options)?.status()).await;
    assert_eq!(answered.unwrap().gpus[0].name, "cpu");
    let (addr, wrong) = (daemon.tcp.clone(), other_pem.clone());
    let options = Options { tls_ca: Some(wrong), ..Options::default() };
    match blocking(move || Blocking::connect_with(&addr, &options).map(drop)).await {
        Err(ClientError::Connect { reason, .. }) => assert!(reason.contains("UnknownIssuer"), "{reason}"),
        other => panic!("{other:?}"),
    }

    // A reload (SIGHUP) puts the other CA's certificate in place for new connections.
    let leaf = other.server();
    std::fs::write(&cert, &leaf.cert).unwrap();
    std::fs::write(&key, &leaf.key).unwrap();
    daemon.reloader.reload().unwrap();
    tls_status(&daemon.tcp, &other_pem, None).await.unwrap();
    assert!(tls_status(&daemon.tcp, &ca_pem, None).await.is_err(), "the old certificate is still served");
    // A key that is not one is refused, naming it, and the certificate in use stays.
    std::fs::write(&key, "not a key\n").unwrap();
    match daemon.reloader.reload() {
        Err(DaemonError::Tls { key: "server.tls.key", path, reason }) => {
            assert_eq!(path, key);
            assert!(reason.contains("no PRIVATE KEY"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    tls_status(&daemon.tcp, &other_pem, None).await.unwrap();
    daemon.stop().await;
    timed("tls_answers_a_client_of_the_right_ca_and_a_reload_replaces_the_certificate", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutual_tls_answers_only_clients_with_a_certificate_of_its_client_ca() {
    let t = Instant::now();
    mul_chain_params(SMALL);
    let files = tempfile::tempdir().unwrap();
    let dir = files.path();
    let (ca, clients, other) = (Ca::new("cuzk test CA"), Ca::new("clients CA"), Ca::new("another CA"));
    let ca_pem = pki::write(dir, "ca.pem", &ca.pem);
    let client_ca = pki::write(dir, "clients.pem", &clients.pem);
    let (good, stranger) = (clients.client("curio"), other.client("stranger"));
    let (good_cert, good_key) = (pki::write(dir, "curio.pem", &good.cert), pki::write(dir, "curio.key", &good.key));
    let (odd_cert, odd_key) = (pki::write(dir, "odd.pem", &stranger.cert), pki::write(dir, "odd.key", &stranger.key));
    let (cert, key) = server_files(&ca, dir);
    let tokens = pki::write(dir, "tokens.toml", &token_entry("curio", "curio-token", r#"["mul-chain"]"#, "normal"));
    let tls = TlsConfig { cert, key, client_ca: Some(client_ca) };
    let daemon = start(move |c| {
        c.server.tls = Some(tls);
        c.server.tokens_file = Some(tokens);
        c.server.require_token = true;
    })
    .await;

    // Refused by the TLS layer, before the token check (which would say
    // UNAUTHENTICATED). The client sees the server's alert
    // (CertificateRequired, UnknownCA) or, when the server has closed the
    // connection first, only that it closed.
    for identity in [None, Some((odd_cert.as_path(), odd_key.as_path()))] {
        let refused = tls_status(&daemon.tcp, &ca_pem, identity).await.unwrap_err();
        eprintln!("client certificate {identity:?}: {refused}");
        assert!(!refused.contains("Unauthenticated"), "{refused}");
    }
    // With a certificate the TLS is accepted, and the token is still required.
    let no_token = tls_status(&daemon.tcp, &ca_pem, Some((&good_cert, &good_key))).await.unwrap_err();
    assert!(no_token.contains("Unauthenticated"), "{no_token}");

    // cuzk client's blocking client with all three: CA, certificate, token.
    let addr = daemon.tcp.clone();
    let options = Options {
        tls_ca: Some(ca_pem.clone()),
        tls_identity: Some((good_cert.clone(), good_key.clone())),
        token: Some(Token { secret: "curio-token".into(), origin: "the test".into() }),
    };
    let proved = blocking(move || {
        let client = Blocking::connect_with(&addr, &options)?;
        assert_eq!(client.status()?.gpus[0].name, "cpu");
        client.prove(workload("over-mtls", SMALL, 1))
    })
    .await
    .unwrap();
    assert_eq!(status(&proved), AwaitStatus::Completed, "{}", proved.error_message);
    assert_eq!(proved.proof.len(), 192);
    // Without the token the call is refused, by name.
    let (addr, ca_file) = (daemon.tcp.clone(), ca_pem.clone());
    let options = Options { tls_ca: Some(ca_file), tls_identity: Some((good_cert, good_key)), token: None };
    match blocking(move || Blocking::connect_with(&addr, &options)?.status()).await {
        Err(ClientError::Rpc { code, .. }) => assert_eq!(code, "Unauthenticated"),
        other => panic!("{other:?}"),
    }
    assert_eq!(daemon.stop().await.completed, 1);
    timed("mutual_tls_answers_only_clients_with_a_certificate_of_its_client_ca", t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_gate_the_tcp_listener_and_bound_what_each_may_do() {
    let t = Instant::now();
    mul_chain_params(SMALL);
    mul_chain_params(LARGE);
    let files = tempfile::tempdir().unwrap();
    let tokens = files.path().join("tokens.toml");
    let prover = token_entry("prover", "prover-secret", r#"["mul-chain"]"#, "normal");
    let watcher = token_entry("watcher", "watcher-secret", "[]", "low");
    std::fs::write(&tokens, prover.clone() + &watcher).unwrap();
    let file = tokens.clone();
    let daemon = start(move |c| {
        c.server.tokens_file = Some(file);
        c.server.require_token = true;
    })
    .await;
    let mut c = daemon.tcp().await;
    let probe = c.clone();
    let get_status = move |token: Option<&str>| {
        let mut c = probe.clone();
        let request = match token {
            Some(t) => bearer(proto::GetStatusRequest {}, t),
            None => tonic::Request::new(proto::GetStatusRequest {}),
        };
        async move { c.get_status(request).await.map(|_| ()).map_err(|s| s.code()) }
    };

    // No token, an unknown one, another scheme: UNAUTHENTICATED.
    assert_eq!(get_status(None).await, Err(Code::Unauthenticated));
    assert_eq!(get_status(Some("prover-secreT")).await, Err(Code::Unauthenticated));
    let mut basic = tonic::Request::new(proto::GetStatusRequest {});
    basic.metadata_mut().insert("authorization", "Basic cHJvdmVyLXNlY3JldA==".parse().unwrap());
    assert_eq!(c.get_status(basic).await.unwrap_err().code(), Code::Unauthenticated);
    assert_eq!(get_status(Some("prover-secret")).await, Ok(()));
    assert_eq!(get_status(Some("watcher-secret")).await, Ok(()));

    // The check runs on the metadata, before the body is decoded: an
    // undecodable body without a token is UNAUTHENTICATED, with one it is
    // the codec's INVALID_ARGUMENT.
    let garbage = vec![0x0a, 2, 0xff, 0xfe];
    let err = support::raw::submit(plain_channel(&daemon.tcp).await, garbage.clone(), None).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated, "{err:?}");
    let err = support::raw::submit(plain_channel(&daemon.tcp).await, garbage, Some("prover-secret")).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(err.message().contains("does not decode"), "{err:?}");

    // A kind the token may not prove (refused before its fields are read:
    // this request has none), a priority above its ceiling, parameters of
    // another kind.
    let winning = proto::SubmitProofRequest { proof_kind: proto::ProofKind::WinningPost as i32, ..Default::default() };
    let err = c.submit_proof(bearer(winning, "prover-secret")).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    assert!(err.message().contains("may not prove winning"), "{err:?}");
    let mut urgent = workload("urgent", SMALL, 1);
    urgent.priority = proto::Priority::High as i32;
    let err = c.submit_proof(bearer(urgent, "prover-secret")).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    assert!(err.message().contains("up to priority normal"), "{err:?}");
    let preload = |id: &str, token: &str| bearer(proto::PreloadSrsRequest { circuit_id: id.into() }, token);
    let err = c.preload_srs(preload("winning-2k", "prover-secret")).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    c.preload_srs(preload(&format!("mul-chain-{SMALL}"), "prover-secret")).await.unwrap();
    let err = c.submit_proof(bearer(workload("w", SMALL, 1), "watcher-secret")).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "a token without kinds submits nothing: {err:?}");

    // The quota: one unfinished job; the same request again joins it.
    let slow = workload("slow", LARGE, 32);
    let first = c.submit_proof(bearer(slow.clone(), "prover-secret")).await.unwrap().into_inner();
    assert_eq!(first.job_id, "slow");
    let err = c.submit_proof(bearer(workload("second", SMALL, 1), "prover-secret")).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    assert!(err.message().contains("max_jobs is 1"), "{err:?}");
    let joined = c.submit_proof(bearer(slow, "prover-secret")).await.unwrap().into_inner();
    assert_eq!(joined.job_id, "slow");

    // Another token neither sees nor cancels the job; the unix socket,
    // trusted through its file mode, needs no token and sees every job.
    let peek = |token: &str| bearer(proto::AwaitProofRequest { job_id: "slow".into(), timeout_ms: 1 }, token);
    assert_eq!(c.await_proof(peek("watcher-secret")).await.unwrap_err().code(), Code::PermissionDenied);
    let cancel = |token: &str| bearer(proto::CancelProofRequest { job_id: "slow".into() }, token);
    assert_eq!(c.cancel_proof(cancel("watcher-secret")).await.unwrap_err().code(), Code::PermissionDenied);
    let mut unix = daemon.unix().await;
    let r = unix.await_proof(proto::AwaitProofRequest { job_id: "slow".into(), timeout_ms: 1 }).await.unwrap();
    assert_eq!(status(r.get_ref()), AwaitStatus::Timeout);
    let unix_job = unix.submit_proof(workload("from-unix", SMALL, 1)).await.unwrap().into_inner().job_id;
    let theirs = proto::AwaitProofRequest { job_id: unix_job.clone(), timeout_ms: 1 };
    assert_eq!(c.await_proof(bearer(theirs, "prover-secret")).await.unwrap_err().code(), Code::PermissionDenied);

    // The owner cancels its job, which frees its place: a proof within the grant completes.
    assert!(c.cancel_proof(cancel("prover-secret")).await.is_ok());
    let own = proto::AwaitProofRequest { job_id: "slow".into(), timeout_ms: 0 };
    let r = c.await_proof(bearer(own, "prover-secret")).await.unwrap();
    assert_eq!(status(r.get_ref()), AwaitStatus::Cancelled);
    let proved =
        c.prove(bearer(proto::ProveRequest { submit: Some(workload("fits", SMALL, 1)) }, "prover-secret")).await;
    let proved = proved.unwrap().into_inner().result.unwrap();
    assert_eq!(status(&proved), AwaitStatus::Completed, "{}", proved.error_message);
    assert_eq!(proved.proof.len(), 192);

    // A reload (SIGHUP) of a file where the prover's token was replaced:
    // the old one is refused from the next request on.
    std::fs::write(&tokens, token_entry("prover", "rotated", r#"["mul-chain"]"#, "normal") + &watcher).unwrap();
    daemon.reloader.reload().unwrap();
    assert_eq!(get_status(Some("prover-secret")).await, Err(Code::Unauthenticated));
    assert_eq!(get_status(Some("rotated")).await, Ok(()));
    let r = unix.await_proof(proto::AwaitProofRequest { job_id: unix_job, timeout_ms: 0 }).await.unwrap();
    assert_eq!(status(r.get_ref()), AwaitStatus::Completed);
    let summary = daemon.stop().await;
    assert_eq!((summary.completed, summary.cancelled), (2, 1));
    timed("tokens_gate_the_tcp_listener_and_bound_what_each_may_do", t);
}

/// `[server.tls]`'s cert, key and client CA, and the key, file and words
/// of the error the start stops with.
type PemCase<'a> = (&'a Path, &'a Path, Option<&'a Path>, &'a str, &'a Path, &'a str);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusable_pem_and_tokens_files_and_plain_remote_listeners_stop_the_start() {
    let files = tempfile::tempdir().unwrap();
    let dir = files.path();
    let ca = Ca::new("cuzk test CA");
    let (cert, key) = server_files(&ca, dir);
    let other_key = pki::write(dir, "other.key", &ca.server().key);
    let garbage =
        pki::write(dir, "garbage.pem", "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n");
    let junk = pki::write(dir, "junk.pem", "hello\n");
    let absent = dir.join("absent.pem");
    let cases: [PemCase; 8] = [
        (&absent, &key, None, "server.tls.cert", &absent, "cannot read it"),
        (&garbage, &key, None, "server.tls.cert", &garbage, "not a readable PEM file"),
        (&junk, &key, None, "server.tls.cert", &junk, "no CERTIFICATE"),
        (&key, &key, None, "server.tls.cert", &key, "no CERTIFICATE"),
        (&cert, &cert, None, "server.tls.key", &cert, "no PRIVATE KEY"),
        (&cert, &other_key, None, "server.tls.key", &other_key, "not the key of the certificate"),
        (&cert, &key, Some(&junk), "server.tls.client_ca", &junk, "no CERTIFICATE"),
        (&cert, &key, Some(dir), "server.tls.client_ca", dir, "not a regular file"),
    ];
    for (cert, key, client_ca, named, file, reason) in cases {
        let mut config = support::config(dir);
        let tls = TlsConfig { cert: cert.into(), key: key.into(), client_ca: client_ca.map(Path::to_path_buf) };
        config.server.tls = Some(tls);
        match cuzk_daemon::Server::start(config).await {
            Err(e @ DaemonError::Tls { .. }) => {
                let text = e.to_string();
                let DaemonError::Tls { key, path, reason: why } = e else { unreachable!() };
                assert_eq!((key, path.as_path()), (named, file), "{text}");
                assert!(
                    why.contains(reason) && text.contains(named) && text.contains(&file.display().to_string()),
                    "{text}"
                );
            }
            Err(other) => panic!("{named} {}: {other}", file.display()),
            Ok(_) => panic!("{named} {}: the daemon started", file.display()),
        }
    }

    let mut config = support::config(dir);
    config.server.tokens_file = Some(absent.clone());
    config.server.require_token = true;
    match cuzk_daemon::Server::start(config).await {
        Err(e @ DaemonError::Tokens { .. }) => assert!(e.to_string().contains("server.tokens_file"), "{e}"),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("the daemon started without its tokens file"),
    }

    let mut config = support::config(dir);
    config.server.listen.push("0.0.0.0:0".into());
    match cuzk_daemon::Server::start(config).await {
        Err(DaemonError::PlaintextRemote { address }) => assert_eq!(address, "0.0.0.0:0"),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a plain listener on 0.0.0.0 started"),
    }
}
