//! Compiles `proto/cuzk/v1/proving.proto` into the gRPC messages, client and
//! server. The parser is protox, a protobuf compiler written in Rust, so a
//! build needs no system `protoc` (the README's commands need nothing but
//! Rust); tonic-prost-build generates the code from its descriptors.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "cuzk/v1/proving.proto";
    println!("cargo:rerun-if-changed=proto/{proto}");
    let descriptors = protox::compile([proto], ["proto"])?;
    // The codec answers undecodable messages INVALID_ARGUMENT (src/codec.rs).
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .codec_path("crate::codec::Codec")
        .compile_fds(descriptors)?;
    Ok(())
}
