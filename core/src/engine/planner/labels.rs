//! How plans name things to people: labels of metrics, attributes and
//! objects, and plurals.

use crate::engine::compile::display_attribute;
use crate::engine::plan::{AttributeRef, Measure};
use crate::ontology::{Aggregate, Ontology};

pub(super) fn label_of(label: &str, name: &str) -> String {
    if label.is_empty() {
        let spaced = name.replace('_', " ");
        let mut chars = spaced.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
            .unwrap_or_default()
    } else {
        label.to_owned()
    }
}

pub fn measure_label(ontology: &Ontology, measure: &Measure) -> String {
    match measure {
        Measure::Metric { metric, .. } => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric)
            .map(|m| label_of(&m.label, &m.name))
            .unwrap_or_else(|| metric.clone()),
        Measure::CountOf { object } => ontology
            .objects
            .iter()
            .find(|o| o.name == *object)
            .map(|o| {
                format!(
                    "Number of {}",
                    plural(&label_of(&o.label, &o.name).to_lowercase())
                )
            })
            .unwrap_or_else(|| object.clone()),
        Measure::AveragePer { of, per } => {
            // Per the thing a name shows ("per order", whose status shows
            // it), not per the shown attribute.
            let per = ontology
                .objects
                .iter()
                .find(|o| o.name == per.object)
                .filter(|o| display_attribute(o) == Some(per.attribute.as_str()))
                .map(|o| label_of(&o.label, &o.name))
                .unwrap_or_else(|| attribute_label(ontology, per));
            format!(
                "Average {} per {}",
                measure_label(ontology, of).to_lowercase(),
                per.to_lowercase()
            )
        }
        Measure::CountPassing { of, per, condition } => {
            let things = ontology
                .objects
                .iter()
                .find(|o| o.name == per.object)
                .map_or_else(
                    || attribute_label(ontology, per),
                    |o| label_of(&o.label, &o.name),
                );
            let bound = condition
                .bound_words()
                .map_or_else(|| "a total of".to_owned(), |(how, n)| format!("{how} {n}"));
            let of = measure_label(ontology, of).to_lowercase();
            format!(
                "Number of {} with {bound} {}",
                plural(&things.to_lowercase()),
                of.strip_prefix("number of ").unwrap_or(&of)
            )
        }
        Measure::Difference { of, .. } => measure_label(ontology, of),
        Measure::Growth { of, .. } => format!("{} growth", measure_label(ontology, of)),
        Measure::Cumulative {
            of,
            window: Some(window),
            ..
        } => format!(
            "{} over {window} periods to date",
            measure_label(ontology, of)
        ),
        Measure::Cumulative {
            of, to_date: None, ..
        } => {
            format!(
                "Running total of {}",
                measure_label(ontology, of).to_lowercase()
            )
        }
        Measure::Cumulative {
            of,
            to_date: Some(grain),
            ..
        } => format!(
            "{} {} to date",
            measure_label(ontology, of),
            grain.name().replace('_', " ")
        ),
        // Each group's part of them all: "Share of total revenue".
        Measure::Share { part, whole, only } if part == whole && only.is_empty() => format!(
            "Share of total {}",
            measure_label(ontology, part).to_lowercase()
        ),
        Measure::Share { part, whole, .. } => format!(
            "{} as a percentage of {}",
            measure_label(ontology, part),
            measure_label(ontology, whole).to_lowercase()
        ),
        Measure::DistinctOf { object, metric } => {
            let things = ontology
                .objects
                .iter()
                .find(|o| o.name == *object)
                .map(|o| plural(&label_of(&o.label, &o.name).to_lowercase()))
                .unwrap_or_else(|| object.clone());
            let measured = measure_label(
                ontology,
                &Measure::Metric {
                    metric: metric.clone(),
                    variant: None,
                },
            )
            .to_lowercase();
            format!("Number of {things} with {measured}")
        }
        Measure::Aggregate {
            attribute,
            aggregate,
        } => {
            let label = attribute_label(ontology, attribute).to_lowercase();
            match aggregate {
                Aggregate::Avg => format!("Average {label}"),
                // "order total" is a total already.
                Aggregate::Sum if label.split(' ').any(|w| w == "total") => {
                    crate::engine::text::capitalised(&label)
                }
                Aggregate::Sum => format!("Total {label}"),
                Aggregate::Min => format!("Lowest {label}"),
                Aggregate::Max => format!("Highest {label}"),
                Aggregate::Count => format!("Number of {label}"),
                Aggregate::CountDistinct => format!("Number of different {}", plural(&label)),
            }
        }
    }
}

pub fn attribute_label(ontology: &Ontology, reference: &AttributeRef) -> String {
    ontology
        .objects
        .iter()
        .find(|o| o.name == reference.object)
        .and_then(|o| o.attributes.iter().find(|a| a.name == reference.attribute))
        .map(|a| label_of(&a.label, &a.name))
        .unwrap_or_else(|| reference.attribute.clone())
}

pub(super) fn describe_variant(variant: &crate::ontology::MetricVariant) -> String {
    if variant.description.is_empty() {
        variant.name.replace('_', " ")
    } else {
        let d = variant.description.trim_end_matches('.');
        let mut chars = d.chars();
        chars
            .next()
            .map(|c| c.to_lowercase().collect::<String>() + chars.as_str())
            .unwrap_or_default()
    }
}

pub fn plural(word: &str) -> String {
    if word.ends_with('s') {
        word.to_owned()
    } else if let Some(stem) = word.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{word}s")
    }
}
