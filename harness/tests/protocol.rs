//! The implementation protocol's client and server (`docs/protocol.md`): the messages the
//! harness writes match their schemas under `protocol/v1/`, the in-process server answers by
//! them, and the client survives implementations that break the protocol, crash or hang (each
//! played by a few lines of Python: without `python3` those tests fail under `CI` and print a
//! loud warning elsewhere, by the rule of `cli/tests/support/tools.rs`).

use std::io::Cursor;
use std::time::{Duration, Instant};

use flatjoin::Options;
use flatjoin_harness::protocol::client::Client;
use flatjoin_harness::protocol::{self, Answer};
use serde_json::{Value, json};

/// The rule for a test that needs an outside program (`python3` here): shared with the CLI's and
/// the packages' tests.
#[path = "../../cli/tests/support/tools.rs"]
mod tools;

/// `python3`, or `None` (a loud warning, or a failure under `CI`) for `test` when it is missing.
fn python(test: &str) -> Option<&'static str> {
    tools::require(test, &[&tools::PYTHON3]).then_some("python3")
}

/// A fake implementation: a Python loop answering `start` properly and each `run` with
/// `answer(seq, n)` (a Python expression giving the line to print, or `None` to print nothing).
fn fake(python: &str, answer: &str) -> Vec<String> {
    let script = format!(
        r#"
import json, sys, time
n = 0
for line in sys.stdin:
    r = json.loads(line)
    if r["cmd"] == "start":
        print(json.dumps({{"ready": True, "version": 1, "implementation": {{"name": "fake", "language": "python", "readings": ["declared"], "scopes": ["all"]}}}}), flush=True)
    elif r["cmd"] == "run":
        n += 1
        seq = r["seq"]
        out = {answer}
        if out is not None:
            print(out, flush=True)
    else:
        break
"#
    );
    vec![python.to_owned(), "-c".to_owned(), script]
}

fn schema() -> Value {
    json!({"type": "object"})
}

#[test]
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

#[test]
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
        &|s, o| {
            flatjoin::flatten(s, o)
                .map(|f| f.schema)
                .map_err(|e| e.to_string())
        },
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
    assert!(
        lines[2]["errored"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("/type"))
    );
}

#[test]
fn an_answer_off_the_protocol_is_a_protocol_error_quoting_it_and_the_process_restarts() {
    let Some(python) = python("the protocol client's answer-off-the-protocol test") else {
        return;
    };
    // The first answer is not JSON, the second has no outcome, the third a wrong seq; then sound.
    let answer = r#"("this is not json" if n == 1 else json.dumps({"seq": seq}) if n == 2 else json.dumps({"seq": seq + 5, "presentation": {}}) if n == 3 else json.dumps({"seq": seq, "presentation": {"type": "object"}}))"#;
    let mut client = Client::new(fake(python, answer), Duration::from_secs(10));
    let first = client.run(&schema(), &Options::default());
    assert!(
        matches!(&first, Answer::ProtocolError(m) if m.contains("this is not json")),
        "{first:?}"
    );
    // Each protocol error restarts the process, whose counter starts again at 1: not JSON again.
    let again = client.run(&schema(), &Options::default());
    assert!(matches!(&again, Answer::ProtocolError(_)), "{again:?}");
    assert_eq!(client.starts, 2);
    let answer = r#"(json.dumps({"seq": seq}) if n == 1 else json.dumps({"seq": seq + 5, "presentation": {}}))"#;
    let mut client = Client::new(fake(python, answer), Duration::from_secs(10));
    let no_outcome = client.run(&schema(), &Options::default());
    assert!(
        matches!(&no_outcome, Answer::ProtocolError(m) if m.contains("run-response.schema.json") && m.contains(r#"{"seq":"#)),
        "{no_outcome:?}"
    );
    let _ = client.run(&schema(), &Options::default());
    let wrong_seq = client.run(&schema(), &Options::default());
    assert!(
        matches!(&wrong_seq, Answer::ProtocolError(m) if m.contains("seq")),
        "{wrong_seq:?}"
    );
}

#[test]
fn a_crash_and_a_hang_are_recorded_and_the_process_restarted() {
    let Some(python) = python("the protocol client's crash-and-hang test") else {
        return;
    };
    // Request 1 exits with status 3 (after a line on stderr), request 2 hangs, the rest answer.
    let answer = r#"((sys.stderr.write("boom\n"), sys.stderr.flush(), sys.exit(3)) if n == 1 and "crash" in sys.argv else (time.sleep(60) if n == 1 else json.dumps({"seq": seq, "errored": {"message": "refused"}})))"#;
    let mut command = fake(python, answer);
    command.push("crash".into());
    let mut client = Client::new(command, Duration::from_secs(2));
    let crashed = client.run(&schema(), &Options::default());
    assert!(
        matches!(&crashed, Answer::Crashed(m) if m.contains("boom") && m.contains('3')),
        "{crashed:?}"
    );
    // Restarted: this process's first request exits again; the harness counts each start.
    let _ = client.run(&schema(), &Options::default());
    assert_eq!(client.starts, 2);
    let mut client = Client::new(fake(python, answer), Duration::from_millis(1500));
    let started = Instant::now();
    let hung = client.run(&schema(), &Options::default());
    assert!(
        matches!(&hung, Answer::Crashed(m) if m.contains("no answer within")),
        "{hung:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    // After a hang the next request goes to a fresh process (here one that hangs only on the
    // first request the client ever sent).
    let mut client = Client::new(
        fake(
            python,
            r#"(time.sleep(60) if n == 1 and seq == 1 else json.dumps({"seq": seq, "errored": {"message": "refused"}}))"#,
        ),
        Duration::from_millis(1500),
    );
    assert!(matches!(
        client.run(&schema(), &Options::default()),
        Answer::Crashed(_)
    ));
    let after = client.run(&schema(), &Options::default());
    assert_eq!(after, Answer::Errored("refused".into()));
    assert_eq!(client.starts, 2);
}

#[test]
fn a_start_answer_off_the_protocol_refuses_the_implementation() {
    let Some(python) = python("the protocol client's start-answer test") else {
        return;
    };
    let command = vec![
        python.to_owned(),
        "-c".to_owned(),
        r#"import sys; sys.stdin.readline(); print('{"ready": true, "version": 2}', flush=True)"#
            .to_owned(),
    ];
    let mut client = Client::new(command, Duration::from_secs(5));
    let refused = client.ensure_started().map(|_| ()).expect_err("refused");
    assert!(refused.contains("start-response.schema.json"), "{refused}");
    assert!(
        refused.contains(r#"{"ready": true, "version": 2}"#),
        "{refused}"
    );
}
