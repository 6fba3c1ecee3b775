//! A `cuzk daemon` child process driven by `cuzk client`, shared by the
//! daemon's CLI tests (cli_daemon.rs, cli_daemon_chaos.rs).
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{cuzk, text};

/// A quick mul-chain (a proof in tens of milliseconds).
pub const SMALL: &str = "1024";
/// A smaller one, the second kind of the benchmark.
pub const TINY: &str = "512";
/// A slower one: 64 partitions of it take seconds on 2 cores.
pub const LARGE: &str = "8192";

/// A `cuzk daemon` child process.
pub struct Daemon {
    pub child: Child,
    /// `unix://<socket>`.
    pub addr: String,
    pub socket: PathBuf,
    stderr: PathBuf,
    pub dir: tempfile::TempDir,
}

impl Daemon {
    /// Starts `cuzk daemon --config FILE ARGS` with `config` (`{socket}` in
    /// either stands for the socket's path) and waits until it answers `status`.
    pub fn start(config: &str, args: &[&str]) -> Daemon {
        Daemon::start_logging(config, args, false)
    }

    /// As [`Daemon::start`]; with `closed_log`, standard error is a pipe
    /// whose reading end is closed as soon as the daemon is spawned (as when
    /// `cuzk daemon 2>&1 | tee log` loses its `tee`), and [`Daemon::log`]
    /// reads nothing.
    pub fn start_logging(config: &str, args: &[&str], closed_log: bool) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("cuzk.sock");
        std::fs::write(dir.path().join("cuzk.toml"), config.replace("{socket}", path(&socket))).unwrap();
        Daemon::spawn(dir, args, closed_log)
    }

    /// Starts a daemon again in the directory a killed one left
    /// ([`Daemon::kill`]): the same configuration file, socket path and
    /// whatever else it wrote there (its log goes to a new file).
    pub fn restart(dir: tempfile::TempDir, args: &[&str]) -> Daemon {
        Daemon::spawn(dir, args, false)
    }

    fn spawn(dir: tempfile::TempDir, args: &[&str], closed_log: bool) -> Daemon {
        let socket = dir.path().join("cuzk.sock");
        let file = dir.path().join("cuzk.toml");
        let starts = std::fs::read_dir(dir.path()).unwrap().filter(|e| {
            e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().starts_with("daemon"))
        });
        let stderr = dir.path().join(format!("daemon-{}.stderr", starts.count()));
        let sink = if closed_log { Stdio::piped() } else { std::fs::File::create(&stderr).unwrap().into() };
        let mut child = Command::new(env!("CARGO_BIN_EXE_cuzk"))
            .args(["daemon", "--config", path(&file)])
            .args(args.iter().map(|a| a.replace("{socket}", path(&socket))))
            .stdout(Stdio::null())
            .stderr(sink)
            .spawn()
            .expect("spawning cuzk daemon");
        drop(child.stderr.take());
        let mut d = Daemon { child, addr: format!("unix://{}", socket.display()), socket, stderr, dir };
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(status) = d.child.try_wait().unwrap() {
                panic!("the daemon exited at start ({status}): {}", d.log());
            }
            if d.socket.exists() && d.client(&["status", "--json"]).status.success() {
                return d;
            }
            assert!(Instant::now() < deadline, "the daemon never answered: {}", d.log());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILL, as an OOM killer or a power cut would: no drain, files left
    /// as they are. The directory, for [`Daemon::restart`].
    pub fn kill(mut self) -> tempfile::TempDir {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap())
    }

    /// `cuzk client --addr <this daemon> ARGS`.
    pub fn client(&self, args: &[&str]) -> Output {
        let mut all = vec!["client", "--addr", &self.addr];
        all.extend_from_slice(args);
        cuzk(&all)
    }

    /// `client` that must succeed; its standard output.
    pub fn ok(&self, args: &[&str]) -> String {
        let o = self.client(args);
        assert!(o.status.success(), "cuzk client {args:?}: {}\ndaemon: {}", text(&o), self.log());
        String::from_utf8(o.stdout).unwrap()
    }

    /// What the daemon wrote on standard error so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Sends SIGTERM and waits for the daemon to drain and exit.
    pub fn terminate(self) -> (ExitStatus, String) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        self.wait_exit()
    }

    /// Waits for the daemon to exit (after a signal sent already).
    pub fn wait_exit(mut self) -> (ExitStatus, String) {
        let status = self.child.wait().unwrap();
        (status, self.log())
    }
}

impl Drop for Daemon {
    /// A test that failed midway leaves no daemon behind.
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits up to 30 s for `done`, failing with `what` if it never is.
pub fn wait_for(done: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "{what} never came");
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small daemon: the CPU, one synthesis worker, 2 GiB, parameters in `params`.
pub fn config(params: &Path) -> String {
    format!(
        "[server]\nlisten = [\"unix://{{socket}}\"]\n[engine]\nbackend = \"cpu\"\nsynthesis_workers = 1\n\
         memory_budget_gib = 2.0\n[params]\ndir = \"{}\"\n",
        params.display()
    )
}

pub fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    eprintln!("{what}: {:.2} s", started.elapsed().as_secs_f64());
    out
}

pub fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

