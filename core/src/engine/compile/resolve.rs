//! The compiler's first stage: a plan resolved against the ontology's
//! index, before any SQL. Every name the plan uses is looked up, and every
//! one that is missing is reported at once, each with the closest name the
//! ontology has; then the plan's shape is decided (a lookup, one
//! aggregate, a union of metrics, or a composite computed from sub-plans),
//! and for an aggregate or a lookup the join tree and whether it fans out
//! from the measured rows (then one row per measured row is kept first).
//!
//! Nothing here depends on the SQL dialect: a [`ResolvedPlan`] is lowered
//! to SQL by the compiler's later stages, in the source's dialect.

use super::{CompileError, display_attribute};
use crate::engine::graph::{self, JoinTree, Step};
use crate::engine::plan::{AttributeRef, Condition, Filter, Measure, SemanticPlan};
use crate::ontology::{Aggregate, Grain, Metric, OntologyIndex};
use crate::sql;

/// A problem that keeps a plan from compiling, with what the user may have
/// meant where a name is close to one the ontology has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub error: CompileError,
    /// A name of the ontology close to the missing one.
    pub suggestion: Option<String>,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error)?;
        if let Some(suggestion) = &self.suggestion {
            write!(f, "; did you mean `{suggestion}`?")?;
        }
        Ok(())
    }
}

impl From<CompileError> for Problem {
    fn from(error: CompileError) -> Self {
        Problem {
            error,
            suggestion: None,
        }
    }
}

/// A plan whose names all exist, with its shape decided.
#[derive(Debug)]
pub struct ResolvedPlan {
    pub shape: Shape,
}

/// What SQL a plan becomes.
#[derive(Debug)]
pub enum Shape {
    /// Attribute values without a measure: `SELECT DISTINCT` over `tree`,
    /// showing `dimensions` (the plan's, or the base's display name).
    Lookup {
        tree: JoinTree,
        dimensions: Vec<AttributeRef>,
    },
    /// Measures of one object, joined along `tree`.
    Aggregate {
        measures: Vec<ResolvedMeasure>,
        tree: JoinTree,
        fanning: Fanning,
    },
    /// Measures of different objects: each object's (by the plan's
    /// measure indices) measured alone, then joined on the groupings.
    Across {
        groups: Vec<Vec<usize>>,
    },
    /// A metric's variant that adds other metrics: one branch each, summed.
    Combined {
        measure: ResolvedMeasure,
    },
    /// A ratio metric: its two sides computed alone, then divided.
    Ratio {
        metric: String,
    },
    /// A derived metric: SQL over other metrics, each computed alone.
    Derived {
        metric: String,
    },
    /// A measure against itself `periods` periods of `period` earlier.
    Growth {
        of: Measure,
        period: Grain,
        periods: u32,
        named: Option<String>,
    },
    /// A semi-additive metric alone: per group, its value at the last (or
    /// first, or every) time of its time attribute, then aggregated.
    SemiAdditive {
        metric: String,
        variant: Option<String>,
    },
    /// A measure added up period after period.
    Cumulative {
        of: Measure,
        to_date: Option<Grain>,
        window: Option<u32>,
        named: Option<String>,
    },
    Share {
        part: Measure,
        whole: Measure,
        only: Vec<Filter>,
    },
    AveragePer {
        of: Measure,
        per: AttributeRef,
    },
    CountPassing {
        of: Measure,
        per: AttributeRef,
        condition: Condition,
    },
    Difference {
        of: Measure,
        from: Vec<Filter>,
        minus: Vec<Filter>,
    },
}

/// How an aggregate keeps its grain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fanning {
    /// Every join is a lookup: aggregate the joined rows directly.
    Direct,
    /// A dimension or filter is on the many side of the measured object:
    /// keep one row per measured row (by its primary key) first.
    PerMeasuredRow,
}

/// A measure resolved against the ontology.
#[derive(Clone, Debug)]
pub struct ResolvedMeasure {
    /// The output column.
    pub name: String,
    pub base: String,
    pub aggregate: Aggregate,
    /// What is aggregated, over the base's rows; `None` counts rows.
    pub input: Option<Input>,
    /// SQL conditions over the base's columns.
    pub filters: Vec<String>,
    /// Metrics added to this one (a variant's `plus`).
    pub plus: Vec<ResolvedMeasure>,
    pub variant: Option<String>,
}

impl ResolvedMeasure {
    /// The ontology's SQL this measure compiles: what it aggregates and
    /// its conditions.
    fn texts(&self) -> impl Iterator<Item = &str> {
        let input = match &self.input {
            Some(Input::Sql(text)) => Some(text.as_str()),
            _ => None,
        };
        input
            .into_iter()
            .chain(self.filters.iter().map(String::as_str))
    }
}

/// What a measure aggregates.
#[derive(Clone, Debug)]
pub enum Input {
    /// SQL over the base's columns, from the ontology.
    Sql(String),
    /// One column of the base, quoted as the dialect needs when lowered.
    Column(String),
}

/// Resolves `plan`: every missing name at once, else the first structural
/// problem (a measure that must be alone, two bases, objects that do not
/// join, a fan-out on two branches).
pub fn resolve(
    index: OntologyIndex<'_>,
    plan: &SemanticPlan,
) -> Result<ResolvedPlan, Vec<Problem>> {
    resolve_reading(index, plan, None)
}

/// [`resolve`], reading the semi-additive metric `plain` (if any) as the
/// plain aggregate of its rows: its caller applies the time rule around it.
pub(super) fn resolve_reading(
    index: OntologyIndex<'_>,
    plan: &SemanticPlan,
    plain: Option<&str>,
) -> Result<ResolvedPlan, Vec<Problem>> {
    let mut problems = Vec::new();
    NameCheck { index }.check_plan(plan, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    shape(index, plan, plain)
        .map(|shape| ResolvedPlan { shape })
        .map_err(|error| vec![Problem::from(error)])
}

fn shape(
    index: OntologyIndex<'_>,
    plan: &SemanticPlan,
    plain: Option<&str>,
) -> Result<Shape, CompileError> {
    let metric = |name: &str| index.metric(name);
    let is = |name: &str, kind: fn(&Metric) -> bool| metric(name).is_some_and(kind);
    let level = |name: &str| plain != Some(name) && is(name, Metric::is_semi_additive);
    let of = |metric: &Metric| Measure::Metric {
        metric: metric.of.clone().unwrap_or_default(),
        variant: None,
    };
    match plan.measures.as_slice() {
        [
            Measure::Growth {
                of,
                period,
                periods,
            },
        ] => {
            return Ok(Shape::Growth {
                of: (**of).clone(),
                period: *period,
                periods: *periods,
                named: None,
            });
        }
        [
            Measure::Metric {
                metric,
                variant: None,
            },
        ] if is(metric, Metric::is_derived) => {
            return Ok(Shape::Derived {
                metric: metric.clone(),
            });
        }
        [
            Measure::Cumulative {
                of,
                to_date,
                window,
            },
        ] => {
            return Ok(Shape::Cumulative {
                of: (**of).clone(),
                to_date: *to_date,
                window: *window,
                named: None,
            });
        }
        [
            Measure::Metric {
                metric: name,
                variant: None,
            },
        ] if is(name, Metric::is_cumulative) => {
            let found = metric(name).expect("checked above");
            return Ok(Shape::Cumulative {
                of: of(found),
                to_date: found.to_date,
                window: found.window,
                named: Some(name.clone()),
            });
        }
        [
            Measure::Metric {
                metric: name,
                variant: None,
            },
        ] if is(name, Metric::is_growth) => {
            let found = metric(name).expect("checked above");
            return Ok(Shape::Growth {
                of: of(found),
                period: found.period.unwrap_or(Grain::Year),
                periods: 1,
                named: Some(name.clone()),
            });
        }
        [Measure::Share { part, whole, only }] => {
            return Ok(Shape::Share {
                part: (**part).clone(),
                whole: (**whole).clone(),
                only: only.clone(),
            });
        }
        [Measure::AveragePer { of, per }] => {
            return Ok(Shape::AveragePer {
                of: (**of).clone(),
                per: per.clone(),
            });
        }
        [Measure::CountPassing { of, per, condition }] => {
            return Ok(Shape::CountPassing {
                of: (**of).clone(),
                per: per.clone(),
                condition: condition.clone(),
            });
        }
        [Measure::Difference { of, from, minus }] => {
            return Ok(Shape::Difference {
                of: (**of).clone(),
                from: from.clone(),
                minus: minus.clone(),
            });
        }
        [
            Measure::Metric {
                metric: name,
                variant,
            },
        ] if is(name, Metric::is_ratio) => {
            if let Some(variant) = variant {
                return Err(CompileError::UnknownVariant {
                    metric: name.clone(),
                    variant: variant.clone(),
                });
            }
            return Ok(Shape::Ratio {
                metric: name.clone(),
            });
        }
        [Measure::Metric { metric, variant }] if level(metric) => {
            return Ok(Shape::SemiAdditive {
                metric: metric.clone(),
                variant: variant.clone(),
            });
        }
        measures => {
            let ratio = measures.iter().find_map(|m| match m {
                Measure::Metric { metric, .. } if is(metric, Metric::is_ratio) => Some(metric),
                _ => None,
            });
            if let Some(ratio) = ratio {
                return Err(CompileError::RatioNotAlone(ratio.clone()));
            }
        }
    }
    if plan.measures.is_empty() {
        lookup(index, plan)
    } else {
        aggregate(index, plan, plain)
    }
}

/// A lookup is rooted where every other object it needs is a lookup away.
fn lookup(index: OntologyIndex<'_>, plan: &SemanticPlan) -> Result<Shape, CompileError> {
    let ontology = index.ontology();
    let needed = needed_objects(index, &plan.dimensions, &plan.filters, &[]);
    let first = plan
        .dimensions
        .first()
        .or_else(|| plan.filters.first().map(|f| &f.attribute))
        .ok_or(CompileError::EmptyPlan)?
        .object
        .clone();
    // "Who finished second in race X": rooted at the result, every other
    // object is a lookup away; rooted at the driver, the way to the race
    // would have to pick one of several fan-outs.
    let lookup_from = |candidate: &str| {
        graph::join_tree(ontology, candidate, &needed)
            .ok()
            .filter(|t| !t.fans_out())
    };
    // "Which team did Hamilton drive for in 2025": none of the three is a
    // lookup away from the others, but their results link all three; the
    // closest such object roots the query.
    let bridge = || graph::lookup_root(ontology, &needed);
    let base = std::iter::once(first.as_str())
        .chain(needed.iter().copied())
        .find(|candidate| lookup_from(candidate).is_some())
        .or_else(bridge)
        .unwrap_or(&first)
        .to_owned();
    let tree = graph::join_tree_via(ontology, &base, &plan.via, &needed)?;
    refuse_chasm_trap(&tree)?;
    let mut dimensions = plan.dimensions.clone();
    if dimensions.is_empty() {
        let object = index
            .object(&base)
            .ok_or_else(|| CompileError::UnknownObject(base.clone()))?;
        let shown = display_attribute(object).ok_or_else(|| CompileError::UnknownAttribute {
            object: object.name.clone(),
            attribute: "(a name to show)".to_owned(),
        })?;
        dimensions.push(AttributeRef::new(&object.name, shown));
    }
    Ok(Shape::Lookup { tree, dimensions })
}

/// Measures of one base, joined to what the plan groups and filters by.
fn aggregate(
    index: OntologyIndex<'_>,
    plan: &SemanticPlan,
    plain: Option<&str>,
) -> Result<Shape, CompileError> {
    let measures = plan
        .measures
        .iter()
        .map(|m| measure(index, m))
        .collect::<Result<Vec<_>, _>>()?;
    // A level beside other measures, or added to one, would be summed over
    // time with them: it is read on its own.
    for measure in measures
        .iter()
        .flat_map(|m| std::iter::once(m).chain(&m.plus))
    {
        let semi_additive = index
            .metric(&measure.name)
            .is_some_and(|m| m.is_semi_additive() && m.object == measure.base);
        if semi_additive && plain != Some(measure.name.as_str()) {
            return Err(CompileError::SemiAdditiveNotAlone(measure.name.clone()));
        }
    }
    if let Some(first) = measures.first()
        && let Some(other) = measures.iter().find(|m| m.base != first.base)
    {
        // Plain measures each aggregate alone; a variant adding others
        // is already a union of its own.
        if measures.iter().any(|m| !m.plus.is_empty()) {
            return Err(CompileError::MixedBases {
                first: first.name.clone(),
                second: other.name.clone(),
            });
        }
        let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
        for (i, measure) in measures.iter().enumerate() {
            match groups.iter_mut().find(|(base, _)| *base == measure.base) {
                Some((_, group)) => group.push(i),
                None => groups.push((&measure.base, vec![i])),
            }
        }
        return Ok(Shape::Across {
            groups: groups.into_iter().map(|(_, group)| group).collect(),
        });
    }
    if measures.iter().any(|m| !m.plus.is_empty()) {
        let [measure] = <[ResolvedMeasure; 1]>::try_from(measures).map_err(|measures| {
            CompileError::MixedBases {
                first: measures[0].name.clone(),
                second: measures[1].name.clone(),
            }
        })?;
        return Ok(Shape::Combined { measure });
    }
    let base = measures[0].base.clone();
    let needed = needed_objects(
        index,
        &plan.dimensions,
        &plan.filters,
        &measures.iter().collect::<Vec<_>>(),
    );
    let tree = graph::join_tree_via(index.ontology(), &base, &plan.via, &needed)?;
    // Two one-to-many branches would pair every row of one with every row
    // of the other (a chasm trap): slow, and not what anyone asked.
    refuse_chasm_trap(&tree)?;
    refuse_grouping_through_a_parent(&tree, plan)?;
    let fanning = if tree.fans_out() {
        let object = index
            .object(&tree.base)
            .ok_or_else(|| CompileError::UnknownObject(tree.base.clone()))?;
        if object.primary_key.is_empty() {
            let other = tree.steps.iter().find(|s| s.fans_out).map(|s| s.to.clone());
            return Err(CompileError::NoPrimaryKey {
                object: object.name.clone(),
                other: other.unwrap_or_default(),
            });
        }
        Fanning::PerMeasuredRow
    } else {
        Fanning::Direct
    };
    Ok(Shape::Aggregate {
        measures,
        tree,
        fanning,
    })
}

/// One measure of an aggregate: what it aggregates, over which object's
/// rows, under which conditions.
pub(super) fn measure(
    index: OntologyIndex<'_>,
    measure: &Measure,
) -> Result<ResolvedMeasure, CompileError> {
    let object = |name: &str| {
        index
            .object(name)
            .ok_or_else(|| CompileError::UnknownObject(name.to_owned()))
    };
    match measure {
        Measure::CountOf { object: counted } => {
            object(counted)?;
            Ok(ResolvedMeasure {
                name: format!("{counted}_count"),
                base: counted.clone(),
                aggregate: Aggregate::Count,
                input: None,
                filters: Vec::new(),
                plus: Vec::new(),
                variant: None,
            })
        }
        Measure::Metric {
            metric: name,
            variant,
        } => metric(index, name, variant.as_deref(), 0),
        Measure::Share { .. }
        | Measure::AveragePer { .. }
        | Measure::CountPassing { .. }
        | Measure::Difference { .. }
        | Measure::Growth { .. }
        | Measure::Cumulative { .. } => Err(CompileError::NotAlone),
        Measure::DistinctOf {
            object: counted,
            metric: name,
        } => {
            let counted = object(counted)?;
            let mut resolved = metric(index, name, None, 0)?;
            resolved.name = format!("{}_count", counted.name);
            resolved.plus.clear();
            // "How many line items were returned": the metric's rows are
            // the counted things, one row each.
            if resolved.base == counted.name {
                resolved.aggregate = Aggregate::Count;
                resolved.input = None;
                return Ok(resolved);
            }
            // "teams that scored points": a sum's rows that add nothing
            // (a finish outside the points) do not count its things.
            if resolved.aggregate == Aggregate::Sum
                && let Some(Input::Sql(input)) = &resolved.input
            {
                let simple = input.chars().all(|c| c.is_alphanumeric() || c == '_');
                resolved.filters.push(if simple {
                    format!("{input} <> 0")
                } else {
                    format!("({input}) <> 0")
                });
            }
            // The counted object's key as the metric's rows hold it.
            let key = graph::direct_link(index.ontology(), &resolved.base, &counted.name)
                .map(|key| key.from.clone())
                .ok_or_else(|| CompileError::NotLinked {
                    from: resolved.base.clone(),
                    to: counted.name.clone(),
                })?;
            resolved.aggregate = Aggregate::CountDistinct;
            resolved.input = Some(Input::Column(key));
            Ok(resolved)
        }
        Measure::Aggregate {
            attribute,
            aggregate,
        } => {
            object(&attribute.object)?;
            let found = index
                .attribute(&attribute.object, &attribute.attribute)
                .ok_or_else(|| CompileError::UnknownAttribute {
                    object: attribute.object.clone(),
                    attribute: attribute.attribute.clone(),
                })?;
            let input = match (found.column_name(), &found.expr) {
                (_, Some(expr)) => Input::Sql(expr.clone()),
                (Some(column), None) => Input::Column(column.to_owned()),
                (None, None) => unreachable!("an attribute reads a column or an expression"),
            };
            let prefix = match aggregate {
                Aggregate::Avg => "average",
                Aggregate::Sum => "total",
                Aggregate::Min => "lowest",
                Aggregate::Max => "highest",
                Aggregate::Count | Aggregate::CountDistinct => "number_of",
            };
            Ok(ResolvedMeasure {
                name: format!("{prefix}_{}", attribute.attribute),
                base: attribute.object.clone(),
                aggregate: *aggregate,
                input: Some(input),
                filters: Vec::new(),
                plus: Vec::new(),
                variant: None,
            })
        }
    }
}

/// A plain metric in one of its readings, with the metrics its variant adds.
pub(super) fn metric(
    index: OntologyIndex<'_>,
    name: &str,
    variant: Option<&str>,
    depth: usize,
) -> Result<ResolvedMeasure, CompileError> {
    let metric = index
        .metric(name)
        .ok_or_else(|| CompileError::UnknownMetric(name.to_owned()))?;
    if metric.is_ratio() {
        return Err(CompileError::RatioInside(name.to_owned()));
    }
    if metric.is_growth() || metric.is_cumulative() {
        return Err(CompileError::GrowthInside(name.to_owned()));
    }
    if metric.is_derived() {
        return Err(CompileError::DerivedInside(name.to_owned()));
    }
    let chosen = metric.reading(variant);
    if let (Some(v), None) = (variant, chosen) {
        return Err(CompileError::UnknownVariant {
            metric: name.to_owned(),
            variant: v.to_owned(),
        });
    }
    let mut resolved = ResolvedMeasure {
        name: metric.name.clone(),
        base: metric.object.clone(),
        aggregate: metric.aggregate,
        input: chosen
            .and_then(|v| v.expr.clone())
            .or_else(|| metric.expr.clone())
            .map(Input::Sql),
        filters: chosen
            .and_then(|v| v.filters.clone())
            .unwrap_or_else(|| metric.filters.clone()),
        plus: Vec::new(),
        variant: chosen.map(|v| v.name.clone()),
    };
    // Validation refuses cycles; the depth guard keeps a broken draft from recursing.
    if let Some(chosen) = chosen
        && depth < 4
    {
        for other in &chosen.plus {
            resolved
                .plus
                .push(self::metric(index, other, None, depth + 1)?);
        }
    }
    Ok(resolved)
}

/// Two one-to-many steps on different branches of the join tree would pair
/// every row of one with every row of the other (a chasm trap): slow, and no
/// reading anyone asked for. One-to-many steps along one path are fine.
pub(super) fn refuse_chasm_trap(tree: &JoinTree) -> Result<(), CompileError> {
    fn parent<'t>(tree: &'t JoinTree, object: &str) -> Option<&'t str> {
        tree.steps
            .iter()
            .find(|s| s.to == object)
            .map(|s| s.from.as_str())
    }
    let descends = |object: &str, ancestor: &str| {
        let mut current = Some(object);
        while let Some(here) = current {
            if here == ancestor {
                return true;
            }
            current = parent(tree, here);
        }
        false
    };
    let fanning: Vec<&Step> = tree.steps.iter().filter(|s| s.fans_out).collect();
    for (i, first) in fanning.iter().enumerate() {
        for second in &fanning[i + 1..] {
            let nested = descends(&second.from, &first.to) || descends(&first.from, &second.to);
            if !nested {
                return Err(CompileError::FanOutTwice {
                    object: tree.base.clone(),
                    first: first.to.clone(),
                    second: second.to.clone(),
                });
            }
        }
    }
    Ok(())
}

/// A grouping the measured rows reach only up to a shared parent and down
/// to its other rows (driver standings → race → constructor standings →
/// constructor) is no property of those rows: every row would count in
/// every group of its parent. A condition reached so is a plain "some row
/// of the parent" test and stays; a grouping is refused.
pub(super) fn refuse_grouping_through_a_parent(
    tree: &JoinTree,
    plan: &SemanticPlan,
) -> Result<(), CompileError> {
    let path = |object: &str| {
        let mut steps: Vec<&Step> = Vec::new();
        let mut here = object;
        while let Some(step) = tree.steps.iter().find(|s| s.to == here) {
            steps.push(step);
            here = &step.from;
        }
        steps.reverse();
        steps
    };
    for dimension in &plan.dimensions {
        let steps = path(&dimension.object);
        let up_then_down = steps
            .iter()
            .position(|s| !s.fans_out)
            .and_then(|up| steps[up..].iter().find(|s| s.fans_out));
        if let Some(down) = up_then_down {
            return Err(CompileError::GroupedThroughParent {
                measured: tree.base.clone(),
                grouping: dimension.object.clone(),
                parent: down.from.clone(),
            });
        }
    }
    Ok(())
}

/// The objects a query's groupings and conditions read, and the other
/// objects that their attributes' expressions and `measures` name
/// (`driver` for `driver.date_of_birth` in a result's age).
pub(super) fn needed_objects<'a>(
    index: OntologyIndex<'a>,
    dimensions: &'a [AttributeRef],
    filters: &'a [Filter],
    measures: &[&ResolvedMeasure],
) -> Vec<&'a str> {
    let attributes: Vec<&AttributeRef> = dimensions
        .iter()
        .chain(filters.iter().map(|f| &f.attribute))
        .chain(filters.iter().filter_map(|f| f.condition.other_attribute()))
        .collect();
    let named = filters.iter().filter(|f| f.is_named()).filter_map(|f| {
        let object = index.object(&f.attribute.object)?;
        let named = object
            .filters
            .iter()
            .find(|n| n.name == f.attribute.attribute)?;
        Some(named.expr.as_str())
    });
    let texts = attributes
        .iter()
        .filter_map(|a| index.attribute(&a.object, &a.attribute))
        .filter_map(|a| a.expr.as_deref())
        .chain(named)
        .chain(measures.iter().flat_map(|m| m.texts()));
    let mut needed: Vec<&'a str> = attributes.iter().map(|a| a.object.as_str()).collect();
    for text in texts {
        for reference in sql::reference::references_in(text) {
            if let Some(object) = index.object(&reference.object) {
                needed.push(object.name.as_str());
            }
        }
    }
    needed
}

/// The check that every name a plan uses exists.
struct NameCheck<'a> {
    index: OntologyIndex<'a>,
}

impl NameCheck<'_> {
    fn check_plan(&self, plan: &SemanticPlan, problems: &mut Vec<Problem>) {
        for measure in &plan.measures {
            self.check_measure(measure, problems);
        }
        for dimension in &plan.dimensions {
            self.check_attribute(dimension, problems);
        }
        self.check_filters(&plan.filters, problems);
    }

    fn check_measure(&self, measure: &Measure, problems: &mut Vec<Problem>) {
        match measure {
            Measure::Metric { metric, variant } => self.check_metric(metric, variant, problems),
            Measure::CountOf { object } => self.check_object(object, problems),
            Measure::DistinctOf { object, metric } => {
                self.check_object(object, problems);
                self.check_metric(metric, &None, problems);
            }
            Measure::AveragePer { of, per } | Measure::CountPassing { of, per, .. } => {
                self.check_measure(of, problems);
                self.check_attribute(per, problems);
            }
            Measure::Share { part, whole, only } => {
                self.check_measure(part, problems);
                self.check_measure(whole, problems);
                self.check_filters(only, problems);
            }
            Measure::Difference { of, from, minus } => {
                self.check_measure(of, problems);
                self.check_filters(from, problems);
                self.check_filters(minus, problems);
            }
            Measure::Growth { of, .. } | Measure::Cumulative { of, .. } => {
                self.check_measure(of, problems);
            }
            Measure::Aggregate { attribute, .. } => self.check_attribute(attribute, problems),
        }
    }

    fn check_filters(&self, filters: &[Filter], problems: &mut Vec<Problem>) {
        for filter in filters {
            if filter.is_named() {
                self.check_named_filter(&filter.attribute, problems);
                continue;
            }
            if let Condition::PeerOf { of } = &filter.condition {
                self.check_peer(&filter.attribute, problems);
                self.check_filters(of, problems);
                continue;
            }
            self.check_attribute(&filter.attribute, problems);
            if let Some(other) = filter.condition.other_attribute() {
                self.check_attribute(other, problems);
            }
            if let Condition::NotAmong { metric, within } = &filter.condition {
                self.check_metric(metric, &None, problems);
                self.check_filters(within, problems);
            }
        }
    }

    /// A peer's reference names its pairing object and the peer.
    fn check_peer(&self, reference: &AttributeRef, problems: &mut Vec<Problem>) {
        let ontology = self.index.ontology();
        let known = ontology
            .peers
            .iter()
            .any(|p| p.through == reference.object && p.name == reference.attribute);
        if !known {
            let names = ontology.peers.iter().map(|p| p.name.as_str());
            problems.push(Problem {
                error: CompileError::UnknownPeer {
                    object: reference.object.clone(),
                    peer: reference.attribute.clone(),
                },
                suggestion: closest(&reference.attribute, names),
            });
        }
    }

    /// A named filter's reference names its object and the filter.
    fn check_named_filter(&self, reference: &AttributeRef, problems: &mut Vec<Problem>) {
        let Some(object) = self.index.object(&reference.object) else {
            return self.check_object(&reference.object, problems);
        };
        if !object.filters.iter().any(|f| f.name == reference.attribute) {
            let names = object.filters.iter().map(|f| f.name.as_str());
            problems.push(Problem {
                error: CompileError::UnknownFilter {
                    object: reference.object.clone(),
                    filter: reference.attribute.clone(),
                },
                suggestion: closest(&reference.attribute, names),
            });
        }
    }

    fn check_object(&self, name: &str, problems: &mut Vec<Problem>) {
        if self.index.object(name).is_none() {
            let names = self
                .index
                .ontology()
                .objects
                .iter()
                .map(|o| o.name.as_str());
            problems.push(Problem {
                error: CompileError::UnknownObject(name.to_owned()),
                suggestion: closest(name, names),
            });
        }
    }

    fn check_attribute(&self, reference: &AttributeRef, problems: &mut Vec<Problem>) {
        let Some(object) = self.index.object(&reference.object) else {
            return self.check_object(&reference.object, problems);
        };
        if self
            .index
            .attribute(&reference.object, &reference.attribute)
            .is_none()
        {
            let names = object.attributes.iter().map(|a| a.name.as_str());
            problems.push(Problem {
                error: CompileError::UnknownAttribute {
                    object: reference.object.clone(),
                    attribute: reference.attribute.clone(),
                },
                suggestion: closest(&reference.attribute, names),
            });
        }
    }

    /// A variant is checked where the metric has readings to choose from: a
    /// ratio, growth, running total or derived metric given one is refused
    /// later, for what it is.
    fn check_metric(&self, name: &str, variant: &Option<String>, problems: &mut Vec<Problem>) {
        let Some(metric) = self.index.metric(name) else {
            let names = self
                .index
                .ontology()
                .metrics
                .iter()
                .map(|m| m.name.as_str());
            problems.push(Problem {
                error: CompileError::UnknownMetric(name.to_owned()),
                suggestion: closest(name, names),
            });
            return;
        };
        let composite = metric.is_ratio()
            || metric.is_growth()
            || metric.is_cumulative()
            || metric.is_derived();
        if let Some(variant) = variant
            && !composite
            && metric.reading(Some(variant)).is_none()
        {
            let names = metric.variants.iter().map(|v| v.name.as_str());
            problems.push(Problem {
                error: CompileError::UnknownVariant {
                    metric: name.to_owned(),
                    variant: variant.clone(),
                },
                suggestion: closest(variant, names),
            });
        }
    }
}

/// The candidate closest to `wanted` in edit distance, if it is close
/// enough to be a slip (a third of the name's length, at least two edits),
/// or one that contains it or is contained in it.
fn closest<'n>(wanted: &str, candidates: impl Iterator<Item = &'n str>) -> Option<String> {
    let wanted = wanted.to_lowercase();
    let limit = (wanted.chars().count() / 3).max(2);
    candidates
        .filter_map(|candidate| {
            let lower = candidate.to_lowercase();
            let distance = edit_distance(&wanted, &lower);
            let related = lower.contains(&wanted) || wanted.contains(&lower);
            (distance <= limit || related).then_some((distance, candidate))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.to_owned())
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use crate::engine::plan::Literal;
    use crate::ontology::Names;

    fn f1() -> crate::ontology::Ontology {
        crate::ontology::from_yaml(include_str!("../../../../examples/f1/ontology.yaml")).unwrap()
    }

    #[test]
    fn every_missing_name_is_reported_with_the_closest_one() {
        let ontology = f1();
        let names = Names::of(&ontology);
        let plan = SemanticPlan {
            measures: vec![Measure::Metric {
                metric: "wnis".into(),
                variant: None,
            }],
            dimensions: vec![AttributeRef::new("driver", "full_nam")],
            filters: vec![Filter {
                attribute: AttributeRef::new("racer", "year"),
                condition: Condition::OneOf(vec![Literal::Integer(2023)]),
            }],
            ..SemanticPlan::default()
        };
        let problems = resolve(OntologyIndex::new(&ontology, &names), &plan).unwrap_err();
        let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "the ontology has no metric `wnis`; did you mean `wins`?",
                "the object `driver` has no attribute `full_nam`; did you mean `full_name`?",
                "the ontology has no object `racer`; did you mean `race`?",
            ]
        );
    }

    #[test]
    fn a_dimension_on_the_many_side_keeps_one_row_per_measured_row() {
        let ontology = f1();
        let names = Names::of(&ontology);
        let index = OntologyIndex::new(&ontology, &names);
        let per_driver = |metric: &str| SemanticPlan {
            measures: vec![Measure::Metric {
                metric: metric.into(),
                variant: None,
            }],
            dimensions: vec![AttributeRef::new("driver", "full_name")],
            ..SemanticPlan::default()
        };
        let fanning = |plan: &SemanticPlan| match resolve(index, plan).unwrap().shape {
            Shape::Aggregate { fanning, .. } => fanning,
            other => panic!("not an aggregate: {other:?}"),
        };
        assert_eq!(fanning(&per_driver("wins")), Fanning::Direct);
        assert_eq!(fanning(&per_driver("races")), Fanning::PerMeasuredRow);
    }

    #[test]
    fn a_slip_is_close_and_another_word_is_not() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        let names = ["wins", "points", "races"];
        assert_eq!(
            closest("pionts", names.into_iter()).as_deref(),
            Some("points")
        );
        assert_eq!(closest("revenue", names.into_iter()), None);
    }
}
