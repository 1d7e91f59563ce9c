//! Compiles `proto/arena.proto` with protox (no system protoc needed) and
//! generates the tonic client and server, plus the encoded descriptor set
//! the reflection service serves.

use std::path::PathBuf;

use protox::prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../proto");
    let arena_proto = proto_dir.join("arena.proto");
    println!("cargo:rerun-if-changed={}", arena_proto.display());
    let descriptors = protox::compile([&arena_proto], [&proto_dir])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out_dir.join("arena_descriptor.bin"), descriptors.encode_to_vec())?;
    // Options maps become `BTreeMap`s, the engine's `GameOptions`.
    tonic_prost_build::configure().build_client(true).build_server(true).btree_map(".").compile_fds(descriptors)?;
    Ok(())
}
