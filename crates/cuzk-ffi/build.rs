//! Builds the C++ host code (cpp/) with g++ through cxx-build and, when an
//! nvcc is found, the CUDA kernels (cuda/) through the cc crate. Without nvcc
//! the GPU entry points come from cpp/no_gpu.cpp and fail with a typed
//! `no_gpu` error at run time.
//!
//! nvcc is looked up by nvcc.rs, which `cargo xtask cuda` shares: $NVCC,
//! $CUDA_HOME/bin, PATH, then <workspace>/target/cuda/nvidia/cu13/bin.
//! CUZK_NO_CUDA=1 forces the no-GPU build; CUZK_STATIC_CXX=1 links libstdc++
//! statically (GPU bundles run on another image); CUZK_NVCC_JOBS sets nvcc's
//! --threads (default 0: one per CPU); CUZK_PTXAS_REPORT=1 writes ptxas
//! register/spill reports to $OUT_DIR/ptxas-*.txt; CUZK_CUDA_ARCHS=90 (or
//! 80,90, ...) compiles for those sm_ targets only, for faster iteration.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "nvcc.rs"]
mod nvcc;

const GENCODES: [&str; 3] = ["arch=compute_80,code=sm_80", "arch=compute_89,code=sm_89", "arch=compute_90,code=sm_90"];
const CUDA_SOURCES: [&str; 8] = [
    "cuda/api/device.cu",
    "cuda/api/ntt.cu",
    "cuda/api/msm.cu",
    "cuda/api/groth16.cu",
    "cuda/api/quotient.cu",
    "cuda/api/bench.cu",
    "cuda/api/spmv.cu",
    "cuda/api/setup.cu",
];
/// The C++ host code of every build: the production entry points that need
/// no CUDA, the Groth16 host function (cpp/groth16/) and the test and bench
/// hooks (cpp/hooks/).
const HOST_SOURCES: [&str; 18] = [
    "cpp/msm_host.cpp",
    "cpp/os.cpp",
    "cpp/r1cs_check.cpp",
    "cpp/groth16/circuit.cpp",
    "cpp/groth16/dealloc.cpp",
    "cpp/groth16/epilogue.cpp",
    "cpp/groth16/prove.cpp",
    "cpp/groth16/split.cpp",
    "cpp/groth16/srs.cpp",
    "cpp/groth16/timing.cpp",
    "cpp/hooks/error_hooks.cpp",
    "cpp/hooks/fault_hooks.cpp",
    "cpp/hooks/fixed_base_host.cpp",
    "cpp/hooks/fp64_host.cpp",
    "cpp/hooks/groth16_hooks.cpp",
    "cpp/hooks/host_arith.cpp",
    "cpp/hooks/msm_models.cpp",
    "cpp/hooks/r1cs_host.cpp",
];
/// The two bridges: the production API and the test and bench hooks.
const BRIDGES: [&str; 2] = ["src/lib.rs", "src/hooks.rs"];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../..").canonicalize().unwrap();
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());

    for var in ["NVCC", "CUDA_HOME", "PATH", "CUZK_NO_CUDA", "CUZK_STATIC_CXX", "CUZK_NVCC_JOBS", "CUZK_PTXAS_REPORT", "CUZK_CUDA_ARCHS"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    for dir in ["cuda", "cpp"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    for bridge in BRIDGES {
        println!("cargo:rerun-if-changed={bridge}");
    }
    println!("cargo::rustc-check-cfg=cfg(cuzk_cuda)");

    let no_cuda = env::var_os("CUZK_NO_CUDA").is_some_and(|v| v == "1");
    let nvcc = if no_cuda { None } else { nvcc::find(&root) };
    match &nvcc {
        Some(path) => println!("cargo:rerun-if-changed={}", path.display()),
        // Nothing was searched, so nothing to watch: watching target/ would
        // re-run this script after every build that writes there, the
        // no-CUDA build's own included.
        None if no_cuda => {}
        // Watching the folder that `cargo xtask cuda` installs into notices a
        // new toolkit without re-running this script on every build.
        None => {
            let watch = if root.join("target").is_dir() { root.join("target") } else { root.clone() };
            println!("cargo:rerun-if-changed={}", watch.display());
        }
    }

    let static_cxx = env::var_os("CUZK_STATIC_CXX").is_some_and(|v| v == "1");
    let mut host = cxx_build::bridges(BRIDGES);
    host.include(&root)
        .std("c++17")
        .opt_level(2)
        .cpp_link_stdlib(None)
        .flag_if_supported("-fconstexpr-ops-limit=1000000000")
        // cuda/ff/fp64.hpp's host run must round exactly where the device
        // does: no multiply and add fused into an fma the source did not write.
        .flag_if_supported("-ffp-contract=off");
    for src in HOST_SOURCES {
        host.file(root.join(src));
    }
    if nvcc.is_none() {
        host.file(root.join("cpp/no_gpu.cpp"));
        host.file(root.join("cpp/groth16/no_gpu.cpp"));
    }
    host.compile("cuzk_ffi_host");
    if env::var_os("CARGO_FEATURE_MIMALLOC_DEFAULTS").is_some() {
        build_mimalloc_defaults(&root);
    }

    if let Some(nvcc) = &nvcc {
        build_cuda(nvcc, &root, &out_dir);
        println!("cargo:rustc-cfg=cuzk_cuda");
    } else {
        println!("cargo:warning=cuzk-ffi: no nvcc found; building without CUDA (GPU calls return NoGpu). Run `cargo xtask cuda` to install CUDA 13.0.");
    }
    link_cxx_stdlib(static_cxx);
}

/// The toolkit's library folder holding libcudart_static.a, next to bin/.
/// cpp/allocator.cpp, a load-time constructor that nothing references, as a
/// library of its own linked whole so that the linker keeps it.
fn build_mimalloc_defaults(root: &Path) {
    let include = env::var("DEP_MIMALLOC_INCLUDE_DIR").expect("libmimalloc-sys names its include folder");
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .cpp_link_stdlib(None)
        .include(include)
        .file(root.join("cpp/allocator.cpp"))
        .link_lib_modifier("+whole-archive")
        .compile("cuzk_mimalloc_defaults");
}

fn cuda_lib_dir(nvcc: &Path) -> PathBuf {
    let top = nvcc.parent().and_then(Path::parent).expect("nvcc lives in <toolkit>/bin");
    ["lib64", "lib", "targets/x86_64-linux/lib"]
        .iter()
        .map(|d| top.join(d))
        .find(|d| d.join("libcudart_static.a").is_file())
        .unwrap_or_else(|| panic!("no libcudart_static.a under {}", top.display()))
}

fn nvcc_flags(root: &Path, out_dir: &Path) -> Vec<String> {
    let jobs = env::var("CUZK_NVCC_JOBS").unwrap_or_else(|_| "0".into());
    let mut flags = vec![
        "-std=c++17".to_string(),
        "-O3".into(),
        format!("--threads={jobs}"),
        format!("-I{}", root.display()),
        format!("-I{}", out_dir.join("cxxbridge/include").display()),
        format!("-I{}", out_dir.join("cxxbridge/crate").display()),
    ];
    match env::var("CUZK_CUDA_ARCHS") {
        Ok(archs) => {
            for sm in archs.split(',').map(str::trim).filter(|a| !a.is_empty()) {
                flags.push(format!("-gencode=arch=compute_{sm},code=sm_{sm}"));
            }
        }
        Err(_) => {
            for g in GENCODES {
                flags.push(format!("-gencode={g}"));
            }
        }
    }
    flags
}

fn build_cuda(nvcc: &Path, root: &Path, out_dir: &Path) {
    // cc finds nvcc through $NVCC and only then treats it as nvcc (wrapping
    // host flags in -Xcompiler); `.compiler()` would make it look like g++.
    env::set_var("NVCC", nvcc);
    let mut cu = cc::Build::new();
    cu.cuda(true).cudart("none").debug(false).opt_level(3).cpp_link_stdlib(None);
    for flag in nvcc_flags(root, out_dir) {
        cu.flag(&flag);
    }
    for src in CUDA_SOURCES {
        cu.file(root.join(src));
    }
    cu.compile("cuzk_ffi_cuda");

    if env::var_os("CUZK_PTXAS_REPORT").is_some_and(|v| v == "1") {
        ptxas_report(nvcc, root, out_dir);
    }

    println!("cargo:rustc-link-search=native={}", cuda_lib_dir(nvcc).display());
    println!("cargo:rustc-link-lib=static=cudart_static");
    for lib in ["rt", "dl", "pthread"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
}

/// Compiles each source once more for sm_90 with `-Xptxas -v` and keeps the
/// register, shared-memory and spill report.
fn ptxas_report(nvcc: &Path, root: &Path, out_dir: &Path) {
    for src in CUDA_SOURCES {
        let stem = Path::new(src).file_stem().unwrap().to_string_lossy().into_owned();
        let mut cmd = Command::new(nvcc);
        cmd.args(nvcc_flags(root, out_dir).iter().filter(|f| !f.starts_with("-gencode")))
            .args(["-gencode=arch=compute_90,code=sm_90", "-Xptxas", "-v", "-c", "-o"])
            .arg(out_dir.join(format!("ptxas-{stem}.o")))
            .arg(root.join(src));
        let out = cmd.output().expect("run nvcc for the ptxas report");
        let report = out_dir.join(format!("ptxas-{stem}.txt"));
        std::fs::write(&report, &out.stderr).unwrap();
        println!("cargo:warning=ptxas report: {}", report.display());
    }
}

fn link_cxx_stdlib(static_cxx: bool) {
    if !static_cxx {
        println!("cargo:rustc-link-lib=dylib=stdc++");
        return;
    }
    let out = Command::new("g++").arg("-print-file-name=libstdc++.a").output().expect("run g++");
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let dir = path.parent().expect("libstdc++.a has a folder");
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static=stdc++");
}
