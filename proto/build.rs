//! Compiles the protobuf files with protox (pure Rust, no system `protoc`).
//!
//! `game.proto` becomes prost message types plus, from the very same
//! descriptors, the proto3 JSON mapping (serde impls) with pbjson-build.
//! With the `arena-api` feature, `arena.proto` becomes tonic clients and
//! servers plus the encoded descriptor set the reflection service serves; its
//! forfeit and end reasons are the game protocol's types.

use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    compile_game_protocol(&out_dir)?;
    if std::env::var_os("CARGO_FEATURE_ARENA_API").is_some() {
        compile_arena_api(&out_dir)?;
    }
    Ok(())
}

fn compile_game_protocol(out_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let files = ["game.proto"];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["."])?;
    let encoded = prost::Message::encode_to_vec(&descriptors);
    // BTreeMap keeps map fields (game options) in a fixed order on the wire.
    prost_build::Config::new()
        .btree_map(["."])
        .compile_fds(descriptors)?;
    pbjson_build::Builder::new()
        .register_descriptors(&encoded)?
        .out_dir(out_dir)
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

fn compile_arena_api(out_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=arena.proto");
    let mut descriptors = protox::compile(["arena.proto"], ["."])?;
    // The reflection service serves arena.proto with its import, game.proto.
    std::fs::write(
        out_dir.join("arena_descriptor.bin"),
        prost::Message::encode_to_vec(&descriptors),
    )?;
    // The shared reasons are the game protocol's generated types, not a copy.
    descriptors
        .file
        .retain(|file| file.package() != "cairn.game.v1");
    // Options maps become `BTreeMap`s, the engine's `GameOptions`.
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .btree_map(".")
        .extern_path(".cairn.game.v1", "crate::game::v1")
        .compile_fds(descriptors)?;
    Ok(())
}

/// Points the generated number fields at `crate::json_number` (same results,
/// no buffering and no error formatting per number: see that module). If a
/// pbjson release no longer names its reader this way, the build fails rather
/// than silently falling back to the slower reader.
fn use_fast_number_reader(path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    const PBJSON_READER: &str = "::pbjson::private::NumberDeserialize";
    let generated = std::fs::read_to_string(path)?;
    if !generated.contains(PBJSON_READER) {
        return Err(format!(
            "pbjson-build output {} no longer uses `{PBJSON_READER}`: pbjson changed how it \
             reads numbers, so update `use_fast_number_reader` in proto/build.rs \
             (and `crate::json_number`) to match",
            path.display()
        )
        .into());
    }
    let faster = generated.replace(PBJSON_READER, "crate::json_number::NumberDeserialize");
    std::fs::write(path, faster)?;
    Ok(())
}
