//! Running child processes with the command line echoed, so a failing step is
//! obvious in CI logs.

use std::path::PathBuf;
use std::process::Command;

/// The workspace root (xtask lives one level below it).
pub fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().expect("xtask sits inside the workspace").to_path_buf()
}

/// Cargo's target directory: `$CARGO_TARGET_DIR`, else <root>/target.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"))
}

/// Runs `cmd` in the workspace root, echoing it; an unsuccessful exit is an error.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    cmd.current_dir(root());
    eprintln!("$ {}", describe(cmd));
    let status = cmd.status().map_err(|e| format!("cannot start {}: {e}", describe(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed with {status}", describe(cmd)))
    }
}

/// `cargo` as invoked by the user (respects `$CARGO`).
pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Whether an NVIDIA GPU is visible on this machine (through `nvidia-smi -L`).
pub fn gpu_present() -> bool {
    Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GPU"))
        .unwrap_or(false)
}

fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}
