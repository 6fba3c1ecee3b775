//! `cuzk daemon`: Curio's proving daemon (cuzk-daemon) as a program. The
//! configuration is read and checked, every effective value (defaults the
//! engine picks included) echoed on standard error, then the daemon serves
//! until SIGTERM or SIGINT and exits 0 once it has drained.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use cuzk::Error;
use cuzk_daemon::config::DEFAULT_TOML;
use cuzk_daemon::Config;

/// `cuzk daemon` arguments.
#[derive(Args)]
pub struct DaemonArgs {
    /// The configuration file (TOML; `--print-default-config` writes one).
    /// Every key has a default, so without a file the daemon runs on the
    /// defaults; an unknown key is an error that names it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A gRPC address to serve on, in place of the file's `server.listen`
    /// (repeat for several): `unix:///absolute/path.sock` or `host:port`.
    #[arg(long, value_name = "ADDR")]
    listen: Vec<String>,
    /// Write the default configuration, with a comment on every key, to
    /// standard output and exit.
    #[arg(long, conflicts_with_all = ["config", "listen"])]
    print_default_config: bool,
}

/// Runs the daemon until a signal, or prints the default configuration.
pub fn run(args: &DaemonArgs) -> Result<ExitCode, Error> {
    if args.print_default_config {
        print!("{DEFAULT_TOML}");
        return Ok(ExitCode::SUCCESS);
    }
    let config = effective(args)?;
    let source = match &args.config {
        Some(path) => path.display().to_string(),
        None => "no file: the defaults".to_string(),
    };
    let listen = if args.listen.is_empty() { "" } else { ", server.listen from --listen" };
    say(&format!("cuzk daemon: configuration ({source}{listen}):\n{}", config.resolved().to_toml()?));
    let unset = [
        (config.server.metrics_listen.is_none(), "server.metrics_listen (no /metrics endpoint)"),
        (config.engine.recordings_dir.is_none(), "engine.recordings_dir (recordings kept in memory only)"),
    ];
    for (_, key) in unset.iter().filter(|(absent, _)| *absent) {
        say(&format!("# not set: {key}"));
    }
    cuzk_daemon::init_logging(config.server.log_format, &config.server.log_filter)?;
    let summary = cuzk_daemon::serve_until_signal(config)?;
    say(&format!(
        "cuzk daemon: stopped: {} completed, {} failed, {} cancelled",
        summary.completed, summary.failed, summary.cancelled
    ));
    Ok(ExitCode::SUCCESS)
}

/// A line on standard error, dropped if it cannot be written: a daemon whose
/// log pipe closed goes on serving (`eprintln!` would panic).
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(cuzk_daemon::LossyStderr, "{line}");
}

/// The file's configuration (or the defaults) with `--listen` applied, checked.
fn effective(args: &DaemonArgs) -> Result<Config, Error> {
    let mut config = match &args.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    if !args.listen.is_empty() {
        config.server.listen = args.listen.clone();
    }
    config.check()?;
    Ok(config)
}
