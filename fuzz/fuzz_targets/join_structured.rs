//! `join_structured`: an `Arbitrary` case of the harness's model → render → flatten → every oracle
//! of the harness. Cases with nothing to join are rejected from the corpus.
#![no_main]

use libfuzzer_sys::Corpus;

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> Corpus {
    match flatjoin_harness::fuzz::check_structured_bytes(data) {
        Ok(flatjoin_harness::fuzz::Verdict::Checked) => Corpus::Keep,
        Ok(flatjoin_harness::fuzz::Verdict::Uninteresting) => Corpus::Reject,
        Err(violation) => panic!("{violation}"),
    }
});
