//! A `SubmitProof` whose message is raw bytes, as a client with its own
//! encoder (or a broken one) would send it, with a bearer token or none.

use cuzk_daemon::proto;
use tonic::transport::Channel;

/// Sends `raw` as a SubmitProofRequest's bytes over `channel`, with
/// `authorization: Bearer <token>` when `token` is given.
pub async fn submit(
    channel: Channel,
    raw: Vec<u8>,
    token: Option<&str>,
) -> Result<proto::SubmitProofResponse, tonic::Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.unwrap();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/cuzk.v1.ProvingEngine/SubmitProof");
    let mut request = tonic::Request::new(raw);
    if let Some(token) = token {
        request.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    }
    grpc.unary(request, path, RawCodec).await.map(tonic::Response::into_inner)
}

/// Encodes a request as the bytes given; decodes the answer as prost does.
#[derive(Clone, Default)]
struct RawCodec;

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = proto::SubmitProofResponse;
    type Encoder = RawEncoder;
    type Decoder = tonic_prost::ProstDecoder<proto::SubmitProofResponse>;

    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        tonic_prost::ProstDecoder::default()
    }
}

struct RawEncoder;

impl tonic::codec::Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn encode(&mut self, item: Vec<u8>, buf: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), tonic::Status> {
        prost::bytes::BufMut::put_slice(buf, &item);
        Ok(())
    }
}
