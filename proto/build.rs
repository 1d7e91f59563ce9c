//! Compiles `game.proto` with protox (pure Rust, no system `protoc`), then
//! generates the prost message types and, from the very same descriptors,
//! the proto3 JSON mapping (serde impls) with pbjson-build.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["game.proto"];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["."])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let encoded = prost::Message::encode_to_vec(&descriptors);
    // BTreeMap keeps map fields (game options) in a fixed order on the wire.
    prost_build::Config::new().btree_map(["."]).compile_fds(descriptors)?;
    pbjson_build::Builder::new()
        .register_descriptors(&encoded)?
        .out_dir(&out_dir)
        .btree_map(["."])
        // Default values are written out (`"seat": 0`), so a bot reads every
        // field without knowing proto3's omission rule.
        .emit_fields()
        // A bot may add fields of its own (e.g. for debugging); they are ignored.
        .ignore_unknown_fields()
        .build(&[".cairn.game.v1"])?;
    use_fast_number_reader(&out_dir.join("cairn.game.v1.serde.rs"))?;
    Ok(())
}

/// Points the generated number fields at `crate::json_number` (same results,
/// no buffering and no error formatting per number: see that module). If a
/// pbjson release names its reader differently, nothing is replaced and the
/// code still builds with pbjson's own reader.
fn use_fast_number_reader(path: &std::path::Path) -> std::io::Result<()> {
    let generated = std::fs::read_to_string(path)?;
    let faster = generated.replace("::pbjson::private::NumberDeserialize", "crate::json_number::NumberDeserialize");
    std::fs::write(path, faster)
}
