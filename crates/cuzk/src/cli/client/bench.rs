//! `cuzk client bench`: N `Prove` calls from C concurrent clients, each on
//! a connection of its own (as separate Curio tasks would be), the
//! requests taken in turn from the kinds given. Reports throughput and
//! latency (p50, p90, p99, max, as the client sees it) per circuit, as a
//! table or one JSON object. Requests the daemon did not prove are counted
//! and make the command fail once the report is out.

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::Instant;

use clap::{Args, Parser};
use cuzk::Error;
use cuzk_daemon::client::{request::circuit_id, status_name, Client, ClientError, Options};
use cuzk_daemon::proto::{await_proof_response::Status as AwaitStatus, SubmitProofRequest};
use serde_json::json;

use super::request::RequestArgs;
use crate::cli::stats::percentile;

/// `cuzk client bench` arguments.
#[derive(Args)]
pub struct BenchArgs {
    /// One kind of request, given by the request flags.
    #[command(flatten)]
    request: RequestArgs,
    /// Another kind of request, as its request flags in one argument
    /// (repeat for more): `--request '--workload sha256 --size 4'`.
    /// Requests alternate between the kinds given.
    #[arg(long = "request", value_name = "FLAGS", allow_hyphen_values = true)]
    more: Vec<String>,
    /// Requests in all.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    count: u32,
    /// Concurrent clients, each with its own connection.
    #[arg(long, short = 'c', value_name = "C", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    concurrency: u32,
    /// One JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The request flags of one `--request` argument.
#[derive(Parser)]
#[command(no_binary_name = true)]
struct Spec {
    #[command(flatten)]
    request: RequestArgs,
}

/// One request's outcome.
struct Sample {
    /// Index of its kind in the kinds given.
    kind: usize,
    /// Milliseconds from sending to the answer.
    ms: f64,
    /// Why it was not proved, when it was not.
    failure: Option<String>,
}

/// Runs the benchmark against the daemon at `addr`, connecting with `options`.
pub fn run(addr: &str, options: &Options, args: &BenchArgs) -> Result<ExitCode, Error> {
    let kinds = kinds(args)?;
    let (count, clients) = (args.count as usize, args.concurrency.min(args.count) as usize);
    let next = AtomicUsize::new(0);
    let samples = Mutex::new(Vec::with_capacity(count));
    // Every client connects before the clock starts.
    let ready = Barrier::new(clients + 1);
    let (wall_s, connected) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..clients)
            .map(|_| {
                scope.spawn(|| -> Result<(), ClientError> {
                    let client = Client::connect_with(addr, options);
                    ready.wait();
                    let client = client?;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= count {
                            return Ok(());
                        }
                        let sample = prove(&client, i % kinds.len(), &kinds[i % kinds.len()].1);
                        samples.lock().unwrap_or_else(|p| p.into_inner()).push(sample);
                    }
                })
            })
            .collect();
        ready.wait();
        let started = Instant::now();
        let results: Vec<_> = workers.into_iter().map(|w| w.join()).collect();
        (started.elapsed().as_secs_f64(), results)
    });
    for result in connected {
        // A worker that panicked has already said why on standard error.
        result.map_err(|_| Error::Usage("a bench client thread panicked".into()))??;
    }
    let samples = samples.into_inner().unwrap_or_else(|p| p.into_inner());
    let report = Report::new(&kinds, &samples, wall_s, args.concurrency.min(args.count));
    print!("{}", if args.json { report.json() } else { report.table() });
    match samples.iter().find_map(|s| s.failure.clone()) {
        Some(first) => {
            let failed = samples.iter().filter(|s| s.failure.is_some()).count();
            Err(Error::BenchFailed { failed, requests: samples.len(), first })
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The kinds given, each with its circuit id (as the report names it).
fn kinds(args: &BenchArgs) -> Result<Vec<(String, SubmitProofRequest)>, Error> {
    let mut specs = Vec::new();
    if !args.request.is_empty() {
        specs.push(args.request.clone());
    }
    for flags in &args.more {
        let words = split(flags).map_err(|why| Error::Usage(format!("--request {flags:?}: {why}")))?;
        let spec = Spec::try_parse_from(words).map_err(|e| Error::Usage(format!("--request {flags:?}: {e}")))?;
        specs.push(spec.request);
    }
    if specs.is_empty() {
        return Err(Error::Usage("no request to send: give the request flags, or --request '...'".into()));
    }
    specs.iter().map(|s| s.build().map(|r| (circuit_id(&r), r))).collect()
}

/// Splits `--request`'s argument into words at spaces, keeping what is
/// inside single or double quotes together (a path with spaces).
fn split(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    // The word being read, if any (`''` is an empty word, not none).
    let mut word: Option<String> = None;
    let mut quote = None;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.get_or_insert_with(String::new).push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            None if c.is_whitespace() => words.extend(word.take()),
            None => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return Err("an unclosed quote".into());
    }
    words.extend(word);
    Ok(words)
}

/// One `Prove` call, timed.
fn prove(client: &Client, kind: usize, req: &SubmitProofRequest) -> Sample {
    let started = Instant::now();
    let answer = client.prove(req.clone());
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let failure = match answer {
        Ok(r) if r.status == AwaitStatus::Completed as i32 => None,
        Ok(r) => Some(format!("job {}: {}: {}", r.job_id, status_name(r.status), r.error_message)),
        Err(e) => Some(e.to_string()),
    };
    Sample { kind, ms, failure }
}

/// One row of the report: a circuit, or every request.
struct Row {
    name: String,
    sent: usize,
    proved: usize,
    /// Proved requests' latencies, ascending.
    ms: Vec<f64>,
}

impl Row {
    fn new(name: String, samples: &[&Sample]) -> Row {
        let mut ms: Vec<f64> = samples.iter().filter(|s| s.failure.is_none()).map(|s| s.ms).collect();
        ms.sort_by(f64::total_cmp);
        Row { name, sent: samples.len(), proved: ms.len(), ms }
    }
}

/// What the run measured.
struct Report {
    rows: Vec<Row>,
    wall_s: f64,
    clients: u32,
}

impl Report {
    fn new(kinds: &[(String, SubmitProofRequest)], samples: &[Sample], wall_s: f64, clients: u32) -> Report {
        let mut rows: Vec<Row> = kinds
            .iter()
            .enumerate()
            .map(|(k, (name, _))| Row::new(name.clone(), &samples.iter().filter(|s| s.kind == k).collect::<Vec<_>>()))
            .collect();
        if rows.len() > 1 {
            rows.push(Row::new("all".into(), &samples.iter().collect::<Vec<_>>()));
        }
        Report { rows, wall_s, clients }
    }

    fn per_s(&self, row: &Row) -> f64 {
        if self.wall_s > 0.0 {
            row.proved as f64 / self.wall_s
        } else {
            0.0
        }
    }

    fn table(&self) -> String {
        let mut out = format!("{} client(s), {:.2} s\n", self.clients, self.wall_s);
        out += &format!(
            "{:<20} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
            "CIRCUIT", "SENT", "PROVED", "PROOFS/S", "P50 MS", "P90 MS", "P99 MS", "MAX MS"
        );
        for r in &self.rows {
            let p = |q| percentile(&r.ms, q);
            out += &format!(
                "{:<20} {:>6} {:>6} {:>9.2} {:>9.1} {:>9.1} {:>9.1} {:>9.1}\n",
                r.name,
                r.sent,
                r.proved,
                self.per_s(r),
                p(50.0),
                p(90.0),
                p(99.0),
                p(100.0)
            );
        }
        out
    }

    fn json(&self) -> String {
        let rows: Vec<_> = self
            .rows
            .iter()
            .map(|r| {
                let p = |q| percentile(&r.ms, q);
                json!({
                    "circuit": r.name, "sent": r.sent, "proved": r.proved, "failed": r.sent - r.proved,
                    "proofs_per_s": self.per_s(r),
                    "latency_ms": {"p50": p(50.0), "p90": p(90.0), "p99": p(99.0), "max": p(100.0)},
                })
            })
            .collect();
        format!("{}\n", json!({"clients": self.clients, "wall_s": self.wall_s, "circuits": rows}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_arguments_split_into_words_with_quotes() {
        assert_eq!(split(" --c1  'a b.json' --miner-id 7 ").unwrap(), ["--c1", "a b.json", "--miner-id", "7"]);
        assert_eq!(split(r#"--vanilla "x y" ''"#).unwrap(), ["--vanilla", "x y", ""]);
        assert!(split("--c1 'open").is_err());
    }

    #[test]
    fn rows_count_what_was_not_proved_and_add_a_total() {
        let s = |kind, ms, failed: bool| Sample { kind, ms, failure: failed.then(|| "no".to_string()) };
        let kinds =
            vec![("a".to_string(), SubmitProofRequest::default()), ("b".to_string(), SubmitProofRequest::default())];
        let report = Report::new(&kinds, &[s(0, 10.0, false), s(0, 30.0, true), s(1, 20.0, false)], 2.0, 2);
        let names: Vec<_> = report.rows.iter().map(|r| (r.name.as_str(), r.sent, r.proved)).collect();
        assert_eq!(names, [("a", 2, 1), ("b", 1, 1), ("all", 3, 2)]);
        let v: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
        assert_eq!(v["circuits"][2]["proofs_per_s"], 1.0);
        assert_eq!(v["circuits"][0]["failed"], 1);
        assert_eq!(v["circuits"][0]["latency_ms"]["max"], 10.0);
        assert!(report.table().lines().nth(2).unwrap().starts_with('a'));
    }
}
