//! An ontology expression may read another object's attribute by naming it
//! `object.attribute`: a race result's `days_between(driver.date_of_birth,
//! race.race_date)` is the driver's age on the day of the race. The
//! compiler joins the objects named and writes each reference out as that
//! attribute's own SQL. Validation refuses longer qualified names and
//! queries inside an expression, which could read outside the ontology.

use sqlparser::ast::{Expr, InTarget, visit_expressions};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;
use std::ops::ControlFlow;

/// One `object.attribute` an expression names, lower-cased as the
/// ontology's names are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub object: String,
    pub attribute: String,
}

/// The references `expr` makes, in the order written, once each. Only
/// two-part names are references: a three-part name (`schema.table.col`)
/// is not, and validation refuses it.
pub fn references(expr: &Expr) -> Vec<Reference> {
    let mut found: Vec<Reference> = Vec::new();
    let _ = visit_expressions(expr, |e| {
        if let Expr::CompoundIdentifier(parts) = e
            && let [object, attribute] = parts.as_slice()
        {
            let reference = Reference {
                object: object.value.to_lowercase(),
                attribute: attribute.value.to_lowercase(),
            };
            if !found.contains(&reference) {
                found.push(reference);
            }
        }
        ControlFlow::<()>::Continue(())
    });
    found
}

/// The references an ontology expression's text makes, read in any
/// dialect's quoting; none where it does not parse (validation reports
/// that).
pub fn references_in(text: &str) -> Vec<Reference> {
    // Most expressions name no other object: no need to parse them.
    if !text.contains('.') {
        return Vec::new();
    }
    parse_in_any_dialect(text)
        .map(|expr| references(&expr))
        .unwrap_or_default()
}

/// An ontology expression parsed where the data source's dialect is not
/// known (the planner's reading of it): any dialect's quoting is read.
pub fn parse_in_any_dialect(text: &str) -> Option<Expr> {
    Parser::new(&GenericDialect {})
        .try_with_sql(text)
        .and_then(|mut parser| parser.parse_expr())
        .ok()
}

/// Whether `expr` holds a query of its own (`(SELECT …)`, `EXISTS`, `IN
/// (SELECT …)`), which could read tables outside the ontology.
pub fn has_subquery(expr: &Expr) -> bool {
    visit_expressions(expr, |e| {
        if matches!(
            e,
            Expr::Subquery(_)
                | Expr::Exists { .. }
                | Expr::In {
                    target: InTarget::Subquery(_),
                    ..
                }
        ) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// The first name in `expr` with more than two parts (`schema.table.col`),
/// which no ontology expression may use.
pub fn longer_name(expr: &Expr) -> Option<String> {
    let flow = visit_expressions(expr, |e| match e {
        Expr::CompoundIdentifier(parts) if parts.len() > 2 => ControlFlow::Break(
            parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join("."),
        ),
        _ => ControlFlow::Continue(()),
    });
    match flow {
        ControlFlow::Break(name) => Some(name),
        ControlFlow::Continue(()) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Dialect;
    use crate::sql::parse_expression;

    fn of(text: &str) -> Vec<(String, String)> {
        let expr = parse_expression(Dialect::Postgres, text).unwrap();
        references(&expr)
            .into_iter()
            .map(|r| (r.object, r.attribute))
            .collect()
    }

    #[test]
    fn names_each_other_objects_attribute_once() {
        assert_eq!(
            of(
                "days_between(driver.date_of_birth, Race.race_date) / 365.25 + driver.date_of_birth"
            ),
            vec![
                ("driver".to_owned(), "date_of_birth".to_owned()),
                ("race".to_owned(), "race_date".to_owned()),
            ]
        );
        assert!(of("price * (1 - discount)").is_empty());
        assert!(of("a.b.c").is_empty());
        assert_eq!(references_in("`driver`.dob - 1.5").len(), 1);
        assert!(references_in("price * 1.5").is_empty());
        let long = parse_expression(Dialect::Postgres, "x + pg_catalog.pg_user.passwd").unwrap();
        assert_eq!(
            longer_name(&long).as_deref(),
            Some("pg_catalog.pg_user.passwd")
        );
    }
}
