//! A first draft from a data source's schema: tables become objects, columns
//! attributes, foreign keys many-to-one relationships. The schema comes from
//! introspecting a live source or from `CREATE TABLE` statements.

use super::model::{
    Attribute, AttributeRole, Cardinality, DataType, KeyPair, Object, Ontology, Relationship,
};
use crate::project::Dialect;
use crate::sql::{SqlError, snake_case};
use crate::warehouse::catalog::TypeClass;
pub use crate::warehouse::catalog::{Catalog, ColumnSchema, ForeignKey, TableSchema};
use sqlparser::ast::{ColumnOption, ForeignKeyConstraint, ObjectName, Statement, TableConstraint};
use sqlparser::parser::Parser;
use std::collections::{HashMap, HashSet};

/// Maps a source's column type to the ontology's types.
pub fn data_type_of(sql_type: &str) -> DataType {
    match TypeClass::of(sql_type) {
        TypeClass::Integer => DataType::Integer,
        TypeClass::Decimal => DataType::Decimal,
        TypeClass::Boolean => DataType::Boolean,
        TypeClass::Timestamp => DataType::Timestamp,
        TypeClass::Date => DataType::Date,
        TypeClass::Text => DataType::Text,
    }
}

fn title_case(snake: &str) -> String {
    snake
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn qualified(dialect: Dialect, schema: Option<&str>, table: &str) -> String {
    match schema {
        Some(schema) => format!(
            "{}.{}",
            dialect.sql().ident(schema),
            dialect.sql().ident(table)
        ),
        None => dialect.sql().ident(table).to_string(),
    }
}

/// A draft ontology describing every table of `catalog`.
pub fn draft_from_catalog(catalog: &Catalog, dialect: Dialect) -> Ontology {
    // Object names must be unique; the schema disambiguates equal table names.
    let mut taken = HashSet::new();
    let mut object_of: HashMap<(Option<&str>, &str), String> = HashMap::new();
    for table in &catalog.tables {
        let mut name = snake_case(&table.name);
        if !taken.insert(name.clone()) {
            name = snake_case(&format!(
                "{}_{}",
                table.schema.as_deref().unwrap_or("main"),
                table.name
            ));
            let base = name.clone();
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{base}_{n}");
                n += 1;
            }
        }
        object_of.insert((table.schema.as_deref(), table.name.as_str()), name);
    }

    let mut ontology = Ontology::default();
    let mut relationship_names = HashSet::new();
    for table in &catalog.tables {
        let object_name = object_of[&(table.schema.as_deref(), table.name.as_str())].clone();
        let key_columns: HashSet<&str> = table
            .primary_key
            .iter()
            .chain(table.foreign_keys.iter().flat_map(|fk| fk.columns.iter()))
            .map(String::as_str)
            .collect();
        let mut attribute_names = HashSet::new();
        let attributes = table
            .columns
            .iter()
            .map(|column| {
                let mut name = snake_case(&column.name);
                let base = name.clone();
                let mut n = 2;
                while !attribute_names.insert(name.clone()) {
                    name = format!("{base}_{n}");
                    n += 1;
                }
                let data_type = data_type_of(&column.sql_type);
                let lower = column.name.to_ascii_lowercase();
                let role = if key_columns.contains(column.name.as_str())
                    || lower == "id"
                    || lower.ends_with("_id")
                {
                    AttributeRole::Identifier
                } else if matches!(data_type, DataType::Date | DataType::Timestamp) {
                    AttributeRole::Time
                } else if data_type.is_numeric() {
                    AttributeRole::Measure
                } else {
                    AttributeRole::Dimension
                };
                Attribute {
                    column: (name != column.name).then(|| column.name.clone()),
                    name,
                    data_type,
                    role,
                    known_values: column.sample_values.clone(),
                    ..Default::default()
                }
            })
            .collect();
        ontology.objects.push(Object {
            label: title_case(&object_name),
            name: object_name.clone(),
            table: qualified(dialect, table.schema.as_deref(), &table.name),
            primary_key: table.primary_key.clone(),
            attributes,
            ..Default::default()
        });

        for fk in &table.foreign_keys {
            let target_schema = fk.referenced_schema.as_deref().or(table.schema.as_deref());
            let Some(target) = catalog
                .tables
                .iter()
                .find(|t| t.name == fk.referenced_table && t.schema.as_deref() == target_schema)
            else {
                continue; // A key into a table outside the catalog joins nothing we describe.
            };
            let referenced = if fk.referenced_columns.is_empty() {
                &target.primary_key
            } else {
                &fk.referenced_columns
            };
            if referenced.len() != fk.columns.len() {
                continue;
            }
            let target_object = &object_of[&(target.schema.as_deref(), target.name.as_str())];
            let mut name = format!("{object_name}_{target_object}");
            if !relationship_names.insert(name.clone()) {
                name = format!("{object_name}_{}", snake_case(&fk.columns.join("_")));
                relationship_names.insert(name.clone());
            }
            let one_to_one = !table.primary_key.is_empty() && table.primary_key == fk.columns;
            ontology.relationships.push(Relationship {
                name,
                from: object_name.clone(),
                to: target_object.clone(),
                keys: fk
                    .columns
                    .iter()
                    .zip(referenced)
                    .map(|(from, to)| KeyPair {
                        from: from.clone(),
                        to: to.clone(),
                    })
                    .collect(),
                cardinality: if one_to_one {
                    Cardinality::OneToOne
                } else {
                    Cardinality::ManyToOne
                },
                ..Default::default()
            });
        }
    }
    ontology
}

/// Reads `CREATE TABLE` statements in the source's dialect into a catalog.
/// Other statements (indexes, grants, comments) are skipped.
pub fn catalog_from_ddl(dialect: Dialect, ddl: &str) -> Result<Catalog, SqlError> {
    let statements =
        Parser::parse_sql(dialect.sql().parser(), ddl).map_err(|e| SqlError::Syntax {
            dialect,
            message: e.to_string(),
        })?;
    let mut catalog = Catalog::default();
    for statement in statements {
        let Statement::CreateTable(create) = statement else {
            continue;
        };
        let (schema, name) = split_name(&create.name);
        let mut table = TableSchema {
            schema,
            name,
            ..Default::default()
        };
        for column in &create.columns {
            table.columns.push(ColumnSchema {
                name: column.name.value.clone(),
                sql_type: column.data_type.to_string(),
                sample_values: Vec::new(),
            });
            for option in &column.options {
                match &option.option {
                    ColumnOption::PrimaryKey(_) => {
                        table.primary_key = vec![column.name.value.clone()]
                    }
                    ColumnOption::ForeignKey(fk) => {
                        table
                            .foreign_keys
                            .push(foreign_key(vec![column.name.value.clone()], fk));
                    }
                    _ => {}
                }
            }
        }
        for constraint in &create.constraints {
            match constraint {
                TableConstraint::PrimaryKey(pk) => {
                    table.primary_key = pk
                        .columns
                        .iter()
                        .map(|c| {
                            c.column
                                .expr
                                .to_string()
                                .trim_matches(['"', '`'])
                                .to_owned()
                        })
                        .collect();
                }
                TableConstraint::ForeignKey(fk) => {
                    let columns = fk.columns.iter().map(|c| c.value.clone()).collect();
                    table.foreign_keys.push(foreign_key(columns, fk));
                }
                _ => {}
            }
        }
        catalog.tables.push(table);
    }
    Ok(catalog)
}

fn foreign_key(columns: Vec<String>, constraint: &ForeignKeyConstraint) -> ForeignKey {
    let (referenced_schema, referenced_table) = split_name(&constraint.foreign_table);
    ForeignKey {
        columns,
        referenced_schema,
        referenced_table,
        referenced_columns: constraint
            .referred_columns
            .iter()
            .map(|c| c.value.clone())
            .collect(),
    }
}

/// `schema.table` into its parts; a database prefix (`db.schema.table`) is kept with the schema.
fn split_name(name: &ObjectName) -> (Option<String>, String) {
    let mut parts: Vec<String> = name
        .0
        .iter()
        .map(|p| p.to_string().trim_matches(['"', '`']).to_owned())
        .collect();
    let table = parts.pop().unwrap_or_default();
    ((!parts.is_empty()).then(|| parts.join(".")), table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ontology::validate;

    const DDL: &str = "
        CREATE TABLE public.drivers (driver_id INTEGER PRIMARY KEY, forename VARCHAR(255), surname TEXT, dob DATE);
        CREATE TABLE public.races (race_id BIGINT NOT NULL, year INT, name TEXT, \"Date\" TIMESTAMP, PRIMARY KEY (race_id));
        CREATE TABLE public.results (
            result_id INTEGER PRIMARY KEY,
            race_id INTEGER REFERENCES public.races (race_id),
            driver_id INTEGER,
            points NUMERIC(5, 2),
            FOREIGN KEY (driver_id) REFERENCES public.drivers (driver_id)
        );
        CREATE INDEX results_race ON public.results (race_id);
    ";

    #[test]
    fn ddl_becomes_a_valid_draft_with_keys_and_joins() {
        let catalog = catalog_from_ddl(Dialect::Postgres, DDL).unwrap();
        assert_eq!(catalog.tables.len(), 3);
        let draft = draft_from_catalog(&catalog, Dialect::Postgres);
        assert_eq!(validate(&draft, Dialect::Postgres), vec![]);

        let races = &draft.objects[1];
        assert_eq!(
            (
                races.name.as_str(),
                races.table.as_str(),
                races.label.as_str()
            ),
            ("races", "public.races", "Races")
        );
        assert_eq!(races.primary_key, ["race_id"]);
        let date = races.attributes.iter().find(|a| a.name == "date").unwrap();
        assert_eq!(
            (date.column.as_deref(), date.data_type, date.role),
            (Some("Date"), DataType::Timestamp, AttributeRole::Time)
        );

        let results = &draft.objects[2];
        let points = results
            .attributes
            .iter()
            .find(|a| a.name == "points")
            .unwrap();
        assert_eq!(
            (points.data_type, points.role),
            (DataType::Decimal, AttributeRole::Measure)
        );
        let joins: Vec<(&str, &str, &str)> = draft
            .relationships
            .iter()
            .map(|r| (r.name.as_str(), r.from.as_str(), r.to.as_str()))
            .collect();
        assert_eq!(
            joins,
            [
                ("results_races", "results", "races"),
                ("results_drivers", "results", "drivers")
            ]
        );
        assert_eq!(
            draft.relationships[0].keys,
            [KeyPair {
                from: "race_id".into(),
                to: "race_id".into()
            }]
        );
    }

    #[test]
    fn bad_ddl_is_a_syntax_error() {
        assert!(matches!(
            catalog_from_ddl(Dialect::Postgres, "CREATE TABLE ("),
            Err(SqlError::Syntax { .. })
        ));
    }

    #[test]
    fn names_become_snake_case_identifiers() {
        assert_eq!(snake_case("Race Results"), "race_results");
        assert_eq!(snake_case("raceResults"), "race_results");
        assert_eq!(snake_case("2023-sales"), "t_2023_sales");
        assert_eq!(snake_case("ORDERS"), "orders");
    }

    #[test]
    fn types_map_from_what_sources_spell() {
        assert_eq!(data_type_of("character varying"), DataType::Text);
        assert_eq!(data_type_of("bigint"), DataType::Integer);
        assert_eq!(data_type_of("NUMERIC(10,2)"), DataType::Decimal);
        assert_eq!(
            data_type_of("timestamp with time zone"),
            DataType::Timestamp
        );
        assert_eq!(data_type_of("date"), DataType::Date);
        assert_eq!(data_type_of("boolean"), DataType::Boolean);
    }

    #[test]
    fn keywords_and_odd_names_are_quoted() {
        assert_eq!(qualified(Dialect::Postgres, None, "order"), "\"order\"");
        assert_eq!(
            qualified(Dialect::Postgres, Some("public"), "My Table"),
            "public.\"My Table\""
        );
        assert_eq!(qualified(Dialect::MySql, None, "Order"), "`Order`");
    }
}
