//! Fake flatteners that misbehave on purpose, speaking the line protocol (`docs/protocol.md`), in
//! Rust so the tests that start them run wherever `cargo test` does: a test binary calls
//! [`serve_if_asked`] first thing (`tests! { @before flatjoin_test_support::fake::serve_if_asked; … }`)
//! and starts *itself* as the fake with [`argv`] or [`command`], which set [`MODE`].
//!
//! Modes, where `n` counts this process's `run` requests from 1 and `seq` is the request's own
//! number:
//!
//! - `off-protocol`: request 1 is answered with a line that is not JSON;
//! - `no-outcome`: request 1 is answered without an outcome;
//! - `wrong-seq`: request 1 is answered with another request's `seq`;
//! - `crash`: request 1 writes `boom` on stderr and exits with status 3;
//! - `hang`: request 1 is never answered;
//! - `hang-first-ever`: the request with `seq` 1 is never answered;
//! - `bad-start`: the start request is answered with a response off its schema (version 2);
//!
//! and every other request of those modes is answered `errored` with the message `refused`;
//!
//! - `crashing`: the identity (the presentation is the original: sound), except that the process
//!   exits with status 70 on about one input in seven (by the length of its JSON text), as a
//!   flattener with a fatal bug would;
//! - `hanging`: the identity, except that it never answers on about one input in a hundred.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// The environment variable that makes a test binary a fake flattener, naming its mode.
pub const MODE: &str = "FLATJOIN_TEST_FAKE";

/// The program and arguments that start this test binary as the fake `mode` (through `env`, so
/// they fit anything that takes a command line).
pub fn argv(mode: &str) -> Vec<String> {
    let exe = std::env::current_exe().expect("the test knows its path");
    vec![
        "env".to_owned(),
        format!("{MODE}={mode}"),
        exe.display().to_string(),
    ]
}

/// [`argv`] as one command line, quoted for a POSIX shell (`shlex`).
pub fn command(mode: &str) -> String {
    let argv = argv(mode);
    shlex::try_join(argv.iter().map(String::as_str)).expect("a path without NUL")
}

/// When [`MODE`] is set: serves the protocol as that fake on stdin and stdout until the end of
/// input, then exits the process. Returns (and the binary runs its tests) when it is not set.
pub fn serve_if_asked() {
    let Ok(mode) = std::env::var(MODE) else {
        return;
    };
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    let mut n = 0u64;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            break;
        };
        let answer = match request["cmd"].as_str() {
            Some("start") if mode == "bad-start" => r#"{"ready": true, "version": 2}"#.to_owned(),
            Some("start") => json!({
                "ready": true,
                "version": 1,
                "implementation": {
                    "name": format!("fixture: {mode}"),
                    "language": "rust",
                    "readings": ["declared"],
                    "scopes": ["all"],
                },
            })
            .to_string(),
            Some("run") => {
                n += 1;
                match answer(&mode, n, &request) {
                    Some(a) => a,
                    None => continue,
                }
            }
            _ => break,
        };
        if writeln!(stdout, "{answer}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            break;
        }
    }
    std::process::exit(0);
}

/// Never returns: the request is never answered.
fn hang() -> ! {
    loop {
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}

/// The line answering the `n`-th request (`None`: no answer, ever).
fn answer(mode: &str, n: u64, request: &Value) -> Option<String> {
    let seq = request["seq"].as_u64().unwrap_or(0);
    let length = request["schema"].to_string().len();
    let identity = || json!({"seq": seq, "presentation": request["schema"]}).to_string();
    Some(match (mode, n) {
        ("crashing", _) if length % 7 == 3 => std::process::exit(70),
        ("hanging", _) if length % 97 == 7 => hang(),
        ("crashing" | "hanging", _) => identity(),
        ("off-protocol", 1) => "this is not json".to_owned(),
        ("no-outcome", 1) => json!({"seq": seq}).to_string(),
        ("wrong-seq", 1) => json!({"seq": seq + 5, "presentation": {}}).to_string(),
        ("crash", 1) => {
            eprintln!("boom");
            std::process::exit(3);
        }
        ("hang", 1) => hang(),
        ("hang-first-ever", _) if seq == 1 => hang(),
        _ => json!({"seq": seq, "errored": {"message": "refused"}}).to_string(),
    })
}
