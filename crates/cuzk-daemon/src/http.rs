//! The Prometheus scrape endpoint: `GET /metrics` over plain HTTP/1.1, one
//! request per connection. A scrape needs nothing more, so this is a few
//! lines over a TCP listener instead of another HTTP stack.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::core::Core;

/// Longest request head read; a scraper's is a few hundred bytes.
const MAX_HEAD: usize = 8 << 10;

/// Serves until `stop` resolves.
pub(crate) async fn serve(listener: TcpListener, core: Arc<Core>, stop: impl std::future::Future<Output = ()>) {
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let core = core.clone();
                    tokio::spawn(async move {
                        let _ = tokio::time::timeout(Duration::from_secs(10), answer(stream, &core)).await;
                    });
                }
                Err(e) => {
                    tracing::warn!(error = %e, "metrics endpoint: accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

async fn answer(mut stream: TcpStream, core: &Core) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await?;
        if n == 0 || head.len() + n > MAX_HEAD {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let mut parts = line.split(|&b| b == b' ');
    let (method, path) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    let (status, kind, body) = match (method, path) {
        (b"GET", b"/metrics") => {
            ("200 OK", "application/openmetrics-text; version=1.0.0; charset=utf-8", core.metrics_text())
        }
        (b"GET", _) => ("404 Not Found", "text/plain", "only /metrics is served here\n".to_string()),
        _ => ("405 Method Not Allowed", "text/plain", "GET /metrics\n".to_string()),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}
