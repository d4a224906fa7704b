//! Validation collects every problem at once, each with the path of the
//! element at fault, so an analyst fixes a file in one pass.

use super::model::Cardinality;
use super::model::{
    Aggregate, Attribute, AttributeRole, Metric, MetricKind, Object, Ontology, SemiAdditive,
};
use crate::project::Dialect;
use crate::sql;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// One thing wrong with an ontology.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Where, by names where there are names: `objects.driver.attributes.full_name.expr`.
    pub path: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Every problem in `ontology`, read in `dialect`; empty when it is valid.
pub fn validate(ontology: &Ontology, dialect: Dialect) -> Vec<Problem> {
    let mut check = Checker {
        dialect,
        ontology,
        problems: Vec::new(),
    };
    check.objects(ontology);
    let objects: HashMap<&str, &Object> = ontology
        .objects
        .iter()
        .map(|o| (o.name.as_str(), o))
        .collect();
    check.relationships(ontology, &objects);
    check.peers(ontology, &objects);
    check.metrics(ontology, &objects);
    check.rules(ontology);
    check.verified_questions(ontology);
    check.problems
}

/// The problems an element added to `before` brings, each with the field it
/// belongs to (`name`, `object`, `expr`, `filters`, `sql`, ...): what a form
/// that adds one element shows next to its fields. The element is named by
/// its path (`metrics.wins`) and by its position (`metrics[3]`), for one
/// without a name yet; problems `before` already had are left out, except a
/// name clash, which the new element causes.
pub fn problems_of_added(
    before: &Ontology,
    after: &Ontology,
    dialect: Dialect,
    by_name: &str,
    by_index: &str,
) -> Vec<(String, String)> {
    let known: HashSet<String> = validate(before, dialect)
        .into_iter()
        .map(|p| p.path)
        .collect();
    validate(after, dialect)
        .into_iter()
        .filter(|p| !known.contains(&p.path) || p.path == by_name)
        .filter_map(|p| {
            let rest = p
                .path
                .strip_prefix(by_name)
                .or_else(|| p.path.strip_prefix(by_index))?;
            // `filters[0]` belongs to the conditions field.
            let field = rest
                .trim_start_matches('.')
                .split(['.', '['])
                .next()
                .unwrap_or_default();
            let field = if field.is_empty() { "name" } else { field };
            Some((field.to_owned(), p.message))
        })
        .collect()
}

struct Checker<'a> {
    dialect: Dialect,
    /// For the other objects' attributes an expression names.
    ontology: &'a Ontology,
    problems: Vec<Problem>,
}

/// `section.name`, or `section[index]` for an element without a name yet.
fn element(section: &str, index: usize, name: &str) -> String {
    if name.trim().is_empty() {
        format!("{section}[{index}]")
    } else {
        format!("{section}.{name}")
    }
}

impl Checker<'_> {
    fn problem(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }

    fn name(&mut self, path: &str, name: &str) {
        let valid = name.len() <= 64
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if name.trim().is_empty() {
            self.problem(path, "needs a name");
        } else if !valid {
            self.problem(
                format!("{path}.name"),
                format!(
                    "`{name}` is not a valid name: use up to 64 lowercase letters, digits and underscores, \
                     starting with a letter (put the human name in `label`)"
                ),
            );
        }
    }

    /// Reports each name used more than once within one list.
    fn unique<'a>(&mut self, section: &str, kind: &str, names: impl IntoIterator<Item = &'a str>) {
        let mut seen = HashSet::new();
        let mut reported = HashSet::new();
        for name in names {
            if !name.is_empty() && !seen.insert(name) && reported.insert(name) {
                self.problem(
                    format!("{section}.{name}"),
                    format!("two {kind} are named `{name}`; names must be unique"),
                );
            }
        }
    }

    fn synonyms(&mut self, path: &str, synonyms: &[String]) {
        let mut seen = HashSet::new();
        for synonym in synonyms {
            let key = synonym.trim().to_lowercase();
            if key.is_empty() {
                self.problem(format!("{path}.synonyms"), "a synonym is empty");
            } else if !seen.insert(key) {
                self.problem(
                    format!("{path}.synonyms"),
                    format!("the synonym `{synonym}` is listed twice"),
                );
            }
        }
    }

    /// An expression over `owner`'s rows.
    fn expression(&mut self, path: String, text: &str, owner: &str) {
        let parsed = sql::parse_expression(self.dialect, text);
        if let Ok(expr) = &parsed
            && let Some(message) = self.unreadable_reference(expr, owner)
        {
            return self.problem(path, format!("the SQL expression `{text}` {message}"));
        }
        let written = parsed.and_then(|mut expr| sql::portable::write_out(self.dialect, &mut expr));
        if let Err(error) = written {
            self.problem(path, format!("the SQL expression `{text}` {error}"));
        }
    }

    /// What is wrong with the qualified names `expr` uses, if anything:
    /// each must be `object.attribute` of this ontology, an attribute that
    /// does not itself read another object's (one step, never a cycle).
    fn unreadable_reference(&self, expr: &sqlparser::ast::Expr, owner: &str) -> Option<String> {
        // A query inside an expression could read any table, the
        // ontology's or not.
        if sql::reference::has_subquery(expr) {
            return Some(
                "holds a query of its own; an expression reads its object's columns, and other objects' attributes as `object.attribute`"
                    .to_owned(),
            );
        }
        if let Some(name) = sql::reference::longer_name(expr) {
            return Some(format!(
                "names `{name}`; another object's attribute is named `object.attribute`"
            ));
        }
        sql::reference::references(expr).iter().find_map(|r| {
            let Some(object) = self.ontology.objects.iter().find(|o| o.name == r.object) else {
                return Some(format!("names `{}.{}`, but there is no object `{}`", r.object, r.attribute, r.object));
            };
            let Some(attribute) = object.attributes.iter().find(|a| a.name == r.attribute) else {
                return Some(format!("names `{}.{}`, but `{}` has no attribute `{}`", r.object, r.attribute, r.object, r.attribute));
            };
            let reads_further = attribute.expr.as_deref().is_some_and(|text| {
                sql::parse_expression(self.dialect, text)
                    .is_ok_and(|e| !sql::reference::references(&e).is_empty())
            });
            if reads_further {
                return Some(format!(
                    "names `{}.{}`, which itself reads another object; name the attributes it reads instead",
                    r.object, r.attribute
                ));
            }
            // One value per row: the object is a lookup away, never one
            // of many (an order's line items).
            (!self.leads_to_one(owner, &r.object)).then(|| {
                format!(
                    "names `{}.{}`, but each {owner} does not lead to one {}",
                    r.object, r.attribute, r.object
                )
            })
        })
    }

    /// Whether each row of `from` leads to at most one row of `to`, along
    /// relationships read from their many side (or either side of a
    /// one-to-one).
    fn leads_to_one(&self, from: &str, to: &str) -> bool {
        let mut reached = vec![from];
        let mut next = 0;
        while let Some(&object) = reached.get(next) {
            if object == to {
                return true;
            }
            next += 1;
            for relationship in &self.ontology.relationships {
                let step = if relationship.from == object {
                    Some(relationship.to.as_str())
                } else if relationship.to == object
                    && relationship.cardinality == Cardinality::OneToOne
                {
                    Some(relationship.from.as_str())
                } else {
                    None
                };
                if let Some(step) = step
                    && !reached.contains(&step)
                {
                    reached.push(step);
                }
            }
        }
        false
    }

    fn objects(&mut self, ontology: &Ontology) {
        self.unique(
            "objects",
            "objects",
            ontology.objects.iter().map(|o| o.name.as_str()),
        );
        for (i, object) in ontology.objects.iter().enumerate() {
            let path = element("objects", i, &object.name);
            self.name(&path, &object.name);
            self.synonyms(&path, &object.synonyms);
            if let Err(error) = sql::parse_table_name(self.dialect, &object.table) {
                self.problem(
                    format!("{path}.table"),
                    format!("the table `{}` {error}", object.table),
                );
            }
            self.unique(
                &format!("{path}.attributes"),
                "attributes",
                object.attributes.iter().map(|a| a.name.as_str()),
            );
            for (j, attribute) in object.attributes.iter().enumerate() {
                self.attribute(
                    &element(&format!("{path}.attributes"), j, &attribute.name),
                    attribute,
                    &object.name,
                );
            }
            self.named_filters(&path, object);
            for column in &object.primary_key {
                if !has_column(object, column) {
                    self.problem(
                        format!("{path}.primary_key"),
                        format!(
                            "`{column}` is not a column of any attribute of `{}`",
                            object.name
                        ),
                    );
                }
            }
        }
    }

    /// An object's named filters: each a condition over its columns, with
    /// a name no attribute of the object has, so a metric's filter that
    /// names one cannot mean a column instead.
    fn named_filters(&mut self, path: &str, object: &Object) {
        let at = format!("{path}.filters");
        self.unique(
            &at,
            "filters",
            object.filters.iter().map(|f| f.name.as_str()),
        );
        for (j, filter) in object.filters.iter().enumerate() {
            let fpath = element(&at, j, &filter.name);
            self.name(&fpath, &filter.name);
            self.synonyms(&fpath, &filter.synonyms);
            if has_column(object, &filter.name) {
                self.problem(
                    format!("{fpath}.name"),
                    format!(
                        "`{}` is also a column or attribute of `{}`; give the filter another name",
                        filter.name, object.name
                    ),
                );
            }
            if filter.expr.trim().is_empty() {
                self.problem(
                    format!("{fpath}.expr"),
                    "needs `expr`: the condition over the object's columns",
                );
            } else {
                self.expression(format!("{fpath}.expr"), &filter.expr, &object.name);
            }
        }
    }

    fn attribute(&mut self, path: &str, attribute: &Attribute, owner: &str) {
        self.name(path, &attribute.name);
        self.synonyms(path, &attribute.synonyms);
        match (&attribute.column, &attribute.expr) {
            (Some(_), Some(_)) => self.problem(path, "has both `column` and `expr`; keep one"),
            (Some(column), None) if column.trim().is_empty() => {
                self.problem(format!("{path}.column"), "is empty")
            }
            (None, Some(expr)) => self.expression(format!("{path}.expr"), expr, owner),
            _ => {}
        }
        let mut seen = HashSet::new();
        for value in &attribute.known_values {
            if !seen.insert(value.as_str()) {
                self.problem(
                    format!("{path}.known_values"),
                    format!("`{value}` is listed twice"),
                );
            }
        }
    }

    fn relationships(&mut self, ontology: &Ontology, objects: &HashMap<&str, &Object>) {
        self.unique(
            "relationships",
            "relationships",
            ontology.relationships.iter().map(|r| r.name.as_str()),
        );
        for (i, relationship) in ontology.relationships.iter().enumerate() {
            let path = element("relationships", i, &relationship.name);
            self.name(&path, &relationship.name);
            self.synonyms(&path, &relationship.synonyms);
            let from = self.object_ref(&format!("{path}.from"), &relationship.from, objects);
            let to = self.object_ref(&format!("{path}.to"), &relationship.to, objects);
            if relationship.keys.is_empty() {
                self.problem(
                    format!("{path}.keys"),
                    "needs at least one pair of columns to join on",
                );
            }
            for (j, key) in relationship.keys.iter().enumerate() {
                for (side, object, column) in [("from", from, &key.from), ("to", to, &key.to)] {
                    if let Some(object) = object
                        && !has_column(object, column)
                    {
                        self.problem(
                            format!("{path}.keys[{j}].{side}"),
                            format!(
                                "`{column}` is not a column of any attribute of `{}`",
                                object.name
                            ),
                        );
                    }
                }
            }
        }
    }

    /// A peer names objects that exist, and its pairing rows link directly
    /// to the peer's kind and to every object two peers' rows share.
    fn peers(&mut self, ontology: &Ontology, objects: &HashMap<&str, &Object>) {
        self.unique(
            "peers",
            "peers",
            ontology.peers.iter().map(|p| p.name.as_str()),
        );
        let links = |from: &str, to: &str| ontology.direct_link(from, to).is_some();
        for (i, peer) in ontology.peers.iter().enumerate() {
            let path = element("peers", i, &peer.name);
            self.name(&path, &peer.name);
            self.synonyms(&path, &peer.synonyms);
            let of = self.object_ref(&format!("{path}.of"), &peer.of, objects);
            let through = self.object_ref(&format!("{path}.through"), &peer.through, objects);
            if peer.sharing.is_empty() {
                self.problem(
                    format!("{path}.sharing"),
                    "needs at least one object two peers' rows both point to",
                );
            }
            for (j, shared) in peer.sharing.iter().enumerate() {
                let field = format!("{path}.sharing[{j}]");
                if self.object_ref(&field, shared, objects).is_some()
                    && through.is_some()
                    && !links(&peer.through, shared)
                {
                    self.problem(
                        field,
                        format!(
                            "`{}` has no one-column relationship to `{shared}`",
                            peer.through
                        ),
                    );
                }
            }
            if peer.sharing.contains(&peer.of) || peer.of == peer.through {
                self.problem(
                    format!("{path}.sharing"),
                    format!(
                        "a peer is another `{}`: it cannot be shared, nor be the rows that pair them",
                        peer.of
                    ),
                );
            }
            if of.is_some() && through.is_some() && !links(&peer.through, &peer.of) {
                self.problem(
                    format!("{path}.through"),
                    format!(
                        "`{}` has no one-column relationship to `{}`",
                        peer.through, peer.of
                    ),
                );
            }
        }
    }

    fn object_ref<'a>(
        &mut self,
        path: &str,
        name: &str,
        objects: &HashMap<&str, &'a Object>,
    ) -> Option<&'a Object> {
        let found = objects.get(name).copied();
        if found.is_none() {
            self.problem(path, format!("there is no object named `{name}`"));
        }
        found
    }

    fn metrics(&mut self, ontology: &Ontology, objects: &HashMap<&str, &Object>) {
        self.unique(
            "metrics",
            "metrics",
            ontology.metrics.iter().map(|m| m.name.as_str()),
        );
        let metric_kinds: HashMap<&str, MetricKind> = ontology
            .metrics
            .iter()
            .map(|m| (m.name.as_str(), m.kind))
            .collect();
        for (i, metric) in ontology.metrics.iter().enumerate() {
            let path = element("metrics", i, &metric.name);
            match metric.kind {
                MetricKind::Ratio => self.ratio(&path, metric, ontology, objects),
                MetricKind::Growth | MetricKind::Cumulative => {
                    self.over_periods(&path, metric, ontology, objects)
                }
                MetricKind::Derived => self.derived(&path, metric, ontology, objects),
                MetricKind::Simple => self.metric(&path, metric, objects, &metric_kinds),
            }
        }
    }

    /// A ratio divides two simple metrics; it has no rows of its own to
    /// aggregate, filter or vary, and its object is one of its sides'.
    fn ratio(
        &mut self,
        path: &str,
        metric: &Metric,
        ontology: &Ontology,
        objects: &HashMap<&str, &Object>,
    ) {
        self.name(path, &metric.name);
        self.synonyms(path, &metric.synonyms);
        self.object_ref(&format!("{path}.object"), &metric.object, objects);
        let mut side_objects = Vec::new();
        for (field, side) in [
            ("numerator", &metric.numerator),
            ("denominator", &metric.denominator),
        ] {
            let at = format!("{path}.{field}");
            let Some(side) = side.as_deref().filter(|s| !s.trim().is_empty()) else {
                self.problem(
                    at,
                    format!("a ratio needs `{field}`: the metric it divides"),
                );
                continue;
            };
            match ontology.metrics.iter().find(|m| m.name == side) {
                None => self.problem(at, format!("there is no metric named `{side}`")),
                Some(other) if other.name == metric.name => {
                    self.problem(at, "a ratio cannot divide itself")
                }
                Some(other) if other.kind == MetricKind::Ratio => self.problem(
                    at,
                    format!(
                        "`{side}` is itself a ratio; a ratio divides two metrics that aggregate rows"
                    ),
                ),
                // Each side is computed as one column at the question's
                // grain; a growth or a running total is several columns
                // over periods, and a derived metric several metrics.
                Some(other) if other.kind != MetricKind::Simple => self.problem(
                    at,
                    format!(
                        "`{side}` is computed from other metrics ({}); a ratio divides two metrics that aggregate rows",
                        match other.kind {
                            MetricKind::Growth => "a growth",
                            MetricKind::Cumulative => "a running total",
                            _ => "a derived metric",
                        }
                    ),
                ),
                Some(other) => side_objects.push(other.object.as_str()),
            }
        }
        if side_objects.len() == 2
            && objects.contains_key(metric.object.as_str())
            && !side_objects.contains(&metric.object.as_str())
        {
            self.problem(
                format!("{path}.object"),
                format!(
                    "a ratio is read from its numerator's or its denominator's object (`{}` or `{}`), not `{}`",
                    side_objects[0], side_objects[1], metric.object
                ),
            );
        }
        let unused = [
            ("expr", metric.expr.is_some()),
            ("filters", !metric.filters.is_empty()),
            ("variants", !metric.variants.is_empty()),
        ];
        for (field, present) in unused {
            if present {
                self.problem(
                    format!("{path}.{field}"),
                    format!(
                        "a ratio takes no `{field}`; give it to the numerator or the denominator metric"
                    ),
                );
            }
        }
        self.only_growth(path, metric);
    }

    /// A growth compares one metric with itself a period earlier, and a
    /// running total adds one up period after period; neither has rows of
    /// its own, and each is read from its metric's object.
    fn over_periods(
        &mut self,
        path: &str,
        metric: &Metric,
        ontology: &Ontology,
        objects: &HashMap<&str, &Object>,
    ) {
        self.name(path, &metric.name);
        self.synonyms(path, &metric.synonyms);
        self.object_ref(&format!("{path}.object"), &metric.object, objects);
        let growth = metric.kind == MetricKind::Growth;
        let kind = if growth {
            "a growth"
        } else {
            "a running total"
        };
        let at = format!("{path}.of");
        match metric.of.as_deref().filter(|s| !s.trim().is_empty()) {
            None if growth => {
                self.problem(at, "a growth needs `of`: the metric whose change it measures")
            }
            None => self.problem(at, "a running total needs `of`: the metric it adds up"),
            Some(of) => match ontology.metrics.iter().find(|m| m.name == of) {
                None => self.problem(at, format!("there is no metric named `{of}`")),
                Some(other) if other.name == metric.name => {
                    self.problem(at, format!("{kind} cannot be of itself"))
                }
                Some(other) if matches!(other.kind, MetricKind::Growth | MetricKind::Cumulative) => self.problem(
                    at,
                    format!("`{of}` is itself computed over periods; {kind} is of a metric that aggregates rows"),
                ),
                Some(other) if !growth && other.semi_additive.is_some() => self.problem(
                    at,
                    format!("`{of}` is a level read at one time (semi-additive), which adding up period after period would count again and again"),
                ),
                Some(other)
                    if !growth
                        && (other.kind != MetricKind::Simple
                            || !matches!(other.aggregate, Aggregate::Sum | Aggregate::Count)) =>
                {
                    self.problem(
                        at,
                        format!("`{of}` does not add up (only a sum or a count does), so it has no running total"),
                    )
                }
                Some(other)
                    if objects.contains_key(metric.object.as_str())
                        && other.object != metric.object =>
                {
                    self.problem(
                        format!("{path}.object"),
                        format!(
                            "{kind} is read from its metric's object (`{}`), not `{}`",
                            other.object, metric.object
                        ),
                    )
                }
                Some(_) => {}
            },
        }
        if growth && metric.period.is_none() {
            self.problem(
                format!("{path}.period"),
                "a growth needs `period`: year, quarter, month, week or day, what it compares with the one before",
            );
        }
        for (field, grain) in [("period", metric.period), ("to_date", metric.to_date)] {
            if let Some(grain) = grain.filter(|g| !g.is_period()) {
                self.problem(
                    format!("{path}.{field}"),
                    format!(
                        "`{}` is a month of every year, not a period that follows another: use year, quarter, month, week or day",
                        grain.name()
                    ),
                );
            }
        }
        if let Some(window) = metric.window {
            if window < 2 {
                self.problem(
                    format!("{path}.window"),
                    "a rolling window spans at least 2 periods",
                );
            }
            if metric.to_date.is_some() {
                self.problem(
                    format!("{path}.window"),
                    "a running total either rolls over a `window` or starts again at `to_date`, not both",
                );
            }
        }
        self.only_simple_levels(path, metric);
        let unused = [
            ("period", !growth && metric.period.is_some()),
            ("to_date", growth && metric.to_date.is_some()),
            ("window", growth && metric.window.is_some()),
            ("expr", metric.expr.is_some()),
            ("filters", !metric.filters.is_empty()),
            ("variants", !metric.variants.is_empty()),
            ("numerator", metric.numerator.is_some()),
            ("denominator", metric.denominator.is_some()),
        ];
        for (field, present) in unused {
            if present {
                self.problem(
                    format!("{path}.{field}"),
                    format!("{kind} takes no `{field}`"),
                );
            }
        }
    }

    /// A derived metric is SQL over other metrics' names: each one it names
    /// must aggregate rows (or divide two that do), and it has no rows of
    /// its own to filter or vary.
    fn derived(
        &mut self,
        path: &str,
        metric: &Metric,
        ontology: &Ontology,
        objects: &HashMap<&str, &Object>,
    ) {
        self.name(path, &metric.name);
        self.synonyms(path, &metric.synonyms);
        self.object_ref(&format!("{path}.object"), &metric.object, objects);
        let at = format!("{path}.expr");
        let Some(expr) = metric.expr.as_deref() else {
            self.problem(
                at,
                "a derived metric needs `expr`: SQL over other metrics' names",
            );
            return;
        };
        let names = match metric.metrics_used() {
            Ok(names) => names,
            Err(error) => {
                self.problem(at, format!("the SQL expression `{expr}` {error}"));
                return;
            }
        };
        if names.is_empty() {
            self.problem(
                &at,
                "names no metric; a derived metric combines other metrics",
            );
        }
        let mut objects_named = Vec::new();
        for name in &names {
            match ontology.metrics.iter().find(|m| m.name == *name) {
                None => self.problem(&at, format!("`{name}` is not a metric")),
                Some(other) if other.name == metric.name => {
                    self.problem(&at, "a derived metric cannot use itself")
                }
                Some(other) if !matches!(other.kind, MetricKind::Simple | MetricKind::Ratio) => {
                    self.problem(
                        &at,
                        format!("`{name}` is computed over periods or derived; a derived metric combines metrics that aggregate rows or divide two"),
                    )
                }
                Some(other) => objects_named.push(other.object.as_str()),
            }
        }
        if !objects_named.is_empty()
            && objects.contains_key(metric.object.as_str())
            && !objects_named.contains(&metric.object.as_str())
        {
            self.problem(
                format!("{path}.object"),
                format!(
                    "a derived metric is read from the object of a metric it uses (`{}`), not `{}`",
                    objects_named[0], metric.object
                ),
            );
        }
        for (field, present) in [
            ("filters", !metric.filters.is_empty()),
            ("variants", !metric.variants.is_empty()),
            ("numerator", metric.numerator.is_some()),
            ("denominator", metric.denominator.is_some()),
        ] {
            if present {
                self.problem(
                    format!("{path}.{field}"),
                    format!("a derived metric takes no `{field}`; give it to the metrics it uses"),
                );
            }
        }
        self.only_growth(path, metric);
    }

    /// `of`, `period` and `to_date` belong to metrics over periods alone.
    fn only_growth(&mut self, path: &str, metric: &Metric) {
        self.only_simple_levels(path, metric);
        for (field, present, kind) in [
            ("of", metric.of.is_some(), "growth` or `type: cumulative"),
            ("period", metric.period.is_some(), "growth"),
            ("to_date", metric.to_date.is_some(), "cumulative"),
            ("window", metric.window.is_some(), "cumulative"),
        ] {
            if present {
                self.problem(
                    format!("{path}.{field}"),
                    format!(
                        "only a metric of `type: {kind}` has `{field}`: add the type, or remove it"
                    ),
                );
            }
        }
    }

    /// A level's time rule applies to the rows a simple metric aggregates;
    /// a metric computed from others reads it from them.
    fn only_simple_levels(&mut self, path: &str, metric: &Metric) {
        if metric.kind != MetricKind::Simple && metric.semi_additive.is_some() {
            self.problem(
                format!("{path}.semi_additive"),
                "only a metric that aggregates rows is semi-additive; give it to the metric this one is computed from",
            );
        }
    }

    /// A level is read at a time attribute of its own object (or of the
    /// object its rows belong to), per attributes of its own object; with
    /// `per`, each one's value is then aggregated again across them, which
    /// only a sum, a count, a minimum or a maximum allows.
    fn semi_additive(
        &mut self,
        path: &str,
        metric: &Metric,
        levels: &SemiAdditive,
        object: Option<&Object>,
        objects: &HashMap<&str, &Object>,
    ) {
        let at = format!("{path}.semi_additive");
        let attribute =
            |name: &str| object.and_then(|o| o.attributes.iter().find(|a| a.name == name));
        let (time_object, time_attribute) = levels.time_of(&metric.object);
        let timed = if time_object == metric.object {
            object
        } else {
            objects.get(time_object).copied()
        };
        if levels.time.trim().is_empty() {
            self.problem(
                format!("{at}.time"),
                "a semi-additive metric needs `time`: the time attribute its level is recorded at",
            );
        } else if object.is_some() && timed.is_none() {
            self.problem(
                format!("{at}.time"),
                format!("there is no object `{time_object}`"),
            );
        } else if let Some(timed) = timed {
            match timed.attributes.iter().find(|a| a.name == time_attribute) {
                None => self.problem(
                    format!("{at}.time"),
                    format!("the object `{}` has no attribute `{time_attribute}`", timed.name),
                ),
                Some(a) if a.role != AttributeRole::Time => self.problem(
                    format!("{at}.time"),
                    format!(
                        "`{time_attribute}` is not a time attribute of `{}`; a level is read at a date or time (give the attribute `role: time`)",
                        timed.name
                    ),
                ),
                Some(_) => {}
            }
        }
        for name in &levels.per {
            if *name == levels.time {
                self.problem(
                    format!("{at}.per"),
                    format!(
                        "`{name}` is the level's time; `per` names what each keeps its own time for"
                    ),
                );
            } else if let Some(object) = object
                && attribute(name).is_none()
            {
                self.problem(
                    format!("{at}.per"),
                    format!("the object `{}` has no attribute `{name}`", object.name),
                );
            }
        }
        if !levels.per.is_empty()
            && matches!(metric.aggregate, Aggregate::Avg | Aggregate::CountDistinct)
        {
            self.problem(
                &at,
                format!(
                    "with `per`, each one's value is then added up across them, which `{}` values cannot be; use sum, count, min or max, or remove `per`",
                    aggregate_name(metric.aggregate)
                ),
            );
        }
        for (j, variant) in metric.variants.iter().enumerate() {
            if !variant.plus.is_empty() {
                let vpath = element(&format!("{path}.variants"), j, &variant.name);
                self.problem(
                    format!("{vpath}.plus"),
                    "a semi-additive metric is read at one time per period; it adds no other metrics",
                );
            }
        }
    }

    fn metric(
        &mut self,
        path: &str,
        metric: &Metric,
        objects: &HashMap<&str, &Object>,
        metrics: &HashMap<&str, MetricKind>,
    ) {
        self.name(path, &metric.name);
        self.synonyms(path, &metric.synonyms);
        let object = self.object_ref(&format!("{path}.object"), &metric.object, objects);
        if let Some(levels) = &metric.semi_additive {
            self.semi_additive(path, metric, levels, object, objects);
        }
        for (field, present) in [
            ("numerator", metric.numerator.is_some()),
            ("denominator", metric.denominator.is_some()),
        ] {
            if present {
                self.problem(
                    format!("{path}.{field}"),
                    format!("only a ratio has a `{field}`: add `type: ratio`, or remove it"),
                );
            }
        }
        self.only_growth(path, metric);
        match (&metric.expr, metric.aggregate) {
            (Some(expr), _) => self.expression(format!("{path}.expr"), expr, &metric.object),
            (None, Aggregate::Count) => {}
            (None, aggregate) => self.problem(
                format!("{path}.expr"),
                format!(
                    "a {} metric needs `expr`: what it aggregates",
                    aggregate_name(aggregate)
                ),
            ),
        }
        for (j, filter) in metric.filters.iter().enumerate() {
            self.expression(format!("{path}.filters[{j}]"), filter, &metric.object);
        }
        self.unique(
            &format!("{path}.variants"),
            "variants",
            metric.variants.iter().map(|v| v.name.as_str()),
        );
        if metric.variants.iter().filter(|v| v.default).count() > 1 {
            self.problem(
                format!("{path}.variants"),
                "more than one variant is marked `default`",
            );
        }
        for (j, variant) in metric.variants.iter().enumerate() {
            let vpath = element(&format!("{path}.variants"), j, &variant.name);
            self.name(&vpath, &variant.name);
            self.synonyms(&vpath, &variant.synonyms);
            if let Some(expr) = &variant.expr {
                self.expression(format!("{vpath}.expr"), expr, &metric.object);
            }
            for (k, filter) in variant.filters.iter().flatten().enumerate() {
                self.expression(format!("{vpath}.filters[{k}]"), filter, &metric.object);
            }
            for other in &variant.plus {
                if other == &metric.name {
                    self.problem(format!("{vpath}.plus"), "a metric cannot add itself");
                } else {
                    match metrics.get(other.as_str()) {
                        None => self.problem(
                            format!("{vpath}.plus"),
                            format!("there is no metric named `{other}`"),
                        ),
                        Some(MetricKind::Ratio) => self.problem(
                            format!("{vpath}.plus"),
                            format!("`{other}` is a ratio, which does not add up; add the metrics it divides"),
                        ),
                        Some(MetricKind::Growth | MetricKind::Cumulative | MetricKind::Derived) => self.problem(
                            format!("{vpath}.plus"),
                            format!("`{other}` is computed from other metrics and does not add up; add the metrics it is of"),
                        ),
                        Some(MetricKind::Simple) => {}
                    }
                }
            }
        }
    }

    fn rules(&mut self, ontology: &Ontology) {
        self.unique(
            "rules",
            "rules",
            ontology.rules.iter().map(|r| r.name.as_str()),
        );
        for (i, rule) in ontology.rules.iter().enumerate() {
            let path = element("rules", i, &rule.name);
            self.name(&path, &rule.name);
            self.synonyms(&path, &rule.synonyms);
            if rule.text.trim().is_empty() {
                self.problem(format!("{path}.text"), "is empty: say what the rule is");
            }
        }
    }

    fn verified_questions(&mut self, ontology: &Ontology) {
        let mut seen = HashSet::new();
        for (i, verified) in ontology.verified_questions.iter().enumerate() {
            let path = format!("verified_questions[{i}]");
            if verified.question.trim().is_empty() {
                self.problem(format!("{path}.question"), "is empty");
            } else if !seen.insert(verified.question.trim().to_lowercase()) {
                self.problem(
                    format!("{path}.question"),
                    format!("`{}` is verified twice", verified.question),
                );
            }
            if let Err(error) = sql::parse_select(self.dialect, &verified.sql) {
                self.problem(format!("{path}.sql"), format!("the approved SQL {error}"));
            }
        }
    }
}

/// Whether some attribute of `object` reads `column`, or is named so.
fn has_column(object: &Object, column: &str) -> bool {
    object
        .attributes
        .iter()
        .any(|a| a.column_name() == Some(column) || a.name == column)
}

fn aggregate_name(aggregate: Aggregate) -> &'static str {
    match aggregate {
        Aggregate::Count => "count",
        Aggregate::CountDistinct => "count_distinct",
        Aggregate::Sum => "sum",
        Aggregate::Avg => "avg",
        Aggregate::Min => "min",
        Aggregate::Max => "max",
    }
}
