//! The gRPC codec of the service and client: prost's, except that a
//! message that does not decode (a string field that is not UTF-8, a
//! truncated or mistyped field) is `INVALID_ARGUMENT`, the sender's fault,
//! not the `INTERNAL` prost's codec answers, which says the daemon failed.

use std::marker::PhantomData;

use tonic::codec::{BufferSettings, Codec as TonicCodec, DecodeBuf, Decoder};
use tonic::Status;
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// prost's codec with [`MessageDecoder`]'s status for undecodable messages.
#[derive(Debug, Clone)]
pub struct Codec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for Codec<T, U> {
    fn default() -> Self {
        Codec(PhantomData)
    }
}

impl<T, U> TonicCodec for Codec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = MessageDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<T, U>::default().encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        MessageDecoder(ProstCodec::<T, U>::default().decoder())
    }
}

/// prost's decoder, its failures answered `INVALID_ARGUMENT`.
#[derive(Debug, Clone)]
pub struct MessageDecoder<U>(ProstDecoder<U>);

impl<U: prost::Message + Default> Decoder for MessageDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0
            .decode(buf)
            .map_err(|e| Status::invalid_argument(format!("the message does not decode: {}", e.message())))
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
