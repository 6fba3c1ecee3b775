//! The picture of a timeline's spans, drawn with plotters into an SVG file:
//! one row per device (its prove calls) above one row per synthesis lane
//! (each partition's synthesis, then a thin bar while it waits for its
//! call), time in seconds across.

use std::path::Path;

use plotters::prelude::*;

use super::spans::{Kind, Lane, Spans};

const PROVE: RGBColor = RGBColor(31, 119, 180);
const SYNTHESIS: RGBColor = RGBColor(44, 160, 44);
const WAIT: RGBColor = RGBColor(255, 127, 14);

/// Draws `spans` into `out` under `title`.
pub fn draw(spans: &Spans, title: &str, out: &Path) -> Result<(), String> {
    let lanes = spans.lanes();
    let rows = lanes.len().max(1);
    let height = 110 + 26 * rows as u32;
    let root = SVGBackend::new(out, (1200, height)).into_drawing_area();
    let failed = |e: &dyn std::fmt::Display| format!("drawing {}: {e}", out.display());
    root.fill(&WHITE).map_err(|e| failed(&e))?;
    // Row i is centred on y = rows - 1 - i, so the devices are on top and
    // each row's label sits on an integer tick.
    let y_of = |lane: &Lane| (rows - 1 - lanes.iter().position(|l| l == lane).unwrap_or(0)) as f64;
    let end_s = (spans.end_ms / 1e3).max(1e-3);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(120)
        .build_cartesian_2d(0f64..end_s, -0.5f64..rows as f64 - 0.5)
        .map_err(|e| failed(&e))?;
    let name = |y: &f64| -> String {
        let row = y.round();
        if (y - row).abs() > 1e-6 || row < 0.0 || row as usize >= rows {
            return String::new();
        }
        match lanes.get(rows - 1 - row as usize) {
            Some(Lane::Device(d)) => format!("prove {d}"),
            Some(Lane::Synthesis(n)) => format!("synthesis {n}"),
            None => String::new(),
        }
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("seconds since the first event")
        .y_labels(rows + 1)
        .y_label_formatter(&name)
        .draw()
        .map_err(|e| failed(&e))?;
    for (kind, colour, legend) in [
        (Kind::Prove, PROVE, "prove call"),
        (Kind::Synthesis, SYNTHESIS, "synthesis"),
        (Kind::Wait, WAIT, "synthesized, waiting for its call"),
    ] {
        let half = if kind == Kind::Wait { 0.08 } else { 0.38 };
        let bars = spans.spans.iter().filter(|s| s.kind == kind).map(|s| {
            let y = y_of(&s.lane);
            Rectangle::new([(s.start_ms / 1e3, y - half), (s.end_ms / 1e3, y + half)], colour.filled())
        });
        chart
            .draw_series(bars)
            .map_err(|e| failed(&e))?
            .label(legend)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| failed(&e))?;
    root.present().map_err(|e| failed(&e))
}
