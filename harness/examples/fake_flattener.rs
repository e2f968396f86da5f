//! A flattener that misbehaves on purpose, speaking the line protocol (`docs/protocol.md`): the
//! protocol client's tests (`tests/protocol.rs`) start it to play an implementation that answers
//! off the protocol, crashes or hangs — in Rust, so those tests run wherever `cargo test` does.
//! `cargo test` builds it beside the tests (`target/<profile>/examples/fake_flattener`).
//!
//! `fake_flattener MODE`, where `n` counts this process's `run` requests from 1 and `seq` is the
//! request's own number:
//!
//! - `off-protocol`: request 1 is answered with a line that is not JSON;
//! - `no-outcome`: request 1 is answered without an outcome;
//! - `wrong-seq`: request 1 is answered with another request's `seq`;
//! - `crash`: request 1 writes `boom` on stderr and exits with status 3;
//! - `hang`: request 1 is never answered;
//! - `hang-first-ever`: the request with `seq` 1 is never answered;
//! - `bad-start`: the start request is answered with a response off its schema (version 2);
//!
//! every other request is answered `errored` with the message `refused`.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    let mut n = 0u64;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            return;
        };
        let answer = match request["cmd"].as_str() {
            Some("start") if mode == "bad-start" => r#"{"ready": true, "version": 2}"#.to_owned(),
            Some("start") => json!({
                "ready": true,
                "version": 1,
                "implementation": {
                    "name": "fake",
                    "language": "rust",
                    "readings": ["declared"],
                    "scopes": ["all"],
                },
            })
            .to_string(),
            Some("run") => {
                n += 1;
                match answer(&mode, n, request["seq"].as_u64().unwrap_or(0)) {
                    Some(a) => a,
                    None => continue,
                }
            }
            _ => return,
        };
        if writeln!(stdout, "{answer}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}

/// The line answering the `n`-th request, numbered `seq` (`None`: no answer, ever).
fn answer(mode: &str, n: u64, seq: u64) -> Option<String> {
    let refused = json!({"seq": seq, "errored": {"message": "refused"}}).to_string();
    let hang = || -> Option<String> {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
    };
    Some(match (mode, n) {
        ("off-protocol", 1) => "this is not json".to_owned(),
        ("no-outcome", 1) => json!({"seq": seq}).to_string(),
        ("wrong-seq", 1) => json!({"seq": seq + 5, "presentation": {}}).to_string(),
        ("crash", 1) => {
            eprintln!("boom");
            std::process::exit(3);
        }
        ("hang", 1) => return hang(),
        ("hang-first-ever", _) if seq == 1 => return hang(),
        _ => refused,
    })
}
