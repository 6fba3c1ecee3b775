//! Where nvcc is looked for: one definition for the two programs that need
//! it, this crate's build.rs (the nvcc that compiles the kernels) and xtask
//! (`cargo xtask cuda | test | gpu-bundle`, which installs the pinned
//! compiler when this finds none). Both include this file with `#[path]`, so
//! it stays std-only and free of crate paths; if the two searches differed,
//! `cargo xtask cuda` could report a compiler that `cargo build` then misses.

use std::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where `cargo xtask cuda` installs the pinned toolkit, under the workspace root.
pub const INSTALL_DIR: &str = "target/cuda";

/// The installed toolkit's nvcc, under [`INSTALL_DIR`] (the wheels' layout).
pub const INSTALLED_NVCC: &str = "nvidia/cu13/bin/nvcc";

/// The first nvcc that exists, searched in [`candidates`]' order with this
/// process's environment.
pub fn find(root: &Path) -> Option<PathBuf> {
    first_file(candidates(env::var_os("NVCC"), env::var_os("CUDA_HOME"), env::var_os("PATH"), root))
}

/// The first candidate that is a file: a `$NVCC` naming nothing falls
/// through to the next place rather than failing the build.
pub fn first_file(candidates: Vec<PathBuf>) -> Option<PathBuf> {
    candidates.into_iter().find(|p| p.is_file())
}

/// The places nvcc may be, in the order they win: `$NVCC` (the file
/// itself), `$CUDA_HOME/bin`, each `PATH` entry, then the toolkit that
/// `cargo xtask cuda` installs under `root`. An explicit choice comes first so
/// that it always beats whatever happens to be installed.
pub fn candidates(
    nvcc: Option<OsString>,
    cuda_home: Option<OsString>,
    path: Option<OsString>,
    root: &Path,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = nvcc.map(PathBuf::from).into_iter().collect();
    out.extend(cuda_home.map(|home| PathBuf::from(home).join("bin/nvcc")));
    if let Some(path) = path {
        out.extend(env::split_paths(&path).map(|d| d.join("nvcc")));
    }
    out.push(root.join(INSTALL_DIR).join(INSTALLED_NVCC));
    out
}
