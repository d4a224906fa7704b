//! A query's result as Snowflake sends it, read into JSON values within a
//! budget of bytes: Arrow IPC streams (`rowsetBase64` and Arrow chunks),
//! decoded by the Arrow crates, or JSON rows of text (`rowset`, and JSON
//! chunks) for a session the server answers in JSON. Snowflake's own
//! encodings sit on top: a NUMBER with a scale arrives as a scaled integer,
//! a TIMESTAMP as a struct of epoch seconds and nanoseconds, and the
//! `rowtype` says which is which.

use super::super::rows::{Budget, ResultTooLarge, decimal, number};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use serde::Deserialize;
use serde_json::Value as Json;

/// One column of a result, as the response's `rowtype` describes it.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ColumnType {
    #[serde(default)]
    pub name: String,
    /// `fixed`, `real`, `text`, `date`, `timestamp_ntz`, `boolean`, ...
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub scale: Option<i64>,
}

impl ColumnType {
    fn scale(&self) -> u32 {
        self.scale.unwrap_or(0).clamp(0, 28) as u32
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("the result's Arrow data could not be read: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    #[error("the result's rows could not be read: {0}")]
    Json(String),
    #[error("the result's rows are not base64")]
    Base64,
    #[error(transparent)]
    TooLarge(#[from] ResultTooLarge),
}

/// The rows of an Arrow IPC stream, appended to `rows`.
pub fn arrow_rows(
    bytes: &[u8],
    columns: &[ColumnType],
    budget: &mut Budget,
    rows: &mut Vec<Vec<Json>>,
) -> Result<(), DecodeError> {
    if bytes.is_empty() {
        return Ok(());
    }
    let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)?;
    for batch in reader {
        batch_rows(&batch?, columns, budget, rows)?;
    }
    Ok(())
}

pub fn arrow_base64_rows(
    text: &str,
    columns: &[ColumnType],
    budget: &mut Budget,
    rows: &mut Vec<Vec<Json>>,
) -> Result<(), DecodeError> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|_| DecodeError::Base64)?;
    arrow_rows(&bytes, columns, budget, rows)
}

fn batch_rows(
    batch: &RecordBatch,
    columns: &[ColumnType],
    budget: &mut Budget,
    rows: &mut Vec<Vec<Json>>,
) -> Result<(), DecodeError> {
    let unknown = ColumnType::default();
    for row in 0..batch.num_rows() {
        let mut values = Vec::with_capacity(batch.num_columns());
        for (i, array) in batch.columns().iter().enumerate() {
            let column = columns.get(i).unwrap_or(&unknown);
            // Field metadata carries the scale when the rowtype does not.
            let scale = column.scale.map(|_| column.scale()).unwrap_or_else(|| {
                batch
                    .schema()
                    .field(i)
                    .metadata()
                    .get("scale")
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0)
            });
            let value = arrow_value(array.as_ref(), row, column, scale);
            budget.spend(size_of(&value))?;
            values.push(value);
        }
        rows.push(values);
    }
    Ok(())
}

/// The bytes a value holds, for the budget: text by its length.
fn size_of(value: &Json) -> usize {
    match value {
        Json::String(s) => s.len(),
        _ => 8,
    }
}

/// A scaled integer as a number: `12345` with scale 2 is 123.45.
fn scaled(value: i128, scale: u32) -> Json {
    if scale == 0 {
        return i64::try_from(value).map_or_else(|_| Json::from(value.to_string()), Json::from);
    }
    match rust_decimal::Decimal::try_from_i128_with_scale(value, scale) {
        Ok(d) => decimal(d),
        Err(_) => Json::Null,
    }
}

fn arrow_value(array: &dyn Array, row: usize, column: &ColumnType, scale: u32) -> Json {
    if array.is_null(row) {
        return Json::Null;
    }
    let kind = column.kind.to_ascii_lowercase();
    let is_time = kind.starts_with("timestamp");
    match array.data_type() {
        DataType::Boolean => Json::from(array.as_boolean().value(row)),
        DataType::Int8 => scaled(array.as_primitive::<Int8Type>().value(row).into(), scale),
        DataType::Int16 => scaled(array.as_primitive::<Int16Type>().value(row).into(), scale),
        DataType::Int32 => scaled(array.as_primitive::<Int32Type>().value(row).into(), scale),
        DataType::Int64 if is_time => {
            // Seconds scaled by the column's fractional digits.
            let v = array.as_primitive::<Int64Type>().value(row);
            let divisor = 10i64.pow(scale.min(9));
            timestamp(
                v.div_euclid(divisor),
                (v.rem_euclid(divisor) * 10i64.pow(9 - scale.min(9))) as u32,
                &kind,
            )
        }
        DataType::Int64 if kind == "time" => {
            let v = array.as_primitive::<Int64Type>().value(row);
            let nanos = (v as i128 * 10i128.pow(9 - scale.min(9))) as i64;
            chrono::NaiveTime::from_num_seconds_from_midnight_opt(
                (nanos / 1_000_000_000) as u32,
                (nanos % 1_000_000_000) as u32,
            )
            .map_or(Json::Null, |t| Json::from(t.to_string()))
        }
        DataType::Int64 => scaled(array.as_primitive::<Int64Type>().value(row).into(), scale),
        DataType::Decimal128(_, s) => {
            let v = array.as_primitive::<Decimal128Type>().value(row);
            scaled(v, (*s).max(0) as u32)
        }
        DataType::Float32 => number(f64::from(array.as_primitive::<Float32Type>().value(row))),
        DataType::Float64 => number(array.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => Json::from(array.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => Json::from(array.as_string::<i64>().value(row)),
        DataType::Utf8View => Json::from(array.as_string_view().value(row)),
        DataType::Date32 => array
            .as_primitive::<Date32Type>()
            .value_as_date(row)
            .map_or(Json::Null, |d| Json::from(d.to_string())),
        DataType::Struct(_) => {
            // TIMESTAMP_*: epoch seconds and nanoseconds (and a time zone).
            let parts = array.as_struct();
            let epoch = parts
                .column_by_name("epoch")
                .and_then(|a| a.as_primitive_opt::<Int64Type>())
                .map(|a| a.value(row));
            let fraction = parts
                .column_by_name("fraction")
                .and_then(|a| a.as_primitive_opt::<Int32Type>())
                .map_or(0, |a| a.value(row));
            match epoch {
                Some(epoch) => timestamp(epoch, fraction.max(0) as u32, &kind),
                None => Json::Null,
            }
        }
        DataType::Binary => Json::from(hex(array.as_binary::<i32>().value(row))),
        _ => Json::Null,
    }
}

/// A timestamp as the other warehouses show one: `2023-03-05 15:00:00`
/// without a time zone, RFC 3339 in UTC with one.
fn timestamp(epoch: i64, nanos: u32, kind: &str) -> Json {
    let Some(utc) = chrono::DateTime::from_timestamp(epoch, nanos) else {
        return Json::Null;
    };
    if kind == "timestamp_ntz" || kind.is_empty() {
        Json::from(utc.naive_utc().to_string())
    } else {
        Json::from(utc.to_rfc3339())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// The rows of a JSON rowset: every value is text (or null), read by the
/// column's type.
pub fn json_rows(
    rowset: &[Vec<Option<String>>],
    columns: &[ColumnType],
    budget: &mut Budget,
    rows: &mut Vec<Vec<Json>>,
) -> Result<(), DecodeError> {
    let unknown = ColumnType::default();
    for row in rowset {
        let mut values = Vec::with_capacity(row.len());
        for (i, text) in row.iter().enumerate() {
            let column = columns.get(i).unwrap_or(&unknown);
            let value = match text {
                None => Json::Null,
                Some(text) => json_value(text, column),
            };
            budget.spend(size_of(&value))?;
            values.push(value);
        }
        rows.push(values);
    }
    Ok(())
}

fn json_value(text: &str, column: &ColumnType) -> Json {
    let kind = column.kind.to_ascii_lowercase();
    match kind.as_str() {
        "fixed" => match rust_decimal::Decimal::from_str_exact(text) {
            Ok(d) => decimal(d),
            Err(_) => Json::from(text),
        },
        "real" => text.parse::<f64>().map_or(Json::from(text), number),
        "boolean" => Json::from(matches!(text, "1" | "true" | "TRUE")),
        // Days since the epoch.
        "date" => text
            .parse::<i64>()
            .ok()
            .and_then(|days| {
                chrono::DateTime::from_timestamp(days * 86_400, 0).map(|d| d.date_naive())
            })
            .map_or(Json::from(text), |d| Json::from(d.to_string())),
        // Seconds since the epoch, with a fraction (and, with a time zone,
        // a second number after a space).
        k if k.starts_with("timestamp") => {
            let seconds = text.split_whitespace().next().unwrap_or(text);
            let (whole, fraction) = seconds.split_once('.').unwrap_or((seconds, ""));
            let nanos = format!("{fraction:0<9}")[..9].parse::<u32>().unwrap_or(0);
            whole
                .parse::<i64>()
                .map_or(Json::from(text), |s| timestamp(s, nanos, k))
        }
        _ => Json::from(text),
    }
}

/// The rows of a JSON chunk: rows separated by commas, without the
/// surrounding brackets.
pub fn json_chunk_rows(
    body: &[u8],
    columns: &[ColumnType],
    budget: &mut Budget,
    rows: &mut Vec<Vec<Json>>,
) -> Result<(), DecodeError> {
    let mut text = Vec::with_capacity(body.len() + 2);
    text.push(b'[');
    text.extend_from_slice(body);
    text.push(b']');
    let rowset: Vec<Vec<Option<String>>> =
        serde_json::from_slice(&text).map_err(|e| DecodeError::Json(e.to_string()))?;
    json_rows(&rowset, columns, budget, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray, StructArray};
    use arrow_schema::{Field, Schema};
    use std::collections::HashMap;
    use std::sync::Arc;

    fn column(kind: &str, scale: i64) -> ColumnType {
        ColumnType {
            name: String::new(),
            kind: kind.into(),
            scale: Some(scale),
        }
    }

    /// An Arrow IPC stream as Snowflake writes one: a scaled NUMBER, text, a
    /// TIMESTAMP_NTZ struct.
    fn stream() -> Vec<u8> {
        let meta = |scale: &str| {
            HashMap::from([
                ("logicalType".to_owned(), "FIXED".to_owned()),
                ("scale".to_owned(), scale.to_owned()),
            ])
        };
        let struct_fields = vec![
            Field::new("epoch", DataType::Int64, false),
            Field::new("fraction", DataType::Int32, false),
        ];
        let schema = Arc::new(Schema::new(vec![
            Field::new("POINTS", DataType::Int64, true).with_metadata(meta("1")),
            Field::new("NAME", DataType::Utf8, true),
            Field::new("AT", DataType::Struct(struct_fields.clone().into()), true),
        ]));
        let at = StructArray::new(
            struct_fields.into(),
            vec![
                Arc::new(Int64Array::from(vec![1_678_028_400, 0])),
                Arc::new(arrow_array::Int32Array::from(vec![500_000_000, 0])),
            ],
            Some(vec![true, false].into()),
        );
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(vec![Some(8605), None])),
                Arc::new(StringArray::from(vec!["Pérez", "Sainz"])),
                Arc::new(at),
            ],
        )
        .unwrap();
        let mut bytes = Vec::new();
        let mut writer = arrow_ipc::writer::StreamWriter::try_new(&mut bytes, &schema).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        drop(writer);
        bytes
    }

    #[test]
    fn arrow_rows_read_snowflake_encodings() {
        let columns = [
            column("fixed", 1),
            column("text", 0),
            column("timestamp_ntz", 9),
        ];
        let mut rows = Vec::new();
        arrow_rows(&stream(), &columns, &mut Budget::capped(), &mut rows).unwrap();
        assert_eq!(
            rows,
            vec![
                vec![
                    Json::from(860.5),
                    Json::from("Pérez"),
                    Json::from("2023-03-05 15:00:00.500")
                ],
                vec![Json::Null, Json::from("Sainz"), Json::Null],
            ]
        );
    }

    #[test]
    fn json_rows_read_text_by_column_type() {
        let columns = [
            column("fixed", 0),
            column("fixed", 2),
            column("date", 0),
            column("boolean", 0),
            column("text", 0),
        ];
        let rowset = vec![vec![
            Some("860".into()),
            Some("12.50".into()),
            Some("19421".into()),
            Some("1".into()),
            None,
        ]];
        let mut rows = Vec::new();
        json_rows(&rowset, &columns, &mut Budget::capped(), &mut rows).unwrap();
        assert_eq!(
            rows[0],
            vec![
                Json::from(860),
                Json::from(12.5),
                Json::from("2023-03-05"),
                Json::from(true),
                Json::Null
            ]
        );
    }
}
