//! Imports from other semantic layers, finished where the compiler is: a
//! dbt saved query (metrics grouped by dimensions) becomes a verified
//! question whose SQL is what Cassis compiles for it, so that publishing
//! checks the planner still answers it that way.

use crate::engine::compile::compile;
use crate::engine::plan::{AttributeRef, Measure, SemanticPlan};
use crate::ontology::import::{Grain, ImportWarning, Imported};
use crate::ontology::VerifiedQuestion;
use crate::project::Dialect;

/// Compiles `imported`'s saved queries into verified questions in
/// `dialect`; one that does not compile is a warning instead.
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
            dimensions: query
                .group_by
                .iter()
                .map(|g| {
                    let by = AttributeRef::new(&g.object, &g.attribute);
                    match g.grain {
                        Some(Grain::Year) => by.by_year(),
                        Some(Grain::Month) => by.by_month(),
                        None => by,
                    }
                })
                .collect(),
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
