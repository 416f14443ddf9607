//! `plots/reward.png` (reward per step, one colour per stage; MOPD stages plot their
//! mean advantage) and `plots/evals.png` (each domain's eval score after every stage).

use std::path::Path;

use plotters::prelude::*;
use serde_json::Value;

use super::record::RunRecord;

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Draws both plots into `dir`; plotting problems are reported, never fatal to a run.
pub fn draw(dir: &Path, metrics: &[Value], record: &RunRecord) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    reward_plot(&dir.join("reward.png"), metrics).map_err(|e| e.to_string())?;
    eval_plot(&dir.join("evals.png"), record).map_err(|e| e.to_string())
}

fn reward_plot(path: &Path, metrics: &[Value]) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let points: Vec<(String, f64)> = metrics
        .iter()
        .filter_map(|m| {
            let stage = m.get("stage")?.as_str()?.to_owned();
            let y = m
                .get("reward_mean")
                .or_else(|| m.get("advantage_mean"))?
                .as_f64()?;
            Some((stage, y))
        })
        .collect();
    let (lo, hi) = points.iter().fold((0.0f64, 1.0f64), |(lo, hi), (_, y)| {
        (lo.min(*y), hi.max(*y))
    });
    let mut chart = ChartBuilder::on(&root)
        .margin(20)
        .build_cartesian_2d(0f64..points.len().max(1) as f64, lo..hi)?;
    chart.configure_mesh().disable_x_mesh().draw()?;
    let mut stage_index = 0;
    let mut start = 0;
    while start < points.len() {
        let name = &points[start].0;
        let end = points[start..]
            .iter()
            .position(|(s, _)| s != name)
            .map_or(points.len(), |p| start + p);
        let colour = COLOURS[stage_index % COLOURS.len()];
        chart.draw_series(LineSeries::new(
            (start..end).map(|i| (i as f64, points[i].1)),
            colour.stroke_width(2),
        ))?;
        stage_index += 1;
        start = end;
    }
    root.present()?;
    Ok(())
}

fn eval_plot(path: &Path, record: &RunRecord) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let n = record.stages.len().max(2) as f64;
    let mut chart = ChartBuilder::on(&root)
        .margin(20)
        .build_cartesian_2d(0f64..n - 1.0, 0f64..1.0)?;
    chart.configure_mesh().draw()?;
    for (k, domain) in record.domains().iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let series: Vec<(f64, f64)> = record
            .stages
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.scores.get(domain).map(|v| (i as f64, *v)))
            .collect();
        chart.draw_series(LineSeries::new(series.clone(), colour.stroke_width(2)))?;
        chart.draw_series(
            series
                .into_iter()
                .map(|p| Circle::new(p, 4, colour.filled())),
        )?;
    }
    root.present()?;
    Ok(())
}
