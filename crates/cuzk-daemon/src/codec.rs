//! The gRPC codec of the service and client: prost's, except that a
//! message that does not decode (a string field that is not UTF-8, a
//! truncated or mistyped field) is `INVALID_ARGUMENT`, the sender's fault,
//! not the `INTERNAL` prost's codec answers, which says the daemon failed;
//! and that a message of more than [`MAX_FIELDS`] fields is refused before
//! prost decodes it. Each empty `bytes` entry of a repeated field is two
//! bytes on the wire and a 24-byte vector once decoded: one in-limit
//! 272 MiB request of empty `vanilla_proofs` took the daemon from 172 MiB to
//! 6.97 GiB of memory, outside the engine's budget, before it was refused.

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
        use prost::bytes::Buf;
        // The message is one contiguous buffer in tonic; were it not, prost
        // decodes it unchecked (its own limit still holds).
        if buf.chunk().len() == buf.remaining() {
            if let Some(fields) = count_fields(buf.chunk()).filter(|n| *n > MAX_FIELDS) {
                return Err(Status::invalid_argument(format!(
                    "the message has {fields} fields, more than the {MAX_FIELDS} accepted"
                )));
            }
        }
        self.0
            .decode(buf)
            .map_err(|e| Status::invalid_argument(format!("the message does not decode: {}", e.message())))
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}

/// The most top-level fields a message may have: 24 MB of empty vectors at
/// most. Curio's largest request holds one `vanilla_proofs` entry per
/// sector of a WindowPoSt partition (2,349) besides a dozen others; a
/// status answer one entry per job.
pub const MAX_FIELDS: usize = 1 << 20;

/// The number of top-level fields of a protobuf message, counted from the
/// wire without allocating; `None` where it does not parse (prost then says
/// why).
fn count_fields(mut bytes: &[u8]) -> Option<usize> {
    fn varint(bytes: &mut &[u8]) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = bytes.split_first()?;
            *bytes = rest;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }
    let mut count = 0;
    while !bytes.is_empty() {
        let key = varint(&mut bytes)?;
        let skip = match key & 7 {
            0 => {
                varint(&mut bytes)?;
                0
            }
            1 => 8,
            2 => usize::try_from(varint(&mut bytes)?).ok()?,
            5 => 4,
            _ => return None,
        };
        bytes = bytes.get(skip..)?;
        count += 1;
    }
    Some(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto;
    use prost::Message;

    #[test]
    fn fields_are_counted_from_the_wire() {
        let req = proto::SubmitProofRequest {
            request_id: "r".into(),
            sector_size: 2048,
            vanilla_proofs: vec![vec![], vec![1, 2], vec![]],
            miner_id: 1000,
            ..Default::default()
        };
        assert_eq!(count_fields(&req.encode_to_vec()), Some(6));
        assert_eq!(count_fields(&[]), Some(0));
        // Truncated: a length past the end, a varint without its end.
        assert_eq!(count_fields(&[0x0a, 5, b'r']), None);
        assert_eq!(count_fields(&[0x10, 0x80]), None);
        // Wire types 3 and 4 (groups) are not in proto3.
        assert_eq!(count_fields(&[0x0b]), None);
    }
}
