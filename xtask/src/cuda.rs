//! `cargo xtask cuda`: find an nvcc, or install the pinned CUDA 13.0 compiler
//! from PyPI under target/cuda. The lookup order is the one
//! crates/cuzk-ffi/build.rs uses, so after this a plain `cargo build`
//! compiles the kernels.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The five wheels, all pinned to one release: mixing releases breaks ptxas.
const WHEELS: [&str; 5] = [
    "nvidia-cuda-nvcc==13.0.*",
    "nvidia-cuda-runtime==13.0.*",
    "nvidia-cuda-cccl==13.0.*",
    "nvidia-nvvm==13.0.*",
    "nvidia-cuda-crt==13.0.*",
];

/// `cargo xtask cuda`: prints where nvcc is, installing it first if needed.
pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("`cargo xtask cuda` takes no arguments (got `{extra}`)"));
    }
    let nvcc = ensure_toolchain()?;
    println!("nvcc: {}", nvcc.display());
    Ok(())
}

/// The nvcc to build with: $NVCC, $CUDA_HOME/bin, PATH, then
/// <workspace>/target/cuda/nvidia/cu13/bin; when none exists, installs CUDA
/// 13.0 there and returns that.
pub fn ensure_toolchain() -> Result<PathBuf, String> {
    let root = workspace_root();
    if let Some(found) = find_nvcc(&root) {
        return Ok(found);
    }
    let target = root.join("target/cuda");
    eprintln!("xtask cuda: no nvcc found; installing CUDA 13.0 from PyPI into {}", target.display());
    let status = Command::new("python3")
        .args(["-m", "pip", "install", "--disable-pip-version-check", "--target"])
        .arg(&target)
        .args(WHEELS)
        .status()
        .map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
    if !status.success() {
        return Err(format!("pip install of {} failed ({status})", WHEELS.join(" ")));
    }
    let toolkit = target.join("nvidia/cu13");
    fix_up(&toolkit)?;
    let nvcc = toolkit.join("bin/nvcc");
    check_nvcc(&nvcc)?;
    eprintln!("xtask cuda: installed {}", nvcc.display());
    Ok(nvcc)
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace root").to_path_buf()
}

fn find_nvcc(root: &Path) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(p) = env::var_os("NVCC") {
        candidates.push(PathBuf::from(p));
    }
    if let Some(home) = env::var_os("CUDA_HOME") {
        candidates.push(PathBuf::from(home).join("bin/nvcc"));
    }
    if let Some(path) = env::var_os("PATH") {
        candidates.extend(env::split_paths(&path).map(|d| d.join("nvcc")));
    }
    candidates.push(root.join("target/cuda/nvidia/cu13/bin/nvcc"));
    candidates.into_iter().find(|p| p.is_file())
}

/// Makes the unpacked wheels a toolkit nvcc can drive: executable bits on
/// bin/ and cicc, cicc where nvcc.profile expects it (nvvm/bin), and
/// lib64 -> lib because nvcc.profile searches lib64 for libcudart_static.a.
fn fix_up(toolkit: &Path) -> Result<(), String> {
    let must = |p: PathBuf| if p.exists() { Ok(p) } else { Err(format!("the wheels did not provide {}", p.display())) };
    let bin = must(toolkit.join("bin"))?;
    let cicc = must(toolkit.join("nvvm/bin/cicc"))?;
    must(toolkit.join("lib/libcudart_static.a"))?;
    must(toolkit.join("include/cuda_runtime.h"))?;
    let mut executables = vec![cicc];
    for entry in fs::read_dir(&bin).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_file() && path.extension().is_none() {
            executables.push(path);
        }
    }
    for exe in executables {
        make_executable(&exe)?;
    }
    let lib64 = toolkit.join("lib64");
    if !lib64.exists() {
        std::os::unix::fs::symlink("lib", &lib64).map_err(|e| format!("symlink {}: {e}", lib64.display()))?;
    }
    Ok(())
}

fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mut perms = fs::metadata(path).map_err(|e| e.to_string())?.permissions();
    perms.set_mode(perms.mode() | 0o755);
    fs::set_permissions(path, perms).map_err(|e| format!("chmod {}: {e}", path.display()))
}

/// Compiles an empty kernel for sm_90 so a broken install fails here, not in a build script.
fn check_nvcc(nvcc: &Path) -> Result<(), String> {
    let dir = env::temp_dir().join(format!("cuzk-xtask-cuda-{}", std::process::id()));
    fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let src = dir.join("probe.cu");
    fs::write(&src, "__global__ void probe(int* x) { *x = 1; }\n").map_err(|e| e.to_string())?;
    let out = Command::new(nvcc)
        .args(["-c", "-gencode=arch=compute_90,code=sm_90", "-o"])
        .arg(dir.join("probe.o"))
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
    let _ = fs::remove_dir_all(&dir);
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{} cannot compile a probe kernel:\n{}", nvcc.display(), String::from_utf8_lossy(&out.stderr)))
    }
}
