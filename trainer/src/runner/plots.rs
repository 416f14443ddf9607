//! `plots/reward.png` (reward per step, one colour and one equal-width slot per stage, so
//! a 600-step stage does not squeeze a 20-step one; MOPD stages plot their mean
//! advantage, rm stages their pairwise accuracy, SFT stages have no reward) and
//! `plots/evals.png` (each domain's eval score after every stage), with titles, axis
//! labels and legends beside the chart, where they hide no line.
//!
//! Text is drawn with a font compiled into the binary (an ASCII subset of DejaVu Sans,
//! `trainer/assets/fonts/`), so the plots look the same on every machine and need no
//! system fonts at run time.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::FontStyle;
use serde_json::Value;
use thiserror::Error;

use super::record::RunRecord;

/// Matplotlib's tab10: ten colours, enough for the main job's nine domains and stages.
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The image size, and the width of the chart beside the legend column.
const SIZE: (u32, u32) = (1000, 500);
const CHART_WIDTH: u32 = 800;

/// DejaVu Sans, printable ASCII plus a few symbols (Bitstream Vera licence, see
/// `trainer/assets/fonts/LICENSE-DejaVu.txt`).
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-subset.ttf");
const FAMILY: &str = "sans-serif";

/// Why a plot was not drawn (reported by the runner, never fatal to a run).
#[derive(Debug, Error)]
pub enum PlotError {
    #[error("the embedded font does not parse")]
    Font,
    #[error("cannot create {path}: {source}")]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Draw { path: PathBuf, message: String },
}

/// Registers the embedded font once per process as plotters' `sans-serif`.
fn register_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok {
        Ok(())
    } else {
        Err(PlotError::Font)
    }
}

/// Draws both plots into `dir`; plotting problems are reported, never fatal to a run.
pub fn draw(dir: &Path, metrics: &[Value], record: &RunRecord) -> Result<(), PlotError> {
    register_font()?;
    std::fs::create_dir_all(dir).map_err(|source| PlotError::Folder {
        path: dir.to_owned(),
        source,
    })?;
    let drawn = |path: PathBuf, result: Result<(), Box<dyn std::error::Error>>| {
        result.map_err(|e| PlotError::Draw {
            message: e.to_string(),
            path,
        })
    };
    let reward = dir.join("reward.png");
    drawn(reward.clone(), reward_plot(&reward, metrics))?;
    let evals = dir.join("evals.png");
    drawn(evals.clone(), eval_plot(&evals, record))
}

/// One point per metrics line: its stage, algorithm and the plotted figure.
fn reward_points(metrics: &[Value]) -> Vec<(String, String, f64)> {
    metrics
        .iter()
        .filter_map(|m| {
            let stage = m.get("stage")?.as_str()?.to_owned();
            let algorithm = m
                .get("algorithm")
                .and_then(Value::as_str)
                .unwrap_or("grpo")
                .to_owned();
            let y = m
                .get("reward_mean")
                .or_else(|| m.get("advantage_mean"))
                .or_else(|| m.get("accuracy"))?
                .as_f64()?;
            y.is_finite().then_some((stage, algorithm, y))
        })
        .collect()
}

/// The points' stages in order, each with its first and one-past-last point index.
fn stage_spans(points: &[(String, String, f64)]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    while start < points.len() {
        let end = points[start..]
            .iter()
            .position(|(s, _, _)| *s != points[start].0)
            .map_or(points.len(), |p| start + p);
        spans.push((start, end));
        start = end;
    }
    spans
}

fn reward_plot(path: &Path, metrics: &[Value]) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, side) = root.split_horizontally(CHART_WIDTH);
    let points = reward_points(metrics);
    let spans = stage_spans(&points);
    let names: Vec<String> = spans.iter().map(|&(s, _)| points[s].0.clone()).collect();
    let (lo, hi) = points.iter().fold((0.0f64, 1.0f64), |(lo, hi), (_, _, y)| {
        (lo.min(*y), hi.max(*y))
    });
    let slots = spans.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&plot)
        .caption(
            "Reward per step, by stage (MOPD: mean token advantage; rm: accuracy)",
            (FAMILY, 18),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(-0.5f64..slots - 0.5, lo..hi)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(names.len().max(2))
        .x_label_formatter(&|x| slot_name(&names, *x))
        .y_label_formatter(&|y| format!("{:.1}", if y.abs() < 1e-9 { 0.0 } else { *y }))
        .x_desc("stage (its steps spread across its slot)")
        .y_desc("mean reward / advantage")
        .label_style((FAMILY, 12))
        .axis_desc_style((FAMILY, 15))
        .draw()?;
    let mut legend = Vec::with_capacity(spans.len());
    for (k, &(start, end)) in spans.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let width = (end - start).max(1) as f64;
        chart.draw_series(LineSeries::new(
            (start..end).map(|i| {
                (
                    k as f64 - 0.45 + 0.9 * (i - start) as f64 / width,
                    points[i].2,
                )
            }),
            colour.stroke_width(2),
        ))?;
        legend.push((format!("{} ({})", points[start].0, points[start].1), colour));
    }
    draw_side_legend(&side, &legend)?;
    root.present()?;
    Ok(())
}

/// The name at an integer x position, for the category axes.
fn slot_name(names: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() < 1e-6 && i >= 0.0 {
        names.get(i as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

/// The legend as a column beside the chart: a colour swatch and a label per series.
fn draw_side_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, RGBColor)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, (label, colour)) in entries.iter().enumerate() {
        let y = 60 + 22 * i as i32;
        area.draw(&PathElement::new(
            vec![(6, y), (26, y)],
            colour.stroke_width(3),
        ))?;
        area.draw(&Text::new(label.clone(), (32, y - 7), (FAMILY, 13)))?;
    }
    Ok(())
}

fn eval_plot(path: &Path, record: &RunRecord) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, side) = root.split_horizontally(CHART_WIDTH);
    let n = record.stages.len().max(2) as f64;
    let names: Vec<String> = record.stages.iter().map(|s| s.stage.clone()).collect();
    let mut chart = ChartBuilder::on(&plot)
        .caption("Eval score per domain after each stage", (FAMILY, 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(-0.2f64..n - 0.8, 0f64..1.05)?;
    chart
        .configure_mesh()
        .x_labels(names.len().max(2))
        .x_label_formatter(&|x| slot_name(&names, *x))
        .y_label_formatter(&|y| format!("{y:.1}"))
        .x_desc("after stage")
        .y_desc("eval score (mean reward)")
        .label_style((FAMILY, 12))
        .axis_desc_style((FAMILY, 15))
        .draw()?;
    let domains = record.domains();
    let mut legend = Vec::with_capacity(domains.len());
    for (k, domain) in domains.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let series: Vec<(f64, f64)> = record
            .stages
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.scores.get(domain).map(|v| (i as f64, *v)))
            .collect();
        chart.draw_series(LineSeries::new(series.clone(), colour.stroke_width(2)))?;
        legend.push((domain.clone(), colour));
        chart.draw_series(
            series
                .into_iter()
                .map(|p| Circle::new(p, 4, colour.filled())),
        )?;
    }
    draw_side_legend(&side, &legend)?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::record::StageRecord;
    use std::collections::BTreeMap;

    #[test]
    fn both_plots_are_drawn_with_the_embedded_font() {
        let dir = tempfile::tempdir().expect("temp dir");
        let metrics: Vec<Value> = (0..6)
            .map(|i| {
                if i < 3 {
                    serde_json::json!({"stage": "a", "algorithm": "grpo", "reward_mean": 0.1 * i as f64})
                } else {
                    serde_json::json!({"stage": "m", "algorithm": "mopd", "advantage_mean": -0.1 * i as f64})
                }
            })
            .collect();
        let stage = |name: &str, v: f64| StageRecord {
            stage: name.into(),
            algorithm: Some(crate::recipe::Algorithm::Grpo),
            scores: BTreeMap::from([("math".to_owned(), v), ("ifeval".to_owned(), 1.0 - v)]),
            teachers: BTreeMap::new(),
            reward_model: None,
        };
        let record = RunRecord {
            stages: vec![stage("base", 0.2), stage("a", 0.5), stage("m", 0.4)],
        };
        draw(dir.path(), &metrics, &record).expect("plots");
        for name in ["reward.png", "evals.png"] {
            let bytes = std::fs::read(dir.path().join(name)).expect("png");
            assert_eq!(&bytes[1..4], b"PNG", "{name}");
        }
    }

    #[test]
    fn every_stage_gets_one_slot_in_order() {
        let point = |stage: &str| (stage.to_owned(), "grpo".to_owned(), 0.5);
        let points = [
            point("a"),
            point("a"),
            point("a"),
            point("b"),
            point("c"),
            point("c"),
        ];
        assert_eq!(stage_spans(&points), [(0, 3), (3, 4), (4, 6)]);
        let names = ["a".to_owned(), "b".to_owned()];
        assert_eq!(slot_name(&names, 1.0), "b");
        assert_eq!(slot_name(&names, 0.5), "");
        assert_eq!(slot_name(&names, 2.0), "");
    }
}
