//! SQL that a language model wrote instead of a plan. It is accepted only as
//! one read-only SELECT over the tables and columns the ontology describes,
//! so a model can neither change data nor read what the data team did not
//! curate; what runs is the parsed statement, re-rendered.

use crate::engine::compile::CompiledQuery;
use crate::ontology::Ontology;
use crate::project::Dialect;
use crate::sql::{self, SqlError};
use sqlparser::ast::{
    Expr, Ident, ObjectName, Query, SelectItem, SetExpr, TableFactor, Visit, Visitor,
};
use std::collections::HashSet;
use std::ops::ControlFlow;

/// Why written SQL was refused, in words that can go back to the user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SqlRejection {
    #[error("the SQL {0}")]
    Parse(#[from] SqlError),
    #[error(
        "the SQL must be one plain SELECT at the top (no UNION), so Cassis can count and cap its rows"
    )]
    NotPlainSelect,
    #[error("the SQL selects `*`; it must name the columns it returns")]
    Wildcard,
    #[error("the SQL reads `{0}`, which is not the table of any object in the ontology")]
    UnknownTable(String),
    #[error("the SQL uses `{0}`, which is not a column of any object in the ontology")]
    UnknownColumn(String),
}

/// Parses `text` and checks it against `ontology`; the result runs like a
/// compiled plan.
pub fn check(
    ontology: &Ontology,
    dialect: Dialect,
    text: &str,
) -> Result<CompiledQuery, SqlRejection> {
    let query = sql::parse_select(dialect, text)?;
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Err(SqlRejection::NotPlainSelect);
    };
    let columns = select
        .projection
        .iter()
        .map(output_name)
        .collect::<Result<Vec<_>, _>>()?;

    let mut names = Names::default();
    let _ = query.visit(&mut names);

    let known = KnownNames::of(ontology, dialect);
    let mut objects = Vec::new();
    for table in &names.tables {
        let parts = lowercase_parts(table);
        let defined_here = parts.len() == 1 && names.aliases.contains(&parts[0]);
        match known.object_table(&parts) {
            Some(table) => {
                if !objects.contains(&table) {
                    objects.push(table);
                }
            }
            None if defined_here => {}
            None => return Err(SqlRejection::UnknownTable(table.to_string())),
        }
    }
    for reference in &names.columns {
        let Some((column, qualifiers)) = reference.split_last() else {
            continue;
        };
        let column_name = column.value.to_lowercase();
        if !known.columns.contains(&column_name) && !names.aliases.contains(&column_name) {
            return Err(SqlRejection::UnknownColumn(column.value.clone()));
        }
        for qualifier in qualifiers {
            let name = qualifier.value.to_lowercase();
            if !names.aliases.contains(&name) && !known.table_parts.contains(&name) {
                return Err(SqlRejection::UnknownTable(qualifier.value.clone()));
            }
        }
    }
    Ok(CompiledQuery {
        sql: query.to_string(),
        query,
        columns,
        objects,
    })
}

/// The name a result column gets: its alias, else the column it shows, else
/// the expression's text.
fn output_name(item: &SelectItem) -> Result<String, SqlRejection> {
    match item {
        SelectItem::ExprWithAlias { alias, .. } => Ok(alias.value.clone()),
        SelectItem::UnnamedExpr(Expr::Identifier(ident)) => Ok(ident.value.clone()),
        SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) => {
            Ok(parts.last().map(|p| p.value.clone()).unwrap_or_default())
        }
        SelectItem::UnnamedExpr(expr) => Ok(expr.to_string()),
        SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => Err(SqlRejection::Wildcard),
        other => Ok(other.to_string()),
    }
}

fn lowercase_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .filter_map(|part| part.as_ident())
        .map(|ident| ident.value.to_lowercase())
        .collect()
}

/// What the ontology lets SQL name: the objects' tables and every column its
/// attributes, keys and metrics read.
struct KnownNames {
    /// Each object's table as parts, with the table as the ontology spells it.
    tables: Vec<(Vec<String>, String)>,
    /// Every part of every table name, for qualified column references.
    table_parts: HashSet<String>,
    columns: HashSet<String>,
}

impl KnownNames {
    fn of(ontology: &Ontology, dialect: Dialect) -> Self {
        let mut known = KnownNames {
            tables: Vec::new(),
            table_parts: HashSet::new(),
            columns: HashSet::new(),
        };
        let mut expressions: Vec<&str> = Vec::new();
        for object in &ontology.objects {
            if let Ok(name) = sql::parse_table_name(dialect, &object.table) {
                let parts = lowercase_parts(&name);
                known.table_parts.extend(parts.iter().cloned());
                known.tables.push((parts, object.table.clone()));
            }
            known
                .columns
                .extend(object.primary_key.iter().map(|k| k.to_lowercase()));
            for attribute in &object.attributes {
                if let Some(column) = attribute.column_name() {
                    known.columns.insert(column.to_lowercase());
                }
                expressions.extend(attribute.expr.as_deref());
            }
        }
        for relationship in &ontology.relationships {
            for key in &relationship.keys {
                known.columns.insert(key.from.to_lowercase());
                known.columns.insert(key.to.to_lowercase());
            }
        }
        for metric in &ontology.metrics {
            expressions.extend(metric.expr.as_deref());
            expressions.extend(metric.filters.iter().map(String::as_str));
        }
        for text in expressions {
            if let Ok(expr) = sql::parse_expression(dialect, text) {
                let mut names = Names::default();
                let _ = expr.visit(&mut names);
                for reference in names.columns {
                    if let Some(column) = reference.last() {
                        known.columns.insert(column.value.to_lowercase());
                    }
                }
            }
        }
        known
    }

    /// The ontology's spelling of the table `parts` names: the same parts, or
    /// an unqualified name equal to a table's last part (the search path).
    fn object_table(&self, parts: &[String]) -> Option<String> {
        self.tables
            .iter()
            .find(|(known, _)| known == parts)
            .or_else(|| {
                (parts.len() == 1)
                    .then(|| {
                        self.tables
                            .iter()
                            .find(|(known, _)| known.last() == parts.last())
                    })
                    .flatten()
            })
            .map(|(_, table)| table.clone())
    }
}

/// The names a statement reads and the ones it defines itself.
#[derive(Default)]
struct Names {
    tables: Vec<ObjectName>,
    /// Column references as written, qualifiers first.
    columns: Vec<Vec<Ident>>,
    /// Lowercased aliases of tables, subqueries, CTEs and output columns.
    aliases: HashSet<String>,
}

impl Names {
    fn define(&mut self, ident: &Ident) {
        self.aliases.insert(ident.value.to_lowercase());
    }

    fn define_outputs(&mut self, body: &SetExpr) {
        match body {
            SetExpr::Select(select) => {
                for item in &select.projection {
                    if let SelectItem::ExprWithAlias { alias, .. } = item {
                        self.define(alias);
                    }
                }
            }
            SetExpr::SetOperation { left, right, .. } => {
                self.define_outputs(left);
                self.define_outputs(right);
            }
            _ => {}
        }
    }
}

impl Visitor for Names {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                self.define(&cte.alias.name);
                for column in &cte.alias.columns {
                    self.define(&column.name);
                }
            }
        }
        self.define_outputs(&query.body);
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        self.tables.push(relation.clone());
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        let alias = match factor {
            TableFactor::Table { alias, .. }
            | TableFactor::Derived { alias, .. }
            | TableFactor::Function { alias, .. }
            | TableFactor::UNNEST { alias, .. } => alias.as_ref(),
            _ => None,
        };
        if let Some(alias) = alias {
            self.define(&alias.name);
            for column in &alias.columns {
                self.define(&column.name);
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Identifier(ident) => self.columns.push(vec![ident.clone()]),
            Expr::CompoundIdentifier(parts) => self.columns.push(parts.clone()),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    fn f1() -> Ontology {
        crate::ontology::from_yaml(include_str!("../../../examples/f1/ontology.yaml"))
            .expect("the F1 ontology parses")
    }

    #[test]
    fn a_select_over_the_ontology_is_accepted_and_named() {
        let checked = check(
            &f1(),
            Dialect::Postgres,
            "SELECT d.forename || ' ' || d.surname AS driver, COUNT(*) AS wins \
             FROM public.results r JOIN public.drivers d ON d.driver_id = r.driver_id \
             WHERE r.position = 1 GROUP BY 1 ORDER BY wins DESC LIMIT 3",
        )
        .unwrap();
        assert_eq!(checked.columns, ["driver", "wins"]);
        assert_eq!(checked.objects, ["public.results", "public.drivers"]);
        assert!(
            checked.sql.starts_with("SELECT d.forename"),
            "{}",
            checked.sql
        );
    }

    #[test]
    fn writes_other_tables_and_unknown_columns_are_refused() {
        let ontology = f1();
        let refused = |sql: &str| check(&ontology, Dialect::Postgres, sql).unwrap_err();
        assert_eq!(
            refused("DELETE FROM public.results"),
            SqlRejection::Parse(SqlError::NotASelect)
        );
        assert_eq!(
            refused("SELECT 1; DROP TABLE public.results"),
            SqlRejection::Parse(SqlError::StatementCount(2))
        );
        assert_eq!(
            refused("SELECT usename FROM pg_catalog.pg_user"),
            SqlRejection::UnknownTable("pg_catalog.pg_user".into())
        );
        assert_eq!(
            refused("SELECT temperature FROM public.races"),
            SqlRejection::UnknownColumn("temperature".into())
        );
        assert_eq!(
            refused("SELECT * FROM public.races"),
            SqlRejection::Wildcard
        );
        assert_eq!(
            refused("SELECT year FROM public.races UNION SELECT year FROM public.seasons"),
            SqlRejection::NotPlainSelect
        );
    }

    #[test]
    fn names_the_statement_defines_are_its_own() {
        let checked = check(
            &f1(),
            Dialect::Postgres,
            "WITH w AS (SELECT driver_id, COUNT(*) AS n FROM results WHERE position = 1 GROUP BY driver_id) \
             SELECT w.driver_id, w.n FROM w ORDER BY n DESC",
        )
        .unwrap();
        assert_eq!(checked.columns, ["driver_id", "n"]);
        assert_eq!(checked.objects, ["public.results"]);
    }
}
