//! The implementation protocol's client and server (`docs/protocol.md`): the messages the
//! harness writes match their schemas under `protocol/v1/`, the in-process server answers by
//! them, and the client survives implementations that break the protocol, crash or hang (each
//! played by `flatjoin_test_support::fake`, this test binary itself, so these tests run wherever
//! `cargo test` does).

use std::io::Cursor;
use std::time::{Duration, Instant};

use flatjoin::Options;
use flatjoin_harness::protocol::client::Client;
use flatjoin_harness::protocol::{self, Answer};
use serde_json::{Value, json};

flatjoin_test_support::tests! {
    @before flatjoin_test_support::fake::serve_if_asked;
    the_harness_requests_match_their_schemas;
    the_in_process_server_answers_by_the_schemas;
    an_answer_off_the_protocol_is_a_protocol_error_quoting_it_and_the_process_restarts;
    a_crash_and_a_hang_are_recorded_and_the_process_restarted;
    a_start_answer_off_the_protocol_refuses_the_implementation;
}

/// A fake implementation playing `mode` (`flatjoin_test_support::fake`: this test binary itself):
/// it answers `start` properly, then misbehaves on `run` requests as the mode says.
fn fake(mode: &str) -> Vec<String> {
    flatjoin_test_support::fake::argv(mode)
}

fn schema() -> Value {
    json!({"type": "object"})
}

fn the_harness_requests_match_their_schemas() {
    let options = Options::default();
    protocol::check_message("start.schema.json", &protocol::start_request()).expect("start");
    protocol::check_message(
        "run.schema.json",
        &protocol::run_request(7, &schema(), &options),
    )
    .expect("run");
    protocol::check_message("stop.schema.json", &protocol::stop_request()).expect("stop");
    // And the schemas reject what they must.
    assert!(protocol::check_message("run.schema.json", &json!({"cmd": "run", "seq": 1})).is_err());
    assert!(
        protocol::check_message(
            "run-response.schema.json",
            &json!({"seq": 1, "presentation": {}, "errored": {"message": "both"}})
        )
        .is_err()
    );
}

fn the_in_process_server_answers_by_the_schemas() {
    let requests = [
        protocol::start_request(),
        protocol::run_request(
            1,
            &json!({"oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]}, {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}]}),
            &Options::default(),
        ),
        protocol::run_request(2, &json!({"type": 7}), &Options::default()),
        protocol::stop_request(),
        protocol::run_request(3, &schema(), &Options::default()),
    ];
    let text: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let mut output = Vec::new();
    protocol::serve::serve(
        &mut Cursor::new(text),
        &mut output,
        &json!({"name": "core", "language": "rust", "readings": ["declared"], "scopes": ["all"]}),
        &flatjoin_harness::oracle::core_flatten,
    )
    .expect("served");
    let lines: Vec<Value> = String::from_utf8(output)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    // start, two runs; nothing after stop.
    assert_eq!(lines.len(), 3, "{lines:?}");
    protocol::check_message("start-response.schema.json", &lines[0]).expect("start response");
    for line in &lines[1..] {
        protocol::check_message("run-response.schema.json", line).expect("run response");
    }
    assert_eq!(lines[1]["presentation"]["type"], "object");
    // The diagnostics go with the presentation (SPEC §6 decision 75) and read back.
    assert_eq!(lines[1]["diagnostics"]["flattened"][0]["pointer"], "");
    assert_eq!(
        lines[1]["diagnostics"]["flattened"][0]["discriminator"],
        "k"
    );
    assert!(matches!(
        protocol::Answer::from_line(&lines[1].to_string(), 1),
        protocol::Answer::Presentation { diagnostics: Some(d), .. } if d == lines[1]["diagnostics"]
    ));
    let malformed = json!({"seq": 1, "presentation": {}, "diagnostics": {"flattened": [{"pointer": 3}], "skipped": []}});
    assert!(matches!(
        protocol::Answer::from_line(&malformed.to_string(), 1),
        protocol::Answer::ProtocolError(m) if m.contains("/diagnostics/flattened/0/pointer")
    ));
    let without = json!({"seq": 1, "errored": {"message": "no"}, "diagnostics": {"flattened": [], "skipped": []}});
    assert!(matches!(
        protocol::Answer::from_line(&without.to_string(), 1),
        protocol::Answer::ProtocolError(_)
    ));
    assert!(
        lines[2]["errored"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("/type"))
    );
}

fn an_answer_off_the_protocol_is_a_protocol_error_quoting_it_and_the_process_restarts() {
    for (mode, says) in [
        ("off-protocol", "this is not json"),
        ("no-outcome", "run-response.schema.json"),
        ("wrong-seq", "the answer's seq is 6, the request's 1"),
    ] {
        let mut client = Client::new(fake(mode), Duration::from_secs(10));
        let first = client.run(&schema(), &Options::default());
        assert!(
            matches!(&first, Answer::ProtocolError(m) if m.contains(says)),
            "{mode}: {first:?}"
        );
        // Each protocol error restarts the process, whose counter starts again at 1: the same
        // answer off the protocol again.
        let again = client.run(&schema(), &Options::default());
        assert!(
            matches!(&again, Answer::ProtocolError(_)),
            "{mode}: {again:?}"
        );
        assert_eq!(client.starts, 2, "{mode}");
    }
}

fn a_crash_and_a_hang_are_recorded_and_the_process_restarted() {
    // Request 1 exits with status 3 (after a line on stderr).
    let mut client = Client::new(fake("crash"), Duration::from_secs(2));
    let crashed = client.run(&schema(), &Options::default());
    assert!(
        matches!(&crashed, Answer::Crashed(m) if m.contains("boom") && m.contains('3')),
        "{crashed:?}"
    );
    // Restarted: this process's first request exits again; the harness counts each start.
    let _ = client.run(&schema(), &Options::default());
    assert_eq!(client.starts, 2);
    // Request 1 hangs.
    let mut client = Client::new(fake("hang"), Duration::from_millis(1500));
    let started = Instant::now();
    let hung = client.run(&schema(), &Options::default());
    assert!(
        matches!(&hung, Answer::Crashed(m) if m.contains("no answer within")),
        "{hung:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    // After a hang the next request goes to a fresh process (here one that hangs only on the
    // first request the client ever sent).
    let mut client = Client::new(fake("hang-first-ever"), Duration::from_millis(1500));
    assert!(matches!(
        client.run(&schema(), &Options::default()),
        Answer::Crashed(_)
    ));
    let after = client.run(&schema(), &Options::default());
    assert_eq!(after, Answer::Errored("refused".into()));
    assert_eq!(client.starts, 2);
}

fn a_start_answer_off_the_protocol_refuses_the_implementation() {
    let command = fake("bad-start");
    let mut client = Client::new(command, Duration::from_secs(5));
    let refused = client.ensure_started().map(|_| ()).expect_err("refused");
    assert!(refused.contains("start-response.schema.json"), "{refused}");
    assert!(
        refused.contains(r#"{"ready": true, "version": 2}"#),
        "{refused}"
    );
}
