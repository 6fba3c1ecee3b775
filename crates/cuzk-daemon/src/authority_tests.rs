use super::*;
use fluke_hpack::Encoder;

type Headers = Vec<(Vec<u8>, Vec<u8>)>;

fn request(authority: &str) -> Headers {
    [
        (":method", "POST"),
        (":scheme", "http"),
        (":path", "/cuzk.v1.ProvingEngine/GetStatus"),
        (":authority", authority),
        ("te", "trailers"),
        ("content-type", "application/grpc"),
        ("user-agent", "grpc-python/1.85.1"),
    ]
    .iter()
    .map(|(n, v)| (n.as_bytes().to_vec(), v.as_bytes().to_vec()))
    .collect()
}

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_frame(&mut out, kind, flags, stream.to_be_bytes(), payload);
    out
}

/// A client's bytes: the preface, SETTINGS, then per request a header
/// block (HPACK with its dynamic table, as clients write it) cut into a
/// padded HEADERS with priority and a CONTINUATION, and a DATA frame.
fn client_bytes(requests: &[Headers]) -> Vec<u8> {
    let mut encoder = Encoder::new();
    let mut out = PREFACE.to_vec();
    out.extend(frame(0x4, 0, 0, &[]));
    for (i, headers) in requests.iter().enumerate() {
        let stream = 2 * i as u32 + 1;
        let block = encoder.encode(headers.iter().map(|(n, v)| (&n[..], &v[..])));
        let (a, b) = block.split_at(block.len() / 2);
        let mut payload = vec![3u8];
        payload.extend_from_slice(&[0, 0, 0, 0, 15]);
        payload.extend_from_slice(a);
        payload.extend_from_slice(&[0, 0, 0]);
        out.extend(frame(HEADERS, PADDED | PRIORITY, stream, &payload));
        out.extend(frame(CONTINUATION, END_HEADERS, stream, b));
        out.extend(frame(0x0, END_STREAM, stream, &[0, 0, 0, 0, 0]));
    }
    out
}

/// The frames of `bytes` after the preface: (type, flags, stream, payload).
fn frames(bytes: &[u8]) -> Vec<(u8, u8, u32, Vec<u8>)> {
    assert_eq!(&bytes[..24], PREFACE);
    let mut at = 24;
    let mut out = Vec::new();
    while at < bytes.len() {
        let len = (usize::from(bytes[at]) << 16) | (usize::from(bytes[at + 1]) << 8) | usize::from(bytes[at + 2]);
        let stream = u32::from_be_bytes(bytes[at + 5..at + 9].try_into().unwrap());
        out.push((bytes[at + 3], bytes[at + 4], stream, bytes[at + 9..at + 9 + len].to_vec()));
        at += 9 + len;
    }
    out
}

/// Feeds `bytes` in pieces of `step` and returns the output.
fn rewrite(bytes: &[u8], step: usize) -> Vec<u8> {
    let mut r = Rewriter::default();
    let mut out = Vec::new();
    for piece in bytes.chunks(step) {
        r.push(piece, &mut out).unwrap();
    }
    assert!(r.pending.is_empty() && r.block.is_none());
    out
}

/// The header lists of the output's header blocks, decoded as the server
/// decodes them.
fn decoded(out: &[u8]) -> Vec<Headers> {
    let mut decoder = Decoder::new();
    let mut lists = Vec::new();
    let mut block = Vec::new();
    for (kind, flags, _, payload) in frames(out) {
        if kind == HEADERS || kind == CONTINUATION {
            assert_eq!(flags & PADDED, 0);
            let skip = if kind == HEADERS && flags & PRIORITY != 0 { 5 } else { 0 };
            block.extend_from_slice(&payload[skip..]);
            if flags & END_HEADERS != 0 {
                lists.push(decoder.decode(&block).unwrap());
                block.clear();
            }
        }
    }
    lists
}

#[test]
fn a_socket_path_authority_becomes_localhost_and_nothing_else_changes() {
    let requests = [request("%2Ftmp%2Fcuzk.sock"), request("/run/cuzk/cuzk.sock"), request("localhost:9820")];
    let input = client_bytes(&requests);
    let out = rewrite(&input, input.len());
    let lists = decoded(&out);
    assert_eq!(lists.len(), 3);
    let mut expected = requests.to_vec();
    expected[0][3].1 = b"localhost".to_vec();
    expected[1][3].1 = b"localhost".to_vec();
    assert_eq!(lists, expected, "only unacceptable authorities change");
    // Every frame but the header blocks is byte for byte the client's,
    // in order; each block is one HEADERS frame, its priority kept.
    let (before, after) = (frames(&input), frames(&out));
    let others = |f: &[(u8, u8, u32, Vec<u8>)]| -> Vec<_> {
        f.iter().filter(|x| x.0 != HEADERS && x.0 != CONTINUATION).cloned().collect()
    };
    assert_eq!(others(&before), others(&after));
    let headers: Vec<_> = after.iter().filter(|x| x.0 == HEADERS).collect();
    assert_eq!(headers.len(), 3);
    for (i, h) in headers.iter().enumerate() {
        assert_eq!((h.1, h.2), (PRIORITY | END_HEADERS, 2 * i as u32 + 1));
        assert_eq!(&h.3[..5], &[0, 0, 0, 0, 15]);
    }
}

#[test]
fn bytes_arriving_one_at_a_time_give_the_same_stream() {
    let input = client_bytes(&[request("%2Fa.sock"), request("%2Fa.sock")]);
    let whole = rewrite(&input, input.len());
    assert_eq!(rewrite(&input, 1), whole);
    assert_eq!(rewrite(&input, 7), whole);
}

#[test]
fn a_large_block_is_cut_into_continuations() {
    let mut headers = request("%2Fx.sock");
    headers.push((b"x-big".to_vec(), vec![b'a'; 40_000]));
    let out = rewrite(&client_bytes(&[headers.clone()]), 4096);
    let kinds: Vec<(u8, u8)> = frames(&out).iter().map(|f| (f.0, f.1)).filter(|k| k.0 != 0x4 && k.0 != 0x0).collect();
    assert_eq!(kinds, [(HEADERS, PRIORITY), (CONTINUATION, 0), (CONTINUATION, END_HEADERS)]);
    assert!(frames(&out).iter().all(|f| f.3.len() <= MAX_PAYLOAD));
    headers[3].1 = b"localhost".to_vec();
    assert_eq!(decoded(&out), vec![headers]);
}

#[test]
fn what_is_not_http2_passes_unchanged_and_broken_blocks_are_refused() {
    let http1 = b"GET / HTTP/1.1\r\nHost: /tmp/x.sock\r\n\r\n";
    assert_eq!(rewrite(http1, 5), http1.to_vec());
    let mut r = Rewriter::default();
    let mut out = Vec::new();
    let mut bytes = PREFACE.to_vec();
    bytes.extend(frame(HEADERS, 0, 1, &[0x82]));
    bytes.extend(frame(0x0, 0, 1, &[]));
    let err = r.push(&bytes, &mut out).unwrap_err();
    assert!(err.to_string().contains("interrupted"), "{err}");
    let mut r = Rewriter::default();
    let mut bytes = PREFACE.to_vec();
    bytes.extend(frame(HEADERS, END_HEADERS | PADDED, 1, &[9, 0x82]));
    assert!(r.push(&bytes, &mut Vec::new()).unwrap_err().to_string().contains("padding"));
    let mut r = Rewriter::default();
    let mut bytes = PREFACE.to_vec();
    bytes.extend(frame(HEADERS, END_HEADERS, 1, &[0xff, 0xff, 0xff, 0xff]));
    assert!(r.push(&bytes, &mut Vec::new()).unwrap_err().to_string().contains("HPACK"));
}

#[test]
fn literal_lengths_use_the_prefix_and_continuation_bytes() {
    // The length after the name `x`: its bytes from offset 3.
    let enc = |n| {
        let mut v = Vec::new();
        literal(b"x", &vec![b'v'; n], &mut v);
        assert_eq!(&v[..3], &[0, 1, b'x']);
        v[3..v.len() - n].to_vec()
    };
    assert_eq!(enc(10), [10]);
    assert_eq!(enc(126), [126]);
    assert_eq!(enc(127), [127, 0]);
    assert_eq!(enc(1337), [127, 0xba, 0x09]);
}
