//! `runtime_diff`: a corpus schema (picked by the first two bytes) plus an arbitrary JSON value →
//! the runtime's verdict equals plain `jsonschema` validation, and the presentation is sound.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Err(violation) = flatjoin_harness::fuzz::check_runtime_diff_bytes(data) else {
        return;
    };
    panic!("{violation}");
});
