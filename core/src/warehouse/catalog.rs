//! What a warehouse holds, as far as bootstrapping an ontology needs it:
//! tables and views, their columns and keys, and sampled values. Read from
//! a live source by its connector or from `CREATE TABLE` statements; plain
//! types, so the browser build has them too.

use serde::{Deserialize, Serialize};

/// The tables of a data source, as far as bootstrapping needs them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    pub tables: Vec<TableSchema>,
}

impl Catalog {
    /// Adds a column of `schema.table`, read in table order: a column of the
    /// table read last joins it, any other starts a new table.
    pub fn push_column(&mut self, schema: String, table: String, column: ColumnSchema) {
        let is_current = self
            .tables
            .last()
            .is_some_and(|t| t.schema.as_deref() == Some(schema.as_str()) && t.name == table);
        if !is_current {
            self.tables.push(TableSchema {
                schema: Some(schema),
                name: table,
                ..Default::default()
            });
        }
        if let Some(last) = self.tables.last_mut() {
            last.columns.push(column);
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TableSchema {
    /// `None` for the source's default schema (SQLite's `main`).
    pub schema: Option<String>,
    pub name: String,
    pub columns: Vec<ColumnSchema>,
    pub primary_key: Vec<String>,
    pub foreign_keys: Vec<ForeignKey>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ColumnSchema {
    pub name: String,
    /// The type as the source spells it: `BIGINT`, `character varying`.
    pub sql_type: String,
    /// Distinct values of a low-cardinality text column, when sampled.
    pub sample_values: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ForeignKey {
    pub columns: Vec<String>,
    pub referenced_schema: Option<String>,
    pub referenced_table: String,
    /// Empty when the key refers to the referenced table's primary key.
    pub referenced_columns: Vec<String>,
}

/// The broad kind of a column's type as the source spells it (`BIGINT`,
/// `character varying`, `INT64`, `NUMBER(38,0)`): what the ontology's types
/// and the sampling of known values (text columns only) are read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeClass {
    Integer,
    Decimal,
    Text,
    Boolean,
    Date,
    Timestamp,
}

impl TypeClass {
    pub fn of(sql_type: &str) -> TypeClass {
        let t = sql_type.to_ascii_uppercase();
        if t.contains("INT") || t == "SERIAL" || t == "BIGSERIAL" {
            TypeClass::Integer
        } else if [
            "REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL", "MONEY", "NUMBER",
        ]
        .iter()
        .any(|k| t.contains(k))
        {
            TypeClass::Decimal
        } else if t.starts_with("BOOL") {
            TypeClass::Boolean
        } else if t.contains("TIMESTAMP") || t.contains("DATETIME") {
            TypeClass::Timestamp
        } else if t.starts_with("DATE") {
            TypeClass::Date
        } else {
            TypeClass::Text
        }
    }
}
