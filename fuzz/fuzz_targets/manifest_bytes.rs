//! `manifest_bytes`: arbitrary bytes → JSON → the manifest path, which must agree byte for byte
//! with `flatten` on every tool (SPEC I8).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Err(violation) = flatjoin_harness::fuzz::check_manifest_bytes(data) else {
        return;
    };
    panic!("{violation}");
});
