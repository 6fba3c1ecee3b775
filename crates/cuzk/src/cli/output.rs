//! Output files that appear whole, and only after everything that vouches
//! for them succeeded.
//!
//! Each output is written to a temporary file of its own in the target's
//! directory (so the final rename stays on one file system and is atomic),
//! named `.NAME.PID.RANDOM.cuzk-partial`: unique per run, so two runs never
//! write through one temporary, and recognisable, so the partial files of a
//! run that was killed are removed by the next run that writes NAME (when
//! their process is gone). The temporary is created before the work starts,
//! so a missing or read-only directory is found at once, not after minutes
//! of proving; it is removed if the run fails.

use std::ffi::OsString;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use cuzk::Error;
use tempfile::NamedTempFile;

const SUFFIX: &str = ".cuzk-partial";

/// A file being written under a temporary name.
pub struct Output {
    dest: PathBuf,
    tmp: BufWriter<NamedTempFile>,
}

impl Output {
    /// Starts writing `dest`. Refuses a `dest` that is the same file as one
    /// of `inputs` (`prove --out x.params --params x.params` would replace
    /// the parameters by proofs).
    pub fn create(dest: &Path, inputs: &[&Path]) -> Result<Output, Error> {
        if let Some(input) = inputs.iter().find(|i| same_file(dest, i)) {
            return Err(Error::Usage(format!(
                "output {} is the input {}: refusing to overwrite it",
                dest.display(),
                input.display()
            )));
        }
        let name = dest
            .file_name()
            .ok_or_else(|| Error::Usage(format!("output {} names no file", dest.display())))?;
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if dest.is_dir() {
            return Err(Error::Usage(format!("output {} is a directory", dest.display())));
        }
        // The rename would replace a device node, FIFO or symlink with a
        // regular file (as root, `--out /dev/null` would break /dev/null
        // for the machine): only a regular file or a new path is written.
        if let Ok(meta) = std::fs::symlink_metadata(dest) {
            if !meta.file_type().is_file() {
                let what = if meta.file_type().is_symlink() { "a symbolic link" } else { "not a regular file" };
                return Err(Error::Usage(format!("output {} is {what}: refusing to replace it", dest.display())));
            }
        }
        remove_stale(dir, name);
        let mut prefix = OsString::from(".");
        prefix.push(name);
        prefix.push(format!(".{}.", std::process::id()));
        let tmp = tempfile::Builder::new().prefix(&prefix).suffix(SUFFIX).tempfile_in(dir).map_err(Error::io(dir))?;
        Ok(Output { dest: dest.to_path_buf(), tmp: BufWriter::with_capacity(1 << 22, tmp) })
    }

    /// Where the bytes go until [`Output::commit`].
    pub fn writer(&mut self) -> &mut impl Write {
        &mut self.tmp
    }

    /// The file this output will become.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes the bytes to disk and renames the temporary over the
    /// destination, which readers then see whole or not at all.
    pub fn commit(self) -> Result<(), Error> {
        let dest = self.dest;
        let tmp = self.tmp.into_inner().map_err(|e| Error::io(&dest)(e.into_error()))?;
        tmp.as_file().sync_all().map_err(Error::io(&dest))?;
        tmp.persist(&dest).map_err(|e| Error::io(&dest)(e.error))?;
        Ok(())
    }
}

/// Whether `a` and `b` name one existing file (also through links).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Removes `.NAME.PID.*.cuzk-partial` files in `dir` whose process no longer
/// runs: what a killed run of an earlier output left behind. Best effort: a
/// file that cannot be removed is left for the next run.
fn remove_stale(dir: &Path, name: &std::ffi::OsStr) {
    let Some(name) = name.to_str() else { return };
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    if !Path::new("/proc/self").exists() {
        return; // without /proc no process can be told gone
    }
    let head = format!(".{name}.");
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file.to_str().and_then(|f| stale_pid(f, &head)) else { continue };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The process id in a temporary's name `HEAD PID . RANDOM SUFFIX`.
fn stale_pid(file: &str, head: &str) -> Option<u32> {
    let rest = file.strip_prefix(head)?.strip_suffix(SUFFIX)?;
    let (pid, random) = rest.split_once('.')?;
    (!random.is_empty() && !random.contains('.')).then_some(())?;
    pid.parse().ok()
}

/// `OUT.inputs.json` for a proofs file `OUT`, for any `OUT` the OS accepts
/// (a name that is not UTF-8 included).
pub fn inputs_path(proofs: &Path) -> PathBuf {
    let mut s = proofs.as_os_str().to_owned();
    s.push(".inputs.json");
    PathBuf::from(s)
}

/// Writes `bytes` to `out`, naming its destination if that fails.
pub fn write_all(out: &mut Output, bytes: &[u8]) -> Result<(), Error> {
    let dest = out.dest().to_path_buf();
    out.writer().write_all(bytes).map_err(Error::io(dest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path) -> Vec<u8> {
        std::fs::read(path).unwrap()
    }

    #[test]
    fn temporaries_are_recognised_by_name_only() {
        let head = ".proofs.bin.";
        assert_eq!(stale_pid(".proofs.bin.4242.AbC123.cuzk-partial", head), Some(4242));
        assert_eq!(stale_pid(".proofs.bin.4242.cuzk-partial", head), None);
        assert_eq!(stale_pid(".proofs.bin.x.AbC.cuzk-partial", head), None);
        assert_eq!(stale_pid(".proofs.bin.inputs.json.7.AbC.cuzk-partial", head), None);
        assert_eq!(stale_pid(".proofs.bin.4242.AbC.tmp", head), None);
        assert_eq!(stale_pid("proofs.bin.4242.AbC.cuzk-partial", head), None);
    }

    #[test]
    fn an_output_appears_only_on_commit_and_a_dropped_one_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.bin");
        std::fs::write(&dest, b"old").unwrap();
        let mut out = Output::create(&dest, &[]).unwrap();
        write_all(&mut out, b"new").unwrap();
        assert_eq!(read(&dest), b"old");
        out.commit().unwrap();
        assert_eq!(read(&dest), b"new");

        let mut dropped = Output::create(&dest, &[]).unwrap();
        write_all(&mut dropped, b"lost").unwrap();
        drop(dropped);
        assert_eq!(read(&dest), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the temporary is gone");
    }

    #[test]
    fn stale_temporaries_of_dead_processes_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dir.path().join(format!(".out.bin.{}.AbC.cuzk-partial", u32::MAX - 1));
        let live = dir.path().join(format!(".out.bin.{}.XyZ.cuzk-partial", std::process::id()));
        let other = dir.path().join(format!(".other.bin.{}.AbC.cuzk-partial", u32::MAX - 1));
        for f in [&dead, &live, &other] {
            std::fs::write(f, b"partial").unwrap();
        }
        let out = Output::create(&dir.path().join("out.bin"), &[]).unwrap();
        assert!(!dead.exists() && live.exists() && other.exists());
        drop(out);
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let params = dir.path().join("x.params");
        std::fs::write(&params, b"params").unwrap();
        let link = dir.path().join("link.params");
        std::fs::hard_link(&params, &link).unwrap();
        for dest in [&params, &link, &dir.path().join(".").join("x.params")] {
            assert!(matches!(Output::create(dest, &[&params]), Err(Error::Usage(_))), "{}", dest.display());
        }
        assert_eq!(read(&params), b"params");
        assert!(matches!(Output::create(dir.path(), &[]), Err(Error::Usage(_))));
        let missing = dir.path().join("no-such-dir").join("out.bin");
        assert!(matches!(Output::create(&missing, &[]), Err(Error::Io { .. })));
    }

    #[test]
    fn an_output_that_is_a_device_or_a_symlink_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.bin");
        std::fs::write(&target, b"kept").unwrap();
        let link = dir.path().join("link.bin");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for dest in [&link, Path::new("/dev/null")] {
            match Output::create(dest, &[]) {
                Err(Error::Usage(why)) => assert!(why.contains("refusing to replace"), "{why}"),
                other => panic!("{}: expected a refusal, got {:?}", dest.display(), other.map(|o| o.dest().to_owned())),
            }
        }
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(read(&target), b"kept");
    }

    #[test]
    fn inputs_path_keeps_names_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let raw = std::ffi::OsStr::from_bytes(b"proofs-\xff.bin");
        let inputs = inputs_path(Path::new(raw));
        assert_eq!(inputs.as_os_str().as_bytes(), b"proofs-\xff.bin.inputs.json");
    }
}
