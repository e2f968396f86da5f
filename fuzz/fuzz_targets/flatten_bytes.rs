//! `flatten_bytes`: arbitrary bytes → JSON → `flatten` under every reading; never panics, hangs or
//! overflows, and on success the presentation compiles and a union root comes out as an object.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Err(violation) = flatjoin_harness::fuzz::check_flatten_bytes(data) else {
        return;
    };
    panic!("{violation}");
});
