//! `cargo xtask cuda`: find an nvcc, or install the pinned CUDA 13.0 compiler
//! from PyPI under target/cuda. The lookup is crates/cuzk-ffi/nvcc.rs, the
//! file crates/cuzk-ffi/build.rs searches with too, so after this a plain
//! `cargo build` compiles the kernels.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::shell;

/// The search build.rs uses, compiled in from the bridge crate so the two cannot drift.
#[path = "../../crates/cuzk-ffi/nvcc.rs"]
pub mod nvcc;

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

/// The nvcc to build with, searched as [`nvcc::candidates`] says; when none
/// exists, installs CUDA 13.0 under <workspace>/target/cuda and returns that.
pub fn ensure_toolchain() -> Result<PathBuf, String> {
    let root = shell::root();
    if let Some(found) = nvcc::find(&root) {
        return Ok(found);
    }
    let target = root.join(nvcc::INSTALL_DIR);
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
    let installed = target.join(nvcc::INSTALLED_NVCC);
    let toolkit = installed.parent().and_then(Path::parent).expect("nvcc lives in <toolkit>/bin");
    fix_up(toolkit)?;
    check_nvcc(&installed)?;
    eprintln!("xtask cuda: installed {}", installed.display());
    Ok(installed)
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

#[cfg(test)]
mod tests {
    use std::ffi::OsString;
    use std::fs;
    use std::path::{Path, PathBuf};

    use super::nvcc::{candidates, first_file};

    fn os(s: &str) -> Option<OsString> {
        Some(OsString::from(s))
    }

    #[test]
    fn search_order_is_nvcc_cuda_home_path_then_the_installed_toolkit() {
        let found = candidates(os("/x/my-nvcc"), os("/opt/cuda"), os("/a:/b/bin"), Path::new("/ws"));
        let expected: Vec<PathBuf> = ["/x/my-nvcc", "/opt/cuda/bin/nvcc", "/a/nvcc", "/b/bin/nvcc", "/ws/target/cuda/nvidia/cu13/bin/nvcc"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn without_any_variable_only_the_installed_toolkit_is_searched() {
        assert_eq!(candidates(None, None, None, Path::new("/ws")), vec![PathBuf::from("/ws/target/cuda/nvidia/cu13/bin/nvcc")]);
    }

    #[test]
    fn a_missing_nvcc_falls_through_to_the_next_place_that_exists() {
        let dir = std::env::temp_dir().join(format!("cuzk-xtask-nvcc-order-{}", std::process::id()));
        let (on_path, installed) = (dir.join("path"), dir.join("ws/target/cuda/nvidia/cu13/bin"));
        for d in [&on_path, &installed] {
            fs::create_dir_all(d).unwrap();
            fs::write(d.join("nvcc"), "").unwrap();
        }
        let search = |nvcc: &Path| {
            first_file(candidates(Some(nvcc.into()), None, Some(on_path.clone().into()), &dir.join("ws")))
        };
        assert_eq!(search(&dir.join("absent")), Some(on_path.join("nvcc")), "PATH wins over the installed toolkit");
        assert_eq!(search(&installed.join("nvcc")), Some(installed.join("nvcc")), "$NVCC wins when it exists");
        fs::remove_file(on_path.join("nvcc")).unwrap();
        assert_eq!(search(&dir.join("absent")), Some(installed.join("nvcc")));
        fs::remove_dir_all(&dir).unwrap();
    }
}
