//! A bar chart of a result with one label column and one number column:
//! categories as horizontal bars, or years and dates as columns in order.

use cassis_core::engine::ResultSet;
use leptos::prelude::*;
use serde_json::Value;

/// Charts of more rows than this stop being readable.
const MAX_BARS: usize = 40;

/// What a result is charted as, when it can be.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label_column: String,
    pub value_column: String,
    pub points: Vec<(String, f64)>,
    /// The labels are times (years, dates): drawn as columns left to right.
    pub over_time: bool,
}

fn is_time(column: &str, values: &[&Value]) -> bool {
    let column = column.to_ascii_lowercase();
    ["year", "season", "date", "month", "day", "week", "quarter"]
        .iter()
        .any(|word| column.contains(word))
        || values
            .iter()
            .all(|v| v.as_i64().is_some_and(|n| (1900..=2100).contains(&n)))
}

fn label_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "—".to_owned(),
        other => other.to_string(),
    }
}

/// The first column as labels and the last numeric column as values, when
/// the result has 2 to 40 rows and such columns.
pub fn series(results: &ResultSet) -> Option<Series> {
    if results.columns.len() < 2 || !(2..=MAX_BARS).contains(&results.rows.len()) {
        return None;
    }
    let value_index = (1..results.columns.len()).rev().find(|&i| {
        results
            .rows
            .iter()
            .all(|row| row.get(i).is_some_and(|v| v.is_number() || v.is_null()))
    })?;
    let labels: Vec<&Value> = results.rows.iter().filter_map(|row| row.first()).collect();
    let points = results
        .rows
        .iter()
        .map(|row| (label_of(&row[0]), row[value_index].as_f64().unwrap_or(0.0)))
        .collect();
    Some(Series {
        over_time: is_time(&results.columns[0], &labels),
        label_column: results.columns[0].clone(),
        value_column: results.columns[value_index].clone(),
        points,
    })
}

#[component]
pub fn BarChart(series: Series) -> impl IntoView {
    let max = series
        .points
        .iter()
        .map(|(_, v)| v.abs())
        .fold(0.0_f64, f64::max)
        .max(1e-9);
    let caption = format!("{} by {}", series.value_column, series.label_column);
    let value_text = |v: f64| cassis_core::engine::answer::format_value(&serde_json::json!(v));
    if series.over_time {
        let count = series.points.len() as f64;
        let (width, height, top, bottom) = (640.0, 220.0, 20.0, 28.0);
        // Few points get narrow columns rather than slabs.
        let slot = (width / count).min(72.0);
        let bars = series.points.iter().enumerate().map(|(i, (label, value))| {
            let h = (value.abs() / max) * (height - top - bottom);
            let x = i as f64 * slot + slot * 0.15;
            let y = height - bottom - h;
            view! {
                <g>
                    <title>{format!("{label}: {}", value_text(*value))}</title>
                    <rect x=x y=y width=slot * 0.7 height=h rx="2" fill="#7e22ce" />
                    <text x=x + slot * 0.35 y=y - 4.0 font-size="9" text-anchor="middle" fill="#334155">{value_text(*value)}</text>
                    <text x=x + slot * 0.35 y=height - 10.0 font-size="10" text-anchor="middle" fill="#475569">{label.clone()}</text>
                </g>
            }
        }).collect_view();
        return view! {
            <figure class="mt-3" data-testid="chart">
                <svg viewBox=format!("0 0 {width} {height}") class="w-full max-w-2xl" role="img" aria-label=caption.clone()>{bars}</svg>
                <figcaption class="text-xs text-slate-500">{caption.clone()}</figcaption>
            </figure>
        }.into_any();
    }
    let rows = series.points.into_iter().map(|(label, value)| {
        let percent = (value.abs() / max * 100.0).max(0.5);
        view! {
            <div class="grid grid-cols-[10rem_1fr_5rem] items-center gap-2 text-xs">
                <span class="truncate text-slate-700" title=label.clone()>{label.clone()}</span>
                <span class="h-3 rounded bg-purple-700" style=format!("width: {percent:.1}%")></span>
                <span class="text-right tabular-nums text-slate-600">{value_text(value)}</span>
            </div>
        }
    }).collect_view();
    view! {
        <figure class="mt-3 space-y-1" data-testid="chart" role="img" aria-label=caption.clone()>
            {rows}
            <figcaption class="pt-1 text-xs text-slate-500">{caption.clone()}</figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(columns: &[&str], rows: Vec<Vec<Value>>) -> ResultSet {
        ResultSet {
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            total_rows: rows.len() as u64,
            rows,
            truncated: false,
        }
    }

    #[test]
    fn a_category_and_a_number_chart_as_bars() {
        let wins = result(
            &["driver", "wins"],
            vec![
                vec![json!("Max Verstappen"), json!(19)],
                vec![json!("Sergio Pérez"), json!(2)],
            ],
        );
        let series = series(&wins).unwrap();
        assert!(!series.over_time);
        assert_eq!(series.points[0], ("Max Verstappen".to_owned(), 19.0));
    }

    #[test]
    fn years_chart_over_time_and_single_values_do_not_chart() {
        let points = result(
            &["year", "points"],
            vec![
                vec![json!(2022), json!(2350.0)],
                vec![json!(2023), json!(2458.0)],
            ],
        );
        assert!(series(&points).unwrap().over_time);
        let one = result(&["races"], vec![vec![json!(22)]]);
        assert_eq!(series(&one), None);
        let words = result(
            &["driver", "nationality"],
            vec![vec![json!("a"), json!("b")], vec![json!("c"), json!("d")]],
        );
        assert_eq!(series(&words), None);
    }
}
