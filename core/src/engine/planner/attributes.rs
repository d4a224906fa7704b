//! Which attribute a phrase means when several could: the nearest to what
//! is measured, a person's name, a finishing position.

use super::labels::plural;
use crate::engine::compile::display_attribute;
use crate::engine::grammar;
use crate::engine::graph;
use crate::engine::plan::{AttributeRef, Condition, Literal, Measure, SemanticPlan};
use crate::ontology::{Attribute, AttributeRole, DataType, Object, Ontology};

/// The candidate that joins to `base` in the fewest steps without fanning out.
pub(super) fn nearest(
    ontology: &Ontology,
    base: Option<&str>,
    candidates: &[AttributeRef],
) -> AttributeRef {
    let cost = |c: &AttributeRef| match base {
        Some(base) => match graph::join_tree(ontology, base, &[c.object.as_str()]) {
            Ok(tree) if !tree.fans_out() => tree.steps.len(),
            Ok(tree) => 100 + tree.steps.len(),
            Err(_) => 1000,
        },
        None => 0,
    };
    candidates
        .iter()
        .enumerate()
        .min_by_key(|(i, c)| (cost(c), *i))
        .map(|(_, c)| c.clone())
        .expect("a grouping phrase has at least one candidate")
}

pub(super) fn push_unique(list: &mut Vec<AttributeRef>, item: AttributeRef) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// The object a plan's first measure aggregates.
pub fn base_object(ontology: &Ontology, plan: &SemanticPlan) -> Option<String> {
    measured_object(ontology, plan.measures.first()?)
}

/// The object `measure` aggregates.
pub fn measured_object(ontology: &Ontology, measure: &Measure) -> Option<String> {
    match measure {
        Measure::Metric { metric, .. } | Measure::DistinctOf { metric, .. } => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric)
            .map(|m| m.object.clone()),
        Measure::CountOf { object } => Some(object.clone()),
        Measure::Aggregate { attribute, .. } => Some(attribute.object.clone()),
        Measure::AveragePer { of: part, .. }
        | Measure::CountPassing { of: part, .. }
        | Measure::Share { part, .. }
        | Measure::Difference { of: part, .. }
        | Measure::Growth { of: part, .. }
        | Measure::Cumulative { of: part, .. } => measured_object(ontology, part),
    }
}

/// The name of the person "who" asks about: a mentioned object, else one that
/// reads like a person, joined to the measured object without fanning out;
/// where no person is, the one body of people (a team) so joined.
pub(super) fn person_attribute(
    ontology: &Ontology,
    base: &str,
    mentioned: &[usize],
) -> Option<AttributeRef> {
    let paths = graph::Paths::from(ontology, base);
    let reachable = |object: &str| paths.distance(object).is_some_and(|(_, fans)| !fans);
    let candidates = mentioned
        .iter()
        .map(|o| &ontology.objects[*o])
        .filter(|o| is_person(o) && reachable(&o.name))
        .chain(
            ontology
                .objects
                .iter()
                .filter(|o| is_person(o) && reachable(&o.name)),
        );
    for object in candidates {
        if let Some(a) = display_attribute(object) {
            return Some(AttributeRef::new(&object.name, a));
        }
    }
    // "who won the 2008 constructors' championship": a team, where no
    // person is in reach.
    let mut bodies = ontology
        .objects
        .iter()
        .filter(|o| is_organisation(o) && reachable(&o.name));
    match (bodies.next(), bodies.next()) {
        (Some(body), None) => display_attribute(body).map(|a| AttributeRef::new(&body.name, a)),
        _ => None,
    }
}

/// The attribute an object's rows are shown by (its display attribute).
pub(super) fn display_of(ontology: &Ontology, object: &str) -> Option<AttributeRef> {
    let object = ontology.objects.iter().find(|o| o.name == object)?;
    display_attribute(object).map(|a| AttributeRef::new(&object.name, a))
}

/// Whether `reference` is the attribute its object's rows are shown by.
pub(super) fn is_display(ontology: &Ontology, reference: &AttributeRef) -> bool {
    display_of(ontology, &reference.object).as_ref() == Some(reference)
}

/// An attribute that names its rows: the display attribute, or one whose
/// name or label says "name" (a first or last name).
pub(crate) fn is_a_name(ontology: &Ontology, reference: &AttributeRef) -> bool {
    let Some(object) = ontology.objects.iter().find(|o| o.name == reference.object) else {
        return false;
    };
    is_display(ontology, reference)
        || object
            .attributes
            .iter()
            .find(|a| a.name == reference.attribute)
            .is_some_and(|a| {
                format!("{} {}", a.name, a.label)
                    .to_lowercase()
                    .contains("name")
            })
}

/// Whether an object's rows are people ("driver", "customer"), by its names
/// only: a result's description ("one driver's result") mentions a person
/// without being one.
pub(super) fn is_person(o: &crate::ontology::Object) -> bool {
    let words = format!("{} {} {}", o.name, o.label, o.synonyms.join(" ")).to_lowercase();
    grammar::PERSON_WORDS.iter().any(|p| {
        words
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == *p || w == plural(p))
    })
}

/// Whether an object's rows are bodies of people ("constructor", a "team"),
/// by a whole name: a constructor's standing is not one.
fn is_organisation(o: &crate::ontology::Object) -> bool {
    std::iter::once(o.name.as_str())
        .chain(std::iter::once(o.label.as_str()))
        .chain(o.synonyms.iter().map(String::as_str))
        .any(|name| {
            let name = name.to_lowercase();
            grammar::ORGANISATION_WORDS
                .iter()
                .any(|w| name == *w || name == plural(w))
        })
}

/// The finishing position "second" or "P3" filters on: an attribute named
/// or called position of the measured or mentioned object, else of the
/// first object that has one.
/// "his second pit stop": the whole number a thing is named by (a pit
/// stop's `stop`), which numbers the things in turn.
pub(super) fn own_number(ontology: &Ontology, o: usize) -> Option<AttributeRef> {
    let object = &ontology.objects[o];
    object
        .attributes
        .iter()
        .find(|a| {
            a.data_type == DataType::Integer
                && a.role == AttributeRole::Dimension
                && (a.name == object.name || object.synonyms.contains(&a.name))
        })
        .map(|a| AttributeRef::new(&object.name, &a.name))
}

pub(super) fn position_attribute(
    ontology: &Ontology,
    base: Option<&str>,
    mentioned: &[usize],
) -> Option<AttributeRef> {
    let position_of = |object: &crate::ontology::Object| {
        let integer = |a: &&crate::ontology::Attribute| {
            a.data_type == DataType::Integer && a.role != AttributeRole::Identifier
        };
        object
            .attributes
            .iter()
            .filter(integer)
            .find(|a| a.name == "position")
            .or_else(|| {
                object.attributes.iter().filter(integer).find(|a| {
                    a.synonyms
                        .iter()
                        .any(|s| s == "position" || s == "finishing position")
                })
            })
            .map(|a| AttributeRef::new(&object.name, &a.name))
    };
    let preferred = base
        .into_iter()
        .map(str::to_owned)
        .chain(mentioned.iter().map(|o| ontology.objects[*o].name.clone()));
    for name in preferred {
        if let Some(found) = ontology
            .objects
            .iter()
            .find(|o| o.name == name)
            .and_then(position_of)
        {
            return Some(found);
        }
    }
    ontology.objects.iter().find_map(position_of)
}

/// The year a thing has of its own (a race's season), whose name may then
/// recur from one year to the next.
pub(super) fn own_year(object: &Object) -> Option<&Attribute> {
    object
        .attributes
        .iter()
        .find(|a| a.role == AttributeRole::Time && a.data_type == DataType::Integer)
}

/// The day a thing happened on (a race's date, an order's date), never a
/// birth date.
pub(super) fn own_date(object: &Object) -> Option<&Attribute> {
    object.attributes.iter().find(|a| {
        a.role == AttributeRole::Time
            && a.data_type == DataType::Date
            && !super::time::is_birth_date(a)
    })
}

/// When a person was born: what "oldest first" orders people by.
pub(super) fn birth_date(object: &Object) -> Option<&Attribute> {
    object
        .attributes
        .iter()
        .find(|a| a.role == AttributeRole::Time && super::time::is_birth_date(a))
}

/// "Which races did Vettel win": a race's name recurs every season, so a
/// thing named by text that also has a year of its own is shown with that
/// year ("Singapore Grand Prix, 2019"); where the plan keeps to one year,
/// with its date instead.
pub(super) fn qualify_by_year(ontology: &Ontology, plan: &mut SemanticPlan) {
    let mut years = Vec::new();
    for dimension in &plan.dimensions {
        let Some(object) = ontology.objects.iter().find(|o| o.name == dimension.object) else {
            continue;
        };
        let named = dimension.bucket.is_none()
            && display_attribute(object) == Some(dimension.attribute.as_str())
            && object
                .attributes
                .iter()
                .any(|a| a.name == dimension.attribute && a.data_type == DataType::Text);
        let Some(year) = own_year(object) else {
            continue;
        };
        let year = AttributeRef::new(&object.name, &year.name);
        // "Which races were held in July 2018": within one year, the day
        // each was on tells them apart better than a year they all share.
        let date = own_date(object).map(|a| AttributeRef::new(&object.name, &a.name));
        // "in 2022", on the year or on the date ("races in 2022 with their
        // dates").
        let one_year = plan.filters.iter().any(|f| {
            f.attribute.object == year.object
                && (f.attribute.attribute == year.attribute
                    && matches!(&f.condition, Condition::OneOf(list) if list.len() == 1)
                    || date.as_ref().is_some_and(|d| *d == f.attribute) && f.is_one_number()
                    || matches!(&f.condition, Condition::Between(Literal::Text(first), Literal::Text(last))
                        if first.get(..4).is_some_and(|y| last.starts_with(y))))
        });
        // Across years, both: the year reads at a glance, the day tells
        // the year's races apart.
        let shown = match (one_year, date) {
            (false, date) => [Some(year), date],
            (true, date) => [date, None],
        };
        for shown in shown.into_iter().flatten() {
            if named && !plan.dimensions.contains(&shown) && !years.contains(&shown) {
                years.push(shown);
            }
        }
    }
    // After the others: what the plan orders by or reads as "latest" stays first.
    plan.dimensions.extend(years);
}

/// The event an age attribute is taken at, as the answer names it beside
/// the age: its name, its date and its year ("Spanish Grand Prix",
/// 2016-05-15, 2016 for a race result's `driver_age`).
pub(super) fn event_of_age(ontology: &Ontology, age: &AttributeRef) -> Vec<AttributeRef> {
    let Some(text) = ontology
        .attribute(&age.object, &age.attribute)
        .and_then(|a| a.expr.as_deref())
    else {
        return Vec::new();
    };
    let Some((event, date)) = crate::sql::reference::references_in(text)
        .into_iter()
        .find_map(|r| {
            let object = ontology.objects.iter().find(|o| o.name == r.object)?;
            let date = own_date(object).filter(|d| d.name == r.attribute)?;
            Some((object, date))
        })
    else {
        return Vec::new();
    };
    display_attribute(event)
        .into_iter()
        .chain(Some(date.name.as_str()))
        .chain(own_year(event).map(|y| y.name.as_str()))
        .map(|a| AttributeRef::new(&event.name, a))
        .collect()
}

/// The person's date of birth an attribute of some rows reads, where the
/// attribute is that person's age at the row's event (a race result's
/// `days_between(driver.date_of_birth, race.race_date) / 365.25`).
pub(super) fn age_of(ontology: &Ontology, attribute: &Attribute) -> Option<AttributeRef> {
    let text = attribute.expr.as_deref()?;
    crate::sql::reference::references_in(text)
        .into_iter()
        .find(|r| {
            ontology
                .objects
                .iter()
                .find(|o| o.name == r.object)
                .filter(|o| is_person(o))
                .and_then(|o| o.attributes.iter().find(|a| a.name == r.attribute))
                .is_some_and(super::time::is_birth_date)
        })
        .map(|r| AttributeRef::new(&r.object, &r.attribute))
}
