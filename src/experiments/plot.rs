//! Line and bar plots written as PNG and SVG with plotters, text in the bundled DejaVu Sans
//! (`assets/fonts`), so no system font is needed.

use super::ExperimentError;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Colours of the series, in order.
pub(super) const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(23, 190, 207),
];

const SIZE: (u32, u32) = (960, 640);

fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
        // The bundled file is a valid TrueType font; if registration failed, plotters would
        // report the missing font when drawing text, which surfaces as a plot error.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, bytes);
    });
}

/// One named curve.
pub(super) struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A line plot; with `log_x`/`log_y` the axis shows log10 of the values (ticks labelled with
/// the values).
pub(super) struct LinePlot {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
}

/// Grouped bars: one group per category, one bar per series.
pub(super) struct BarPlot {
    pub title: String,
    pub y_label: String,
    pub log_y: bool,
    pub groups: Vec<String>,
    /// (series name, one value per group)
    pub series: Vec<(String, Vec<f64>)>,
}

/// A plot of a report.
pub(super) enum Plot {
    Line(LinePlot),
    Bar(BarPlot),
}

fn tick(log: bool, v: f64) -> String {
    if log {
        let x = 10f64.powf(v);
        if (v - v.round()).abs() < 1e-9 {
            format!("1e{}", v.round() as i64)
        } else {
            format!("{x:.1e}")
        }
    } else if v.abs() >= 1e4 {
        format!("{v:.1e}")
    } else {
        // Six decimals at most, trailing zeros dropped (0.060000000000000005 → 0.06).
        let t = format!("{v:.6}");
        let t = t.trim_end_matches('0').trim_end_matches('.');
        if t == "-0" {
            "0".to_string()
        } else {
            t.to_string()
        }
    }
}

fn range(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        return (lo - 0.5, hi + 0.5);
    }
    let d = (hi - lo) * pad;
    (lo - d, hi + d)
}

fn draw_lines<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    p: &LinePlot,
) -> Result<(), String> {
    let fx = |x: f64| if p.log_x { x.log10() } else { x };
    let fy = |y: f64| if p.log_y { y.max(1e-300).log10() } else { y };
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let xs = p
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|q| fx(q.0)));
    let ys = p
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|q| fy(q.1)));
    let (x0, x1) = range(xs, 0.03);
    let (y0, y1) = range(ys, 0.05);
    let y0 = if p.log_y { y0 } else { y0.min(0.0) };
    let mut chart = ChartBuilder::on(&root)
        .caption(p.title.as_str(), ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(p.x_label.as_str())
        .y_desc(p.y_label.as_str())
        .x_label_formatter(&|v| tick(p.log_x, *v))
        .y_label_formatter(&|v| tick(p.log_y, *v))
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, s) in p.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (fx(x), fy(y))).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(s.name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(pts.into_iter().map(|q| Circle::new(q, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 16))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

fn draw_bars<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, p: &BarPlot) -> Result<(), String> {
    let fy = |y: f64| if p.log_y { y.max(1e-300).log10() } else { y };
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let ys = p.series.iter().flat_map(|s| s.1.iter().map(|&v| fy(v)));
    let (y0, y1) = range(ys, 0.08);
    let y0 = if p.log_y { y0 } else { 0.0 };
    let n = p.groups.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(p.title.as_str(), ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..n, y0..y1)
        .map_err(|e| e.to_string())?;
    let groups = p.groups.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(2 * p.groups.len() + 1)
        .x_label_formatter(&|v| {
            let k = v.floor() as usize;
            if (v - v.floor() - 0.5).abs() < 0.01 && k < groups.len() {
                groups[k].clone()
            } else {
                String::new()
            }
        })
        .y_desc(p.y_label.as_str())
        .y_label_formatter(&|v| tick(p.log_y, *v))
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| e.to_string())?;
    let k = p.series.len().max(1) as f64;
    let width = 0.8 / k;
    for (si, (name, values)) in p.series.iter().enumerate() {
        let color = PALETTE[si % PALETTE.len()];
        let bars = values.iter().enumerate().map(move |(g, &v)| {
            let x = g as f64 + 0.1 + si as f64 * width;
            Rectangle::new([(x, y0), (x + width * 0.92, fy(v))], color.filled())
        });
        chart
            .draw_series(bars)
            .map_err(|e| e.to_string())?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], color.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 16))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

fn write_both(
    out: &Path,
    stem: &str,
    png: impl FnOnce(&Path) -> Result<(), String>,
    svg: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), ExperimentError> {
    register_font();
    let png_path = out.join(format!("{stem}.png"));
    png(&png_path).map_err(|message| ExperimentError::Plot {
        path: png_path.clone(),
        message,
    })?;
    let svg_path = out.join(format!("{stem}.svg"));
    svg(&svg_path).map_err(|message| ExperimentError::Plot {
        path: svg_path.clone(),
        message,
    })
}

/// Writes `stem.png` and `stem.svg` under `out`.
pub(super) fn draw(out: &Path, stem: &str, plot: &Plot) -> Result<(), ExperimentError> {
    match plot {
        Plot::Line(p) => write_both(
            out,
            stem,
            |f| draw_lines(BitMapBackend::new(f, SIZE).into_drawing_area(), p),
            |f| draw_lines(SVGBackend::new(f, SIZE).into_drawing_area(), p),
        ),
        Plot::Bar(p) => write_both(
            out,
            stem,
            |f| draw_bars(BitMapBackend::new(f, SIZE).into_drawing_area(), p),
            |f| draw_bars(SVGBackend::new(f, SIZE).into_drawing_area(), p),
        ),
    }
}
