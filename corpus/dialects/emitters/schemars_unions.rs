//! What corpus/dialects/schemars/{externally_tagged_structs,untagged_structs}.json were made with:
//! schemars 1.2.3 `schema_for!` on serde's default (externally tagged) enum and an untagged one
//! (a binary crate with schemars = "=1.2.3", serde, serde_json; `cargo run`).
#![allow(dead_code)]
use schemars::{JsonSchema, schema_for};
use serde::Deserialize;
/// A drawing command.
#[derive(Deserialize, JsonSchema)]
enum Command {
    /// Move the pen.
    Move { x: i64, y: i64 },
    /// Write text.
    Say { text: String, size: Option<u32> },
    Circle(Circle),
}
#[derive(Deserialize, JsonSchema)]
struct Circle { radius: f64 }
/// Where to read from.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum Source {
    Path { path: String },
    Url { url: String, headers: Option<std::collections::BTreeMap<String, String>> },
}
fn main() {
    let out = serde_json::json!({
        "externally_tagged": schema_for!(Command),
        "untagged": schema_for!(Source),
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
