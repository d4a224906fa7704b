//! The model as the tree and the detail panel show it: plain data computed
//! from the draft, so it renders the same on the server and in the browser.

use cassis_core::ontology::{MetricKind, Ontology};

/// One line of the tree: a section heading (empty path) or an element.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub path: String,
    pub label: String,
    pub hint: String,
    pub depth: u8,
    /// Lowercase name, label and synonyms, for the search box.
    pub search: String,
}

/// The entries a search shows: those that match, the objects of matching
/// attributes, and the headings of sections with anything shown.
pub fn matching(all: &[Entry], query: &str) -> Vec<Entry> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return all.to_vec();
    }
    let hits: Vec<bool> = all
        .iter()
        .map(|e| !e.path.is_empty() && e.search.contains(&query))
        .collect();
    let mut shown = hits.clone();
    // An attribute shown brings its object; an object or item brings its heading.
    for i in (0..all.len()).rev() {
        if !shown[i] || all[i].path.is_empty() {
            continue;
        }
        let depth = all[i].depth;
        if let Some(parent) = (0..i).rev().find(|&j| {
            let e = &all[j];
            if depth > 0 {
                e.depth < depth
            } else {
                e.path.is_empty()
            }
        }) {
            shown[parent] = true;
        }
    }
    all.iter()
        .zip(shown)
        .filter(|(_, shown)| *shown)
        .map(|(e, _)| e.clone())
        .collect()
}

fn heading(label: &str) -> Entry {
    Entry {
        path: String::new(),
        label: label.to_owned(),
        hint: String::new(),
        depth: 0,
        search: String::new(),
    }
}

fn searchable(parts: &[&str], synonyms: &[String]) -> String {
    parts
        .iter()
        .copied()
        .chain(synonyms.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

pub fn entries(ontology: &Ontology) -> Vec<Entry> {
    let mut all = vec![heading("Objects")];
    for object in &ontology.objects {
        let path = format!("objects.{}", object.name);
        all.push(Entry {
            label: object.name.clone(),
            hint: object.table.clone(),
            depth: 0,
            search: searchable(
                &[&object.name, &object.label, &object.table],
                &object.synonyms,
            ),
            path: path.clone(),
        });
        for attribute in &object.attributes {
            all.push(Entry {
                path: format!("{path}.attributes.{}", attribute.name),
                label: attribute.name.clone(),
                hint: format!("{:?}", attribute.data_type).to_lowercase(),
                depth: 1,
                search: searchable(&[&attribute.name, &attribute.label], &attribute.synonyms),
            });
        }
    }
    let sections: [(&str, Vec<Entry>); 5] = [
        (
            "Relationships",
            ontology
                .relationships
                .iter()
                .map(|r| Entry {
                    path: format!("relationships.{}", r.name),
                    label: r.name.clone(),
                    hint: format!("{} → {}", r.from, r.to),
                    depth: 0,
                    search: searchable(&[&r.name, &r.from, &r.to], &r.synonyms),
                })
                .collect(),
        ),
        (
            "Peers",
            ontology
                .peers
                .iter()
                .map(|p| Entry {
                    path: format!("peers.{}", p.name),
                    label: p.name.clone(),
                    hint: format!("{} through {}", p.of, p.through),
                    depth: 0,
                    search: searchable(&[&p.name, &p.of, &p.through], &p.synonyms),
                })
                .collect(),
        ),
        (
            "Metrics",
            ontology
                .metrics
                .iter()
                .map(|m| Entry {
                    path: format!("metrics.{}", m.name),
                    label: m.name.clone(),
                    hint: m.object.clone(),
                    depth: 0,
                    search: searchable(&[&m.name, &m.label, &m.object], &m.synonyms),
                })
                .collect(),
        ),
        (
            "Business rules",
            ontology
                .rules
                .iter()
                .map(|r| Entry {
                    path: format!("rules.{}", r.name),
                    label: r.name.clone(),
                    hint: String::new(),
                    depth: 0,
                    search: searchable(&[&r.name, &r.text], &r.synonyms),
                })
                .collect(),
        ),
        (
            "Verified questions",
            ontology
                .verified_questions
                .iter()
                .enumerate()
                .map(|(i, v)| Entry {
                    path: format!("verified_questions[{i}]"),
                    label: v.question.clone(),
                    hint: String::new(),
                    depth: 0,
                    search: v.question.to_lowercase(),
                })
                .collect(),
        ),
    ];
    for (title, items) in sections {
        if !items.is_empty() {
            all.push(heading(title));
            all.extend(items);
        }
    }
    all
}

/// An element as the detail panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementView {
    pub path: String,
    pub kind: &'static str,
    pub title: String,
    pub facts: Vec<(&'static str, String)>,
    /// `None` for elements without synonyms (verified questions).
    pub synonyms: Option<Vec<String>>,
    /// The editable label; `None` for elements without one.
    pub label: Option<String>,
    /// The editable description (a rule's text).
    pub description: String,
}

fn nonempty(facts: &mut Vec<(&'static str, String)>, label: &'static str, value: &str) {
    if !value.trim().is_empty() {
        facts.push((label, value.to_owned()));
    }
}

pub fn describe(ontology: &Ontology, path: &str) -> Option<ElementView> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut facts = Vec::new();
    let view = |kind,
                title: &str,
                facts,
                synonyms: Option<&Vec<String>>,
                (label, description): (Option<&String>, &String)| ElementView {
        path: path.to_owned(),
        kind,
        title: title.to_owned(),
        facts,
        synonyms: synonyms.cloned(),
        label: label.cloned(),
        description: description.clone(),
    };
    match parts.as_slice() {
        ["objects", name] => {
            let o = ontology.objects.iter().find(|o| o.name == *name)?;
            nonempty(&mut facts, "Label", &o.label);
            nonempty(&mut facts, "Table", &o.table);
            nonempty(&mut facts, "Primary key", &o.primary_key.join(", "));
            nonempty(&mut facts, "Description", &o.description);
            facts.push(("Attributes", o.attributes.len().to_string()));
            Some(view(
                "Object",
                &o.name,
                facts,
                Some(&o.synonyms),
                (Some(&o.label), &o.description),
            ))
        }
        ["objects", object, "attributes", name] => {
            let o = ontology.objects.iter().find(|o| o.name == *object)?;
            let a = o.attributes.iter().find(|a| a.name == *name)?;
            nonempty(&mut facts, "Label", &a.label);
            nonempty(
                &mut facts,
                "Column",
                a.column.as_deref().unwrap_or_default(),
            );
            nonempty(
                &mut facts,
                "Expression",
                a.expr.as_deref().unwrap_or_default(),
            );
            facts.push(("Type", format!("{:?}", a.data_type).to_lowercase()));
            facts.push(("Role", format!("{:?}", a.role).to_lowercase()));
            nonempty(&mut facts, "Description", &a.description);
            nonempty(&mut facts, "Known values", &a.known_values.join(", "));
            Some(view(
                "Attribute",
                &format!("{object}.{name}"),
                facts,
                Some(&a.synonyms),
                (Some(&a.label), &a.description),
            ))
        }
        ["relationships", name] => {
            let r = ontology.relationships.iter().find(|r| r.name == *name)?;
            facts.push(("Joins", format!("{} → {}", r.from, r.to)));
            facts.push((
                "On",
                r.keys
                    .iter()
                    .map(|k| format!("{} = {}", k.from, k.to))
                    .collect::<Vec<_>>()
                    .join(" and "),
            ));
            facts.push(("Cardinality", format!("{:?}", r.cardinality).to_lowercase()));
            nonempty(&mut facts, "Description", &r.description);
            Some(view(
                "Relationship",
                &r.name,
                facts,
                Some(&r.synonyms),
                (None, &r.description),
            ))
        }
        ["peers", name] => {
            let p = ontology.peers.iter().find(|p| p.name == *name)?;
            facts.push(("Of", p.of.clone()));
            facts.push(("Paired by", p.through.clone()));
            facts.push(("Sharing", p.sharing.join(" and ")));
            nonempty(&mut facts, "Description", &p.description);
            Some(view(
                "Peer",
                &p.name,
                facts,
                Some(&p.synonyms),
                (None, &p.description),
            ))
        }
        ["metrics", name] => {
            let m = ontology.metrics.iter().find(|m| m.name == *name)?;
            nonempty(&mut facts, "Label", &m.label);
            facts.push(("Object", m.object.clone()));
            let named = |name: &Option<String>| name.clone().unwrap_or_else(|| "?".to_owned());
            let computes = match m.kind {
                MetricKind::Simple => {
                    let aggregate =
                        format!("{:?}({})", m.aggregate, m.expr.as_deref().unwrap_or("*"))
                            .to_lowercase();
                    // A level is read at one time per period, not added up over time.
                    match &m.semi_additive {
                        None => aggregate,
                        Some(level) => {
                            let per = if level.per.is_empty() {
                                String::new()
                            } else {
                                format!(", each {}'s own", level.per.join(" and "))
                            };
                            format!(
                                "{aggregate} at the {} {} of each period{per}",
                                level.take.name(),
                                level.time
                            )
                        }
                    }
                }
                MetricKind::Ratio => format!("{} / {}", named(&m.numerator), named(&m.denominator)),
                MetricKind::Derived => named(&m.expr),
                MetricKind::Growth => format!(
                    "growth of {} from one {} to the next",
                    named(&m.of),
                    m.period.map_or("?", |p| p.name())
                ),
                MetricKind::Cumulative => match (m.to_date, m.window) {
                    (_, Some(periods)) => format!(
                        "rolling total of {} over the last {periods} periods",
                        named(&m.of)
                    ),
                    (Some(period), None) => format!(
                        "running total of {}, to date each {}",
                        named(&m.of),
                        period.name()
                    ),
                    (None, None) => format!("running total of {}", named(&m.of)),
                },
            };
            facts.push(("Computes", computes));
            nonempty(&mut facts, "Conditions", &m.filters.join(" and "));
            nonempty(
                &mut facts,
                "Variants",
                &m.variants
                    .iter()
                    .map(|v| {
                        if v.default {
                            format!("{} (default)", v.name)
                        } else {
                            v.name.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            nonempty(&mut facts, "Description", &m.description);
            Some(view(
                "Metric",
                &m.name,
                facts,
                Some(&m.synonyms),
                (Some(&m.label), &m.description),
            ))
        }
        ["rules", name] => {
            let r = ontology.rules.iter().find(|r| r.name == *name)?;
            facts.push(("Rule", r.text.clone()));
            Some(view(
                "Business rule",
                &r.name,
                facts,
                Some(&r.synonyms),
                (None, &r.text),
            ))
        }
        [question] if question.starts_with("verified_questions[") => {
            let index: usize = question
                .trim_start_matches("verified_questions[")
                .trim_end_matches(']')
                .parse()
                .ok()?;
            let v = ontology.verified_questions.get(index)?;
            facts.push(("SQL", v.sql.clone()));
            nonempty(&mut facts, "Description", &v.description);
            Some(view(
                "Verified question",
                &v.question,
                facts,
                None,
                (None, &v.description),
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cassis_core::ontology::{Attribute, Metric, Object};

    fn ontology() -> Ontology {
        let object = |name: &str, attributes: &[&str]| Object {
            name: name.to_owned(),
            table: format!("{name}s"),
            attributes: attributes
                .iter()
                .map(|a| Attribute {
                    name: (*a).to_owned(),
                    ..Attribute::default()
                })
                .collect(),
            ..Object::default()
        };
        Ontology {
            objects: vec![
                object("driver", &["full_name"]),
                object("result", &["driver_id", "points"]),
            ],
            metrics: vec![Metric {
                name: "wins".to_owned(),
                object: "result".to_owned(),
                ..Metric::default()
            }],
            ..Ontology::default()
        }
    }

    fn labels(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.label.as_str()).collect()
    }

    #[test]
    fn a_search_shows_matches_with_their_objects_and_headings() {
        let all = entries(&ontology());
        assert_eq!(
            labels(&matching(&all, "")),
            [
                "Objects",
                "driver",
                "full_name",
                "result",
                "driver_id",
                "points",
                "Metrics",
                "wins"
            ]
        );
        assert_eq!(
            labels(&matching(&all, "DRIVER")),
            ["Objects", "driver", "result", "driver_id"]
        );
        assert_eq!(labels(&matching(&all, "win")), ["Metrics", "wins"]);
        assert!(matching(&all, "constructor").is_empty());
    }

    #[test]
    fn elements_are_described_by_their_paths() {
        let ontology = ontology();
        let attribute = describe(&ontology, "objects.result.attributes.points").unwrap();
        assert_eq!(attribute.title, "result.points");
        assert_eq!(attribute.synonyms, Some(Vec::new()));
        assert_eq!(describe(&ontology, "metrics.wins").unwrap().kind, "Metric");
        assert!(describe(&ontology, "metrics.losses").is_none());
    }

    #[test]
    fn a_metric_says_what_it_computes_whatever_its_type() {
        use cassis_core::ontology::{Grain, MetricKind};
        let metric = |name: &str, kind, fill: fn(&mut Metric)| {
            let mut m = Metric {
                name: name.into(),
                object: "result".into(),
                kind,
                ..Metric::default()
            };
            fill(&mut m);
            m
        };
        let ontology = Ontology {
            metrics: vec![
                metric("win_rate", MetricKind::Ratio, |m| {
                    m.numerator = Some("wins".into());
                    m.denominator = Some("starts".into());
                }),
                metric("net", MetricKind::Derived, |m| {
                    m.expr = Some("wins - losses".into())
                }),
                metric("win_growth", MetricKind::Growth, |m| {
                    m.of = Some("wins".into());
                    m.period = Some(Grain::Year);
                }),
                metric("wins_to_date", MetricKind::Cumulative, |m| {
                    m.of = Some("wins".into());
                    m.to_date = Some(Grain::Year);
                }),
                metric("all_wins", MetricKind::Cumulative, |m| {
                    m.of = Some("wins".into())
                }),
                metric("rolling_wins", MetricKind::Cumulative, |m| {
                    m.of = Some("wins".into());
                    m.window = Some(3);
                }),
                metric("closing_points", MetricKind::Simple, |m| {
                    m.aggregate = cassis_core::ontology::Aggregate::Sum;
                    m.expr = Some("points".into());
                    m.semi_additive = Some(cassis_core::ontology::SemiAdditive {
                        time: "race_date".into(),
                        take: cassis_core::ontology::Take::Last,
                        per: vec!["driver_id".into()],
                    });
                }),
            ],
            ..ontology()
        };
        let computes = |name: &str| {
            describe(&ontology, &format!("metrics.{name}"))
                .unwrap()
                .facts
                .into_iter()
                .find(|(fact, _)| *fact == "Computes")
                .map(|(_, value)| value)
                .unwrap()
        };
        assert_eq!(computes("win_rate"), "wins / starts");
        assert_eq!(computes("net"), "wins - losses");
        assert_eq!(
            computes("win_growth"),
            "growth of wins from one year to the next"
        );
        assert_eq!(
            computes("wins_to_date"),
            "running total of wins, to date each year"
        );
        assert_eq!(computes("all_wins"), "running total of wins");
        assert_eq!(
            computes("rolling_wins"),
            "rolling total of wins over the last 3 periods"
        );
        assert_eq!(
            computes("closing_points"),
            "sum(points) at the last race_date of each period, each driver_id's own"
        );
    }
}
