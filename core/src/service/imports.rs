//! Imports from other semantic layers, finished where the compiler is: a
//! dbt saved query (metrics grouped by dimensions) becomes a verified
//! question whose SQL is what Cassis compiles for it, so that publishing
//! checks the planner still answers it that way.

use crate::engine::compile::compile;
use crate::engine::plan::{AttributeRef, Condition, Filter, Literal, Measure, SemanticPlan};
use crate::ontology::VerifiedQuestion;
use crate::ontology::import::dbt::{ProjectFile, from_dbt};
use crate::ontology::import::{
    self, Comparison, Format, Grain, GroupBy, ImportError, ImportWarning, Imported, cortex,
};
use crate::project::Dialect;

/// A saved query's dimension as a plan reads it: a date at its grain.
fn attribute(g: &GroupBy) -> AttributeRef {
    let by = AttributeRef::new(&g.object, &g.attribute);
    match g.grain {
        Some(Grain::Year) => by.by_year(),
        Some(Grain::Month) => by.by_month(),
        None => by,
    }
}

/// A saved query's condition as a plan's filter.
fn filter(saved: &import::SavedFilter) -> Filter {
    let value = |l: &import::Literal| match l {
        import::Literal::Integer(n) => Literal::Integer(*n),
        import::Literal::Text(t) => Literal::Text(t.clone()),
    };
    let values = |ls: &[import::Literal]| ls.iter().map(value).collect();
    Filter {
        attribute: attribute(&saved.on),
        condition: match &saved.comparison {
            Comparison::OneOf(ls) => Condition::OneOf(values(ls)),
            Comparison::NoneOf(ls) => Condition::NoneOf(values(ls)),
            Comparison::AtLeast(l) => Condition::AtLeast(value(l)),
            Comparison::AtMost(l) => Condition::AtMost(value(l)),
            Comparison::Above(l) => Condition::After(value(l)),
            Comparison::Below(l) => Condition::Before(value(l)),
            Comparison::Between(low, high) => Condition::Between(value(low), value(high)),
            Comparison::Missing => Condition::Missing,
        },
    }
}

/// Compiles `imported`'s saved queries into verified questions in
/// `dialect`, their `where` applied; one that does not compile is a
/// warning instead.
pub fn verify_saved_queries(imported: &mut Imported, dialect: Dialect) {
    for query in std::mem::take(&mut imported.saved_queries) {
        let plan = SemanticPlan {
            measures: query
                .metrics
                .iter()
                .map(|metric| Measure::Metric {
                    metric: metric.clone(),
                    variant: None,
                })
                .collect(),
            dimensions: query.group_by.iter().map(attribute).collect(),
            filters: query.filters.iter().map(filter).collect(),
            ..SemanticPlan::default()
        };
        match compile(&imported.ontology, &plan, dialect) {
            Ok(compiled) => imported.ontology.verified_questions.push(VerifiedQuestion {
                question: query.question,
                sql: compiled.sql,
                description: query.description,
            }),
            Err(error) => imported.warnings.push(ImportWarning {
                file: query.file,
                line: query.line,
                item: format!("saved_queries.{}", query.name),
                message: format!("Cassis cannot compile it ({error}); not imported"),
            }),
        }
    }
}

/// Files chosen to import, told apart by their content: `None` for one
/// Cassis ontology (read as it is), else the draft they convert to, with
/// saved queries compiled in `dialect`. Several files are a dbt project's.
pub fn convert_files(
    files: &[ProjectFile],
    dialect: Dialect,
    max_bytes: usize,
) -> Result<Option<Imported>, ImportError> {
    let formats: Vec<Option<Format>> = files.iter().map(|f| Format::detect(&f.text)).collect();
    let names = || {
        files
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut imported = match formats.as_slice() {
        [Some(Format::Cassis)] => return Ok(None),
        [Some(Format::Snowflake)] => {
            let file = &files[0];
            cortex::from_cortex(&file.name, &file.text, dialect, max_bytes)?
        }
        many if many.contains(&Some(Format::Dbt))
            && many.iter().all(|f| f != &Some(Format::Snowflake)) =>
        {
            from_dbt(files, max_bytes)?
        }
        _ => return Err(ImportError::Unrecognized(names())),
    };
    verify_saved_queries(&mut imported, dialect);
    Ok(Some(imported))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_told_apart_by_their_content() {
        let max = crate::ontology::DEFAULT_MAX_YAML_BYTES;
        let cassis = include_str!("../../../examples/wholesale/ontology.yaml");
        assert!(
            convert_files(&[ProjectFile::new("o.yaml", cassis)], Dialect::Sqlite, max)
                .unwrap()
                .is_none()
        );
        let cortex_model = include_str!("../../../examples/wholesale/cortex.yaml");
        let read = convert_files(
            &[ProjectFile::new("c.yaml", cortex_model)],
            Dialect::Sqlite,
            max,
        )
        .unwrap()
        .unwrap();
        assert!(
            read.ontology
                .metrics
                .iter()
                .any(|m| m.name == "average_revenue_per_order")
        );
        let dbt = [
            include_str!("../../../examples/wholesale/dbt/models/semantic/orders.yml"),
            include_str!("../../../examples/wholesale/dbt/models/semantic/customers.yml"),
            include_str!("../../../examples/wholesale/dbt/models/semantic/geography.yml"),
            include_str!("../../../examples/wholesale/dbt/models/semantic/line_items.yml"),
            include_str!("../../../examples/wholesale/dbt/models/semantic/metrics.yml"),
            include_str!("../../../examples/wholesale/dbt/models/semantic/saved_queries.yml"),
        ];
        let files: Vec<ProjectFile> = dbt
            .iter()
            .enumerate()
            .map(|(i, t)| ProjectFile::new(&format!("{i}.yml"), t))
            .collect();
        let read = convert_files(&files, Dialect::Sqlite, max)
            .unwrap()
            .unwrap();
        // Saved queries compiled into verified questions.
        let questions: Vec<&str> = read
            .ontology
            .verified_questions
            .iter()
            .map(|q| q.question.as_str())
            .collect();
        assert_eq!(
            questions,
            [
                "How many orders were placed each year?",
                "What is revenue by region?",
                "What was the revenue of line items shipped in 1995?"
            ]
        );
        // The saved query's `where`, applied.
        let shipped = &read.ontology.verified_questions[2].sql;
        for condition in [
            "li.l_shipdate >= '1995-01-01'",
            "li.l_shipdate < '1996-01-01'",
        ] {
            assert!(shipped.contains(condition), "{condition} in {shipped}");
        }
        // A condition on another object's dimension joins it.
        let mut with_urgent = files;
        with_urgent.push(ProjectFile::new(
            "urgent.yml",
            "saved_queries:\n  - name: urgent_revenue\n    query_params:\n      metrics: [revenue]\n      where: \"{{ Dimension('order__order_priority') }} = '1-URGENT'\"\n",
        ));
        let read_urgent = convert_files(&with_urgent, Dialect::Sqlite, max)
            .unwrap()
            .unwrap();
        let urgent = &read_urgent.ontology.verified_questions[3].sql;
        assert!(
            urgent.contains("JOIN orders o") && urgent.contains("o.o_orderpriority = '1-URGENT'"),
            "{urgent}"
        );
        assert!(
            read.ontology.verified_questions[1]
                .sql
                .contains("JOIN region r"),
            "{}",
            read.ontology.verified_questions[1].sql
        );
        assert!(
            read.warnings
                .iter()
                .any(|w| w.item == "metrics.revenue_growth_yoy")
        );
        let error = convert_files(
            &[ProjectFile::new("a.yaml", "hello: world\n")],
            Dialect::Sqlite,
            max,
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("a.yaml: neither a Cassis ontology"),
            "{error}"
        );
    }
}
