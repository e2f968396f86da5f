//! One implementation process, spoken to through the protocol: started (and restarted after a
//! crash, a hang or a protocol error) on demand, each request answered within a timeout.
//!
//! No async: the process's stdout is read by a thread that sends each line into a channel, and
//! the harness waits on it with `recv_timeout`. Its stderr is read by another thread that keeps
//! the last few kilobytes, quoted when the process dies (after that thread has read to the end,
//! or half a second); the process's exit is waited on with `wait-timeout`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use flatjoin::Options;
use serde_json::Value;
use wait_timeout::ChildExt;

use super::{Answer, ImplementationInfo, VERSION};

/// How much of an implementation's stderr is kept for crash messages.
const STDERR_TAIL: usize = 2048;
/// Restarts that fail in a row before the harness gives up on an implementation.
const MAX_FAILED_STARTS: u32 = 3;

/// A line of the process's stdout, or its end.
enum Line {
    Text(String),
    End(String),
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<String>>,
    /// Closed when the stderr reader has read to the end.
    stderr_read: Receiver<()>,
}

/// A client of one implementation command.
pub struct Client {
    command: Vec<String>,
    timeout: Duration,
    running: Option<Running>,
    seq: u64,
    failed_starts: u32,
    /// What the implementation said about itself (after the first successful start).
    pub info: Option<ImplementationInfo>,
    /// Processes started (1 + restarts).
    pub starts: u32,
    /// Time spent between writing a request and reading its answer (the protocol's cost plus the
    /// implementation's own).
    pub waiting: Duration,
    /// Requests answered (whatever the answer).
    pub requests: u64,
}

impl Client {
    /// A client of `command` (program and arguments); nothing is started until the first request.
    pub fn new(command: Vec<String>, timeout: Duration) -> Client {
        Client {
            command,
            timeout,
            running: None,
            seq: 0,
            failed_starts: 0,
            info: None,
            starts: 0,
            waiting: Duration::ZERO,
            requests: 0,
        }
    }

    /// Starts the process and exchanges `start`, unless it is running; `Err` says why it could
    /// not be started (the process is then not running).
    pub fn ensure_started(&mut self) -> Result<&ImplementationInfo, String> {
        if self.running.is_none() {
            if self.failed_starts >= MAX_FAILED_STARTS {
                return Err(format!(
                    "gave up after {MAX_FAILED_STARTS} failed starts in a row"
                ));
            }
            match self.start() {
                Ok(info) => {
                    self.failed_starts = 0;
                    self.info = Some(info);
                }
                Err(e) => {
                    self.failed_starts += 1;
                    self.kill();
                    return Err(e);
                }
            }
        }
        self.info
            .as_ref()
            .ok_or_else(|| "the implementation did not describe itself".to_owned())
    }

    fn start(&mut self) -> Result<ImplementationInfo, String> {
        let Some((program, args)) = self.command.split_first() else {
            return Err("empty implementation command".into());
        };
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        self.starts += 1;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the implementation's pipes could not be opened".into());
        };
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                let message = match reader.read_line(&mut line) {
                    Ok(0) => Line::End("end of output".into()),
                    Ok(_) => Line::Text(line),
                    Err(e) => Line::End(format!("unreadable output: {e}")),
                };
                let end = matches!(message, Line::End(_));
                if sender.send(message).is_err() || end {
                    return;
                }
            }
        });
        let tail = Arc::new(Mutex::new(String::new()));
        let keep = Arc::clone(&tail);
        let (read_to_end, stderr_read) = channel::<()>();
        std::thread::spawn(move || {
            // Dropped on return: the receiver then sees the channel closed.
            let _read_to_end = read_to_end;
            let mut stderr = stderr;
            let mut buf = [0u8; 1024];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    return;
                }
                if let Ok(mut t) = keep.lock() {
                    t.push_str(&String::from_utf8_lossy(&buf[..n]));
                    if t.len() > STDERR_TAIL {
                        let cut = t.len() - STDERR_TAIL;
                        let cut = (cut..t.len()).find(|i| t.is_char_boundary(*i)).unwrap_or(0);
                        t.drain(..cut);
                    }
                }
            }
        });
        self.running = Some(Running {
            child,
            stdin,
            lines,
            stderr: tail,
            stderr_read,
        });
        let line = self
            .exchange(
                &super::start_request(),
                self.timeout.max(Duration::from_secs(10)),
            )
            .map_err(|e| format!("no answer to start: {e}"))?;
        let value: Value = serde_json::from_str(&line)
            .map_err(|e| format!("the start answer is not JSON ({e}): {}", line.trim_end()))?;
        super::check_message("start-response.schema.json", &value).map_err(|why| {
            format!(
                "the start answer {why}: {}",
                line.trim_end().chars().take(400).collect::<String>()
            )
        })?;
        if value["version"].as_u64() != Some(VERSION) {
            return Err(format!(
                "the implementation speaks version {}",
                value["version"]
            ));
        }
        Ok(ImplementationInfo::from_start_response(&value))
    }

    /// Writes one request and waits for one line; `Err` when the process ended or did not
    /// answer in time (the process is killed then).
    fn exchange(&mut self, request: &Value, timeout: Duration) -> Result<String, String> {
        let Some(running) = self.running.as_mut() else {
            return Err("not running".into());
        };
        let text = request.to_string() + "\n";
        let started = Instant::now();
        if let Err(e) = running
            .stdin
            .write_all(text.as_bytes())
            .and_then(|()| running.stdin.flush())
        {
            let why = self.died(&format!("cannot write the request ({e})"));
            return Err(why);
        }
        let received = running.lines.recv_timeout(timeout);
        self.waiting += started.elapsed();
        match received {
            Ok(Line::Text(line)) => Ok(line),
            Ok(Line::End(why)) => Err(self.died(&why)),
            Err(RecvTimeoutError::Disconnected) => Err(self.died("end of output")),
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(format!(
                    "no answer within {:.1} s (killed)",
                    timeout.as_secs_f64()
                ))
            }
        }
    }

    /// Kills the process and describes how it ended (exit status, stderr's tail).
    fn died(&mut self, what: &str) -> String {
        let Some(mut running) = self.running.take() else {
            return what.to_owned();
        };
        // The output ended: the process is exiting; give it a moment to report its status.
        let status = match running.child.wait_timeout(Duration::from_millis(500)) {
            Ok(Some(s)) => s.to_string(),
            _ => {
                let _ = running.child.kill();
                let _ = running.child.wait();
                "killed".to_owned()
            }
        };
        // The stderr reader may still be draining the last lines: wait until it has read to the
        // end (bounded: a process the implementation started may keep the pipe open).
        let _ = running.stderr_read.recv_timeout(Duration::from_millis(500));
        let tail = running
            .stderr
            .lock()
            .map(|t| t.trim().to_owned())
            .unwrap_or_default();
        if tail.is_empty() {
            format!("{what}; the process ended ({status})")
        } else {
            format!("{what}; the process ended ({status}); stderr: {tail}")
        }
    }

    fn kill(&mut self) {
        if let Some(mut running) = self.running.take() {
            let _ = running.child.kill();
            let _ = running.child.wait();
        }
    }

    /// Sends `run` for `schema` under `options` and reads the answer. A crash, a hang (past the
    /// timeout) or a protocol error leaves the process stopped; the next request restarts it.
    pub fn run(&mut self, schema: &Value, options: &Options) -> Answer {
        if let Err(e) = self.ensure_started() {
            return Answer::Crashed(format!("the implementation cannot be started: {e}"));
        }
        self.seq += 1;
        let seq = self.seq;
        self.requests += 1;
        let line = match self.exchange(&super::run_request(seq, schema, options), self.timeout) {
            Ok(line) => line,
            Err(e) => return Answer::Crashed(e),
        };
        let answer = Answer::from_line(line.trim_end_matches(['\n', '\r']), seq);
        if matches!(answer, Answer::ProtocolError(_)) {
            self.kill();
        }
        answer
    }

    /// Sends `stop`, closes stdin and waits a second for the process to exit (then kills it).
    pub fn stop(&mut self) {
        let Some(mut running) = self.running.take() else {
            return;
        };
        let _ = running
            .stdin
            .write_all((super::stop_request().to_string() + "\n").as_bytes());
        drop(running.stdin);
        if let Ok(Some(_)) = running.child.wait_timeout(Duration::from_secs(1)) {
            return;
        }
        let _ = running.child.kill();
        let _ = running.child.wait();
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.stop();
    }
}
