//! `open_world`: the fuzzer's bytes seed the harness's open-world grammar
//! (boolean schemas, applicators, `unevaluated*`, author `$defs`, embedded resources, …); the
//! generated document runs through every schema-level harness oracle.
#![no_main]

use libfuzzer_sys::Corpus;

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> Corpus {
    match flatjoin_harness::fuzz::check_open_world_bytes(data) {
        Ok(flatjoin_harness::fuzz::Verdict::Checked) => Corpus::Keep,
        Ok(flatjoin_harness::fuzz::Verdict::Uninteresting) => Corpus::Reject,
        Err(violation) => panic!("{violation}"),
    }
});
