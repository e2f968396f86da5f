//! napi-rs's per-platform link arguments for a Node addon (on macOS `-undefined dynamic_lookup`).

fn main() {
    napi_build::setup();
}
