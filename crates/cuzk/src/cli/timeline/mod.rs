//! `cuzk timeline plot TIMELINE.jsonl --out FILE.svg`: a picture of where a
//! run's time went, from the JSON-lines timeline that `--timeline` (prove,
//! bench, filecoin prove) writes: prove calls per device, each partition's
//! synthesis, and how long synthesized partitions waited for a device.

mod spans;
mod svg;

use std::path::{Path, PathBuf};

use clap::Subcommand;
use cuzk::Error;

/// `cuzk timeline` commands.
#[derive(Subcommand)]
pub enum TimelineCommand {
    /// Draw a timeline as an SVG picture.
    Plot {
        /// The timeline (JSON lines, as `--timeline` writes them).
        timeline: PathBuf,
        /// Where to write the picture (SVG).
        #[arg(long)]
        out: PathBuf,
        /// The picture's title (default: the timeline's file name and a summary).
        #[arg(long)]
        title: Option<String>,
    },
}

/// Runs a `cuzk timeline` command.
pub fn run(command: &TimelineCommand) -> Result<(), Error> {
    match command {
        TimelineCommand::Plot { timeline, out, title } => plot(timeline, out, title.as_deref()),
    }
}

fn plot(timeline: &Path, out: &Path, title: Option<&str>) -> Result<(), Error> {
    let text = std::fs::read_to_string(timeline).map_err(|source| Error::Io { path: timeline.to_path_buf(), source })?;
    let spans = spans::read(&text).map_err(|message| Error::Timeline { path: timeline.to_path_buf(), message })?;
    let calls = spans.spans.iter().filter(|s| s.kind == spans::Kind::Prove).count();
    let title = title.map(str::to_string).unwrap_or_else(|| {
        let file = timeline.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        format!("{file}: {} jobs, {calls} prove calls, {:.1} s", spans.jobs, spans.end_ms / 1e3)
    });
    // Drawn beside the target and renamed, so a failed drawing leaves no
    // half-written picture behind.
    let partial = out.with_extension("svg.partial");
    svg::draw(&spans, &title, &partial).map_err(|message| {
        let _ = std::fs::remove_file(&partial);
        Error::Timeline { path: out.to_path_buf(), message }
    })?;
    std::fs::rename(&partial, out).map_err(|source| Error::Io { path: out.to_path_buf(), source })?;
    println!("{}: {} spans, {} lanes", out.display(), spans.spans.len(), spans.lanes().len());
    Ok(())
}
