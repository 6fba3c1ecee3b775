//! The bearer-token check of the TCP listeners that require one
//! (`server.require_token`): `authorization: Bearer <token>` looked up in
//! the tokens file; a request without a known token is `UNAUTHENTICATED`.
//!
//! The check is a tonic interceptor wrapped around the generated service
//! (`InterceptedService`). tonic 0.14's `InterceptedService::call` takes
//! the body out of the HTTP request, calls the interceptor with the
//! metadata and extensions alone, and only on `Ok` calls the inner service,
//! which is where the body is read and decoded (the generated server's
//! `Grpc::unary` with the daemon's codec); on `Err` it answers the status
//! at once. So a refused request's body is never read, let alone decoded:
//! `tests/tls_tokens.rs` sends an undecodable body without a token and
//! gets `UNAUTHENTICATED`, and with a token the codec's `INVALID_ARGUMENT`.
//! What a token may do (kinds, priority, quota) needs the decoded request
//! and is checked by the core (`Core::submit`).

use std::sync::Arc;

use tonic::metadata::MetadataMap;
use tonic::service::Interceptor;
use tonic::{Request, Status};

use crate::tokens::{Caller, TokenStore};

/// The interceptor: the caller's grant into the request's extensions, or
/// `UNAUTHENTICATED`.
#[derive(Clone)]
pub(crate) struct RequireToken {
    store: Arc<TokenStore>,
}

impl RequireToken {
    pub(crate) fn new(store: Arc<TokenStore>) -> Self {
        RequireToken { store }
    }
}

impl Interceptor for RequireToken {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        let found = bearer(request.metadata()).and_then(|token| {
            self.store.current().find(token.as_bytes()).ok_or_else(|| Status::unauthenticated("unknown bearer token"))
        });
        match found {
            Ok(grant) => {
                request.extensions_mut().insert(Caller(grant));
                Ok(request)
            }
            Err(status) => {
                tracing::info!(peer = ?request.remote_addr(), why = status.message(), "request refused: UNAUTHENTICATED");
                Err(status)
            }
        }
    }
}

/// The token of an `authorization: Bearer <token>` header (RFC 6750 §2.1;
/// the scheme's case does not matter).
fn bearer(metadata: &MetadataMap) -> Result<&str, Status> {
    let refuse = |why: &str| Err(Status::unauthenticated(why.to_string()));
    let Some(value) = metadata.get("authorization") else {
        return refuse("this listener requires `authorization: Bearer <token>`");
    };
    let Ok(text) = value.to_str() else { return refuse("authorization: not visible ASCII") };
    match text.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => Ok(token.trim()),
        _ => refuse("authorization: expected `Bearer <token>`"),
    }
}

#[cfg(test)]
#[path = "auth_tests.rs"]
mod tests;
