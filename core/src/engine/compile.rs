//! The deterministic compiler: a semantic plan becomes one SELECT in the
//! source's dialect. Every part is an `sqlparser` AST node (identifiers quoted
//! where needed, values as escaped literals); text from the ontology is parsed
//! as SQL expressions, never pasted.
//!
//! Aggregation never double-counts: joins follow declared relationships, and
//! when a dimension or filter sits on the many side of the measured object the
//! rows are first reduced to one per measured row (by its primary key).
//!
//! The stages, as in MetricFlow: [`resolve`] looks every name of the plan up
//! in the ontology's index (all problems at once) and decides the plan's
//! shape, joins and grain, with no SQL; `lower` (an aggregate or a lookup)
//! and `composite` (measures made of sub-plans: `derived`, `growth`,
//! `running` too) build the SQL tree, asking the source's
//! [`SqlDialect`](crate::sql::SqlDialect) for every rule that differs
//! between engines; `ast` holds the tree's building blocks. The tree is
//! printed once, as the query's text.

use crate::engine::graph::Unreachable;
use crate::engine::plan::{AttributeRef, SemanticPlan};
use crate::ontology::{
    Attribute, AttributeRole, DataType, Grain, Metric, Names, Object, Ontology, OntologyIndex,
};
use crate::project::Dialect;
use crate::sql::{self, SqlDialect, SqlError};
use sqlparser::ast::{Expr, Ident, Query};
use std::collections::BTreeMap;

mod across;
mod ast;
mod composite;
mod derived;
mod grains;
mod growth;
mod lower;
pub mod resolve;
mod running;
mod semi_additive;
mod within;

use ast::{finish, order_by, qualify, substitute};
pub use resolve::Problem;
use resolve::Shape;

/// A plan's SQL and what the response reports about it.
#[derive(Clone, Debug)]
pub struct CompiledQuery {
    pub query: Query,
    pub sql: String,
    /// Output column names, in order.
    pub columns: Vec<String>,
    /// Qualified names of the tables read, the measured object's first.
    pub objects: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    #[error("the plan has nothing to compute or show")]
    EmptyPlan,
    #[error("the ontology has no metric `{0}`")]
    UnknownMetric(String),
    #[error("the metric `{metric}` has no variant `{variant}`")]
    UnknownVariant { metric: String, variant: String },
    #[error("the ontology has no object `{0}`")]
    UnknownObject(String),
    #[error("the object `{object}` has no attribute `{attribute}`")]
    UnknownAttribute { object: String, attribute: String },
    #[error("the object `{object}` has no named filter `{filter}`")]
    UnknownFilter { object: String, filter: String },
    #[error("the ontology has no peer `{peer}` paired through `{object}`")]
    UnknownPeer { object: String, peer: String },
    #[error(
        "the {peer}s of a thing are found from conditions on the thing itself (`{of}`), not on `{object}`"
    )]
    PeerOfElsewhere {
        peer: String,
        of: String,
        object: String,
    },
    #[error("the plan asks for {peer}s without saying whose")]
    PeerOfNobody { peer: String },
    #[error(transparent)]
    Unreachable(#[from] Unreachable),
    #[error(
        "a percentage or an average per group is computed on its own, not beside other measures or per group; ask for it alone"
    )]
    NotAlone,
    #[error(
        "a top few within each group needs a measure to rank by, an order by it and a limit, and groups that are among the plan's dimensions"
    )]
    LimitWithin,
    #[error(
        "{from} holds no direct link to {to}, so Cassis cannot count the distinct {to}s among them"
    )]
    NotLinked { from: String, to: String },
    #[error("{what} reads {object}, which this question's rows do not reach")]
    NotJoined { what: String, object: String },
    #[error(
        "{first} and {second} are measured on different objects; ask for one of them at a time"
    )]
    MixedBases { first: String, second: String },
    #[error(
        "counting {object} per {other} would need {object}'s primary key, which the ontology does not declare"
    )]
    NoPrimaryKey { object: String, other: String },
    #[error(
        "{object} is reached through both {first} and {second}, each with many rows per {object}; ask about one of them at a time"
    )]
    FanOutTwice {
        object: String,
        first: String,
        second: String,
    },
    #[error(
        "{measured} and {grouping} meet only through {parent}, so {measured} cannot be split by {grouping}; ask about them one at a time"
    )]
    GroupedThroughParent {
        measured: String,
        grouping: String,
        parent: String,
    },
    #[error(
        "the variant `{variant}` of `{metric}` adds metrics, which only works for sums and counts on the same dimensions"
    )]
    UnsupportedCombination { metric: String, variant: String },
    #[error(
        "`{0}` is a ratio of two metrics, computed on its own at the question's grain; ask for it without other measures"
    )]
    RatioNotAlone(String),
    #[error(
        "`{0}` is a ratio of two metrics; it cannot be summed, counted over or added to another metric"
    )]
    RatioInside(String),
    #[error(
        "{object}.{attribute} holds no dates (it is {data_type}), so it cannot be read by {grain}"
    )]
    NotADate {
        object: String,
        attribute: String,
        data_type: String,
        grain: &'static str,
    },
    #[error("a year held as a number moves by whole years only, not by a {0}")]
    GrainOfYear(&'static str),
    #[error("the {0} is not a period that follows another, so nothing moves by it")]
    NotAPeriod(&'static str),
    #[error("`{0}` is computed over periods, on its own; ask for it without other measures")]
    GrowthInside(String),
    #[error(
        "a growth compares one period with the one before: name the period (\"in 1996\") or group by one (\"by year\")"
    )]
    GrowthWithoutTime,
    #[error(
        "`{0}` combines other metrics, each computed on its own; ask for it without other measures"
    )]
    DerivedInside(String),
    #[error(
        "a condition on a total (\"more than 50 wins\") applies to a plain measure per group, not to {0}"
    )]
    ThresholdShape(&'static str),
    #[error("the plan's condition on a total names measure {0}, which the plan does not have")]
    ThresholdMeasure(usize),
    #[error(
        "`{0}` is a level read at one time per period (semi-additive); ask for it without other measures"
    )]
    SemiAdditiveNotAlone(String),
    #[error(
        "`{0}` is a level read at one time per period (semi-additive); a running total would count it again in every period"
    )]
    LevelRunningTotal(String),
    #[error(
        "`{metric}` adds each {per}'s level up, which a {aggregate} cannot do; its `semi_additive.per` needs a sum, count, min or max"
    )]
    LevelNotAddedUp {
        metric: String,
        per: String,
        aggregate: &'static str,
    },
    #[error("a running total adds up period after period: group by a period (\"by month\")")]
    CumulativeWithoutTime,
    #[error("a rolling total spans months, quarters or years; group by one of them, not by {0}")]
    RollingGrain(&'static str),
    #[error("the SQL `{text}` of {what} {error}")]
    Expression {
        what: String,
        text: String,
        error: SqlError,
    },
}

/// Compiles `plan` over `ontology` to one SELECT in `dialect`, indexing
/// the ontology's names first; a caller that compiles many plans over one
/// version keeps its [`Names`] and calls [`compile_indexed`].
pub fn compile(
    ontology: &Ontology,
    plan: &SemanticPlan,
    dialect: Dialect,
) -> Result<CompiledQuery, CompileError> {
    let names = Names::of(ontology);
    compile_indexed(OntologyIndex::new(ontology, &names), plan, dialect)
}

/// Compiles `plan` over an indexed ontology to one SELECT in `dialect`;
/// a plan with several problems reports the first.
pub fn compile_indexed(
    index: OntologyIndex<'_>,
    plan: &SemanticPlan,
    dialect: Dialect,
) -> Result<CompiledQuery, CompileError> {
    compile_reporting(index, plan, dialect).map_err(first)
}

/// The first of a plan's problems, where one is enough.
fn first(problems: Vec<Problem>) -> CompileError {
    problems
        .into_iter()
        .next()
        .expect("a plan that does not compile has a problem")
        .error
}

/// Compiles `plan` like [`compile_indexed`], reporting every problem that
/// keeps it from compiling (each missing name with the closest one the
/// ontology has), for an answer that lists them all.
pub fn compile_reporting(
    index: OntologyIndex<'_>,
    plan: &SemanticPlan,
    dialect: Dialect,
) -> Result<CompiledQuery, Vec<Problem>> {
    Compiler {
        ontology: index.ontology(),
        index,
        sql: dialect.sql(),
        shift: None,
        plain: None,
    }
    .compile_reporting(plan)
}

impl Compiler<'_> {
    /// Resolves `plan` (every name, its shape, its joins), then lowers it
    /// to SQL in the compiler's dialect.
    fn compile_reporting(&self, plan: &SemanticPlan) -> Result<CompiledQuery, Vec<Problem>> {
        let resolved = resolve::resolve_reading(self.index, plan, self.plain)?;
        self.lower(plan, resolved.shape)
            .map_err(|error| vec![Problem::from(error)])
    }

    /// [`Self::compile_reporting`] with the first problem, for the
    /// sub-plans of a composite measure.
    fn compile(&self, plan: &SemanticPlan) -> Result<CompiledQuery, CompileError> {
        self.compile_reporting(plan).map_err(first)
    }

    fn lower(&self, plan: &SemanticPlan, shape: Shape) -> Result<CompiledQuery, CompileError> {
        if !plan.limit_within.is_empty() {
            return self.limit_within(plan);
        }
        if let Some(threshold) = plan
            .having
            .iter()
            .find(|t| t.measure >= plan.measures.len())
        {
            return Err(CompileError::ThresholdMeasure(threshold.measure));
        }
        if !plan.having.is_empty() {
            let shape_name = match &shape {
                Shape::Aggregate { .. } => None,
                Shape::Growth { .. } => Some("a growth"),
                Shape::Derived { .. } => Some("a metric derived from others"),
                Shape::Cumulative { .. } => Some("a running total"),
                Shape::SemiAdditive { .. } => Some("a level read at one time"),
                Shape::Share { .. } => Some("a percentage"),
                Shape::AveragePer { .. } => Some("an average per group"),
                Shape::CountPassing { .. } => Some("a count of the groups that pass"),
                Shape::Difference { .. } => Some("a difference"),
                Shape::Ratio { .. } => Some("a ratio"),
                Shape::Lookup { .. } => Some("a list of values"),
                Shape::Combined { .. } => Some("metrics added together"),
                Shape::Across { .. } => Some("measures of different objects"),
            };
            if let Some(name) = shape_name {
                return Err(CompileError::ThresholdShape(name));
            }
        }
        let (query, columns, objects) = match shape {
            Shape::Growth {
                of,
                period,
                periods,
                named,
            } => return self.growth(plan, &of, period, periods, named.as_deref()),
            Shape::Derived { metric } => return self.derived(plan, &metric),
            Shape::SemiAdditive { metric, variant } => {
                return self.semi_additive(plan, &metric, variant);
            }
            Shape::Cumulative {
                of,
                to_date,
                window,
                named,
            } => {
                return self.cumulative(plan, &of, to_date, window, named.as_deref());
            }
            Shape::Share { part, whole, only } => return self.share(plan, &part, &whole, &only),
            Shape::AveragePer { of, per } => return self.average_per(plan, &of, &per),
            Shape::CountPassing { of, per, condition } => {
                return self.count_passing(plan, &of, &per, &condition);
            }
            Shape::Difference { of, from, minus } => {
                return self.difference(plan, &of, &from, &minus);
            }
            Shape::Ratio { metric } => return self.ratio(plan, &metric),
            Shape::Across { groups } => return self.across(plan, &groups),
            Shape::Lookup { tree, dimensions } => self.lookup(plan, &tree, &dimensions)?,
            Shape::Combined { measure } => self.combined(plan, measure)?,
            Shape::Aggregate {
                measures,
                tree,
                fanning,
            } => self.aggregate(plan, &measures, &tree, fanning)?,
        };
        let tables = objects
            .into_iter()
            .map(|name| self.object(&name).map(|o| o.table.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CompiledQuery::new(query, columns, tables))
    }
}

impl CompiledQuery {
    /// The query with its SQL text, and each table read listed once, in the
    /// order first read.
    fn new(query: Query, columns: Vec<String>, tables: Vec<String>) -> Self {
        let mut objects: Vec<String> = Vec::new();
        for table in tables {
            if !objects.contains(&table) {
                objects.push(table);
            }
        }
        CompiledQuery {
            sql: query.to_string(),
            query,
            columns,
            objects,
        }
    }
}

#[derive(Clone, Copy)]
struct Compiler<'a> {
    /// The ontology, for the relationship graph's walks.
    ontology: &'a Ontology,
    /// The ontology's names, for every lookup by name.
    index: OntologyIndex<'a>,
    sql: &'static dyn SqlDialect,
    /// Every time attribute read this many periods later: the earlier side
    /// of a growth, whose 1995 rows stand where the plan names 1996.
    shift: Option<(Grain, u32)>,
    /// The semi-additive metric read as the plain aggregate of its rows:
    /// the rows per time that its level is then read from.
    plain: Option<&'a str>,
}

/// Table aliases: the initials of each object's name (`race_result` is `rr`).
struct Aliases(BTreeMap<String, Ident>);

impl Aliases {
    fn for_objects<'o>(dialect: &dyn SqlDialect, objects: impl Iterator<Item = &'o str>) -> Self {
        let mut aliases = BTreeMap::new();
        let mut taken: Vec<String> = Vec::new();
        for object in objects {
            if aliases.contains_key(object) {
                continue;
            }
            let initials: String = object
                .split('_')
                .filter_map(|part| part.chars().next())
                .filter(char::is_ascii_alphabetic)
                .collect::<String>()
                .to_ascii_lowercase();
            let stem = if initials.is_empty() {
                "t".to_owned()
            } else {
                initials
            };
            let mut alias = stem.clone();
            let mut n = 2;
            while taken.contains(&alias) || dialect.is_reserved(&alias) {
                alias = format!("{stem}{n}");
                n += 1;
            }
            taken.push(alias.clone());
            aliases.insert(object.to_owned(), Ident::new(alias));
        }
        Aliases(aliases)
    }

    fn of(&self, object: &str) -> &Ident {
        &self.0[object]
    }

    /// The alias of `object`, where the query joins it.
    fn get(&self, object: &str) -> Option<&Ident> {
        self.0.get(object)
    }
}

impl<'a> Compiler<'a> {
    /// Parses a query the compiler wrapped around its own output
    /// ("SELECT 100.0 * part.x / … FROM (<compiled>) AS part …").
    fn shell(&self, what: &str, text: String) -> Result<Query, CompileError> {
        sql::parse_select(self.sql.dialect(), &text).map_err(|error| CompileError::Expression {
            what: what.to_owned(),
            text,
            error,
        })
    }

    /// Parses a condition the compiler built from its own renderings.
    fn shell_expression(&self, what: &str, text: String) -> Result<Expr, CompileError> {
        sql::parse_expression(self.sql.dialect(), &text).map_err(|error| CompileError::Expression {
            what: what.to_owned(),
            text,
            error,
        })
    }

    fn object(&self, name: &str) -> Result<&'a Object, CompileError> {
        self.index
            .object(name)
            .ok_or_else(|| CompileError::UnknownObject(name.to_owned()))
    }

    fn metric(&self, name: &str) -> Result<&'a Metric, CompileError> {
        self.index
            .metric(name)
            .ok_or_else(|| CompileError::UnknownMetric(name.to_owned()))
    }

    /// The object and attribute a reference names.
    fn attribute_of(
        &self,
        reference: &AttributeRef,
    ) -> Result<(&'a Object, &'a Attribute), CompileError> {
        let object = self.object(&reference.object)?;
        let attribute = self
            .index
            .attribute(&reference.object, &reference.attribute)
            .ok_or_else(|| CompileError::UnknownAttribute {
                object: reference.object.clone(),
                attribute: reference.attribute.clone(),
            })?;
        Ok((object, attribute))
    }

    fn ident(&self, name: &str) -> Ident {
        self.sql.ident(name)
    }

    /// An expression the ontology writes as text, parsed in this dialect;
    /// `what` names it in the error.
    fn parse(&self, what: &str, text: &str) -> Result<Expr, CompileError> {
        sql::parse_expression(self.sql.dialect(), text).map_err(|error| CompileError::Expression {
            what: what.to_owned(),
            text: text.to_owned(),
            error,
        })
    }

    /// An expression over `object`'s columns, qualified with its alias;
    /// the other objects' attributes it names are read where the query
    /// joins them.
    fn expression(
        &self,
        what: &str,
        text: &str,
        object: &str,
        aliases: &Aliases,
    ) -> Result<Expr, CompileError> {
        let mut expr = self.parse(what, text)?;
        self.read_across(what, &mut expr, aliases)?;
        qualify(&mut expr, aliases.of(object));
        self.write_out(what, text, expr)
    }

    /// Puts each `object.attribute` of `expr` as that attribute's own SQL
    /// over the object's alias. Written out later with the rest: a
    /// dialect's keyword arguments (`day`) would read as columns when
    /// the whole is qualified.
    fn read_across(
        &self,
        what: &str,
        expr: &mut Expr,
        aliases: &Aliases,
    ) -> Result<(), CompileError> {
        for reference in sql::reference::references(expr) {
            let (object, attribute) =
                self.attribute_of(&AttributeRef::new(&reference.object, &reference.attribute))?;
            let alias = aliases
                .get(&object.name)
                .ok_or_else(|| CompileError::NotJoined {
                    what: what.to_owned(),
                    object: object.name.clone(),
                })?;
            let read = match (attribute.column_name(), &attribute.expr) {
                (Some(column), _) => {
                    Expr::CompoundIdentifier(vec![alias.clone(), self.ident(column)])
                }
                (None, Some(text)) => {
                    let mut read =
                        self.parse(&format!("{}.{}", object.name, attribute.name), text)?;
                    qualify(&mut read, alias);
                    Expr::Nested(Box::new(read))
                }
                (None, None) => unreachable!("an attribute without a column reads its own name"),
            };
            let _ = sqlparser::ast::visit_expressions_mut(expr, |e| {
                if let Expr::CompoundIdentifier(parts) = e
                    && let [o, a] = parts.as_slice()
                    && o.value.eq_ignore_ascii_case(&reference.object)
                    && a.value.eq_ignore_ascii_case(&reference.attribute)
                {
                    *e = read.clone();
                }
                std::ops::ControlFlow::<()>::Continue(())
            });
        }
        Ok(())
    }

    /// `expr` with the ontology's portable functions (`days_between`)
    /// written in this dialect; after qualifying, which would otherwise
    /// take a dialect's keyword arguments (`day`) for columns.
    fn write_out(&self, what: &str, text: &str, mut expr: Expr) -> Result<Expr, CompileError> {
        sql::portable::write_out(self.sql.dialect(), &mut expr).map_err(|error| {
            CompileError::Expression {
                what: what.to_owned(),
                text: text.to_owned(),
                error,
            }
        })?;
        Ok(expr)
    }
}

/// The attribute that names an object's rows: the one labelled like the
/// object, else a name (or a text attribute named as the object is), else
/// its one-column key, else its first text attribute that is not a key.
pub fn display_attribute(object: &Object) -> Option<&str> {
    let label = if object.label.is_empty() {
        &object.name
    } else {
        &object.label
    };
    object
        .attributes
        .iter()
        .find(|a| a.label.eq_ignore_ascii_case(label) && a.role != AttributeRole::Identifier)
        .or_else(|| {
            object.attributes.iter().find(|a| {
                a.data_type == DataType::Text
                    && matches!(a.role, AttributeRole::Dimension)
                    && (a.name.contains("name") || a.label.to_lowercase().contains("name"))
            })
        })
        // A status's name is its "status".
        .or_else(|| {
            object
                .attributes
                .iter()
                .find(|a| a.data_type == DataType::Text && a.name == object.name)
        })
        // An order has no name: its number tells one from another, where
        // its status would lump them together.
        .or_else(|| match object.primary_key.as_slice() {
            [key] => object
                .attributes
                .iter()
                .find(|a| a.column_name() == Some(key.as_str()) || a.name == *key),
            _ => None,
        })
        .or_else(|| {
            object
                .attributes
                .iter()
                .find(|a| a.data_type == DataType::Text && a.role == AttributeRole::Dimension)
        })
        .or_else(|| {
            object
                .attributes
                .iter()
                .find(|a| a.role == AttributeRole::Time)
        })
        .map(|a| a.name.as_str())
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::compile;
    use crate::engine::plan::{
        AttributeRef, Condition, Filter, Literal, Measure, Order, SemanticPlan,
    };
    use crate::project::Dialect;

    fn f1() -> crate::ontology::Ontology {
        crate::ontology::from_yaml(include_str!("../../../examples/f1/ontology.yaml")).unwrap()
    }

    fn metric(name: &str, variant: Option<&str>) -> Measure {
        Measure::Metric {
            metric: name.into(),
            variant: variant.map(Into::into),
        }
    }

    #[test]
    fn wins_by_driver_joins_along_relationships() {
        let plan = SemanticPlan {
            measures: vec![metric("wins", None)],
            dimensions: vec![AttributeRef::new("driver", "full_name")],
            filters: vec![Filter {
                attribute: AttributeRef::new("race", "year"),
                condition: Condition::OneOf(vec![Literal::Integer(2023)]),
            }],
            order: Some(Order::Measure {
                index: 0,
                descending: true,
            }),
            ..SemanticPlan::default()
        };
        let compiled = compile(&f1(), &plan, Dialect::Postgres).unwrap();
        assert_eq!(
            compiled.sql,
            "SELECT d.forename || ' ' || d.surname AS full_name, COUNT(*) AS wins \
             FROM public.results rr JOIN public.drivers d ON rr.driver_id = d.driver_id \
             JOIN public.races r ON rr.race_id = r.race_id \
             WHERE r.year = 2023 AND rr.position = 1 \
             GROUP BY d.forename || ' ' || d.surname, d.driver_id ORDER BY wins DESC"
        );
        assert_eq!(
            compiled.objects,
            ["public.results", "public.drivers", "public.races"]
        );
        assert_eq!(compiled.columns, ["full_name", "wins"]);
    }

    #[test]
    fn an_attribute_naming_other_objects_joins_them() {
        // The youngest winner: a result's age reads the driver's birth and
        // the race's day, so both are joined though the plan names neither.
        let plan = SemanticPlan {
            dimensions: vec![AttributeRef::new("race_result", "driver_age")],
            filters: vec![Filter {
                attribute: AttributeRef::new("race_result", "position"),
                condition: Condition::OneOf(vec![Literal::Integer(1)]),
            }],
            order: Some(Order::Dimension {
                index: 0,
                descending: false,
            }),
            limit: Some(1),
            ..SemanticPlan::default()
        };
        let compiled = compile(&f1(), &plan, Dialect::Postgres).unwrap();
        assert_eq!(
            compiled.sql,
            "SELECT DISTINCT (CAST(r.date AS DATE) - CAST(d.dob AS DATE)) / 365.25 AS driver_age \
             FROM public.results rr JOIN public.drivers d ON rr.driver_id = d.driver_id \
             JOIN public.races r ON rr.race_id = r.race_id \
             WHERE rr.position = 1 ORDER BY driver_age ASC LIMIT 1"
        );
        // An average of it, too, joins what it reads.
        let average = SemanticPlan {
            measures: vec![Measure::Aggregate {
                attribute: AttributeRef::new("race_result", "driver_age"),
                aggregate: crate::ontology::Aggregate::Avg,
            }],
            filters: plan.filters.clone(),
            ..SemanticPlan::default()
        };
        let compiled = compile(&f1(), &average, Dialect::Sqlite).unwrap();
        assert!(
            compiled
                .sql
                .contains("julianday(date(r.date)) - julianday(date(d.dob))"),
            "{}",
            compiled.sql
        );
        assert_eq!(
            compiled.objects,
            ["public.results", "public.drivers", "public.races"]
        );
    }

    #[test]
    fn an_attribute_naming_an_unknown_object_is_an_error_not_sql() {
        let mut ontology = f1();
        let driver = ontology
            .objects
            .iter_mut()
            .find(|o| o.name == "driver")
            .unwrap();
        let nationality = driver
            .attributes
            .iter_mut()
            .find(|a| a.name == "nationality")
            .unwrap();
        nationality.expr = Some("passport.country".into());
        nationality.column = None;
        let plan = SemanticPlan {
            dimensions: vec![AttributeRef::new("driver", "nationality")],
            ..SemanticPlan::default()
        };
        let error = compile(&ontology, &plan, Dialect::Postgres).unwrap_err();
        assert!(error.to_string().contains("passport"), "{error}");
    }

    #[test]
    fn points_with_sprints_are_a_union_of_both_results() {
        let plan = SemanticPlan {
            measures: vec![metric("points", Some("race_and_sprint"))],
            dimensions: vec![AttributeRef::new("race", "year")],
            filters: vec![Filter {
                attribute: AttributeRef::new("race", "year"),
                condition: Condition::OneOf(vec![Literal::Integer(2022), Literal::Integer(2023)]),
            }],
            ..SemanticPlan::default()
        };
        let compiled = compile(&f1(), &plan, Dialect::Sqlite).unwrap();
        assert!(compiled.sql.contains("UNION ALL"), "{}", compiled.sql);
        assert_eq!(
            compiled.objects,
            ["public.results", "public.sprint_results", "public.races"]
        );
    }

    #[test]
    fn counting_races_per_driver_does_not_double_count() {
        let plan = SemanticPlan {
            measures: vec![metric("races", None)],
            dimensions: vec![AttributeRef::new("driver", "full_name")],
            ..SemanticPlan::default()
        };
        let compiled = compile(&f1(), &plan, Dialect::Postgres).unwrap();
        assert!(
            compiled.sql.contains("SELECT DISTINCT r.race_id AS key_0"),
            "{}",
            compiled.sql
        );
    }

    #[test]
    fn every_dialect_reads_back_what_it_was_given() {
        let plan = SemanticPlan {
            measures: vec![metric("points", Some("race_and_sprint"))],
            dimensions: vec![
                AttributeRef::new("constructor", "constructor_name"),
                AttributeRef::new("race", "race_date").by_year(),
            ],
            filters: vec![Filter {
                attribute: AttributeRef::new("race", "year"),
                condition: Condition::Between(Literal::Integer(2020), Literal::Integer(2023)),
            }],
            order: Some(Order::Measure {
                index: 0,
                descending: true,
            }),
            limit: Some(10),
            ..SemanticPlan::default()
        };
        let ratio = SemanticPlan {
            measures: vec![metric("win_rate", None)],
            ..plan.clone()
        };
        for dialect in [
            Dialect::Sqlite,
            Dialect::Postgres,
            Dialect::Snowflake,
            Dialect::BigQuery,
            Dialect::MySql,
            Dialect::DuckDb,
            Dialect::Redshift,
            Dialect::Databricks,
        ] {
            for plan in [&plan, &ratio] {
                let compiled = compile(&f1(), plan, dialect).unwrap();
                let reparsed = crate::sql::parse_select(dialect, &compiled.sql)
                    .unwrap_or_else(|e| panic!("{dialect:?}: {e}: {}", compiled.sql));
                assert_eq!(reparsed.to_string(), compiled.sql, "{dialect:?}");
            }
        }
    }

    fn in_2023() -> Filter {
        Filter {
            attribute: AttributeRef::new("race", "year"),
            condition: Condition::OneOf(vec![Literal::Integer(2023)]),
        }
    }

    #[test]
    fn a_ratio_alone_divides_two_one_row_subqueries() {
        let plan = SemanticPlan {
            measures: vec![metric("win_rate", None)],
            filters: vec![in_2023()],
            ..SemanticPlan::default()
        };
        let compiled = compile(&f1(), &plan, Dialect::Postgres).unwrap();
        assert_eq!(
            compiled.sql,
            "SELECT 100.0 * COALESCE(numerator.wins, 0) / NULLIF(denominator.starts, 0) AS win_rate \
             FROM (SELECT COUNT(*) AS wins FROM public.results rr \
             JOIN public.races r ON rr.race_id = r.race_id \
             WHERE r.year = 2023 AND rr.position = 1) AS numerator \
             CROSS JOIN (SELECT COUNT(*) AS starts FROM public.results rr \
             JOIN public.races r ON rr.race_id = r.race_id WHERE r.year = 2023) AS denominator"
        );
        assert_eq!(compiled.columns, ["win_rate"]);
        assert_eq!(compiled.objects, ["public.results", "public.races"]);
    }

    #[test]
    fn a_ratio_per_group_joins_both_sides_on_the_group_keys() {
        let plan = SemanticPlan {
            measures: vec![metric("win_rate", None)],
            dimensions: vec![AttributeRef::new("driver", "full_name")],
            filters: vec![in_2023()],
            limit: Some(5),
            ..SemanticPlan::default()
        };
        let compiled = compile(&f1(), &plan, Dialect::Postgres).unwrap();
        // Each side counts per driver (by name and key, as two drivers may
        // share a name) before dividing; every driver with a start is kept.
        assert_eq!(
            compiled.sql,
            "SELECT denominator.full_name AS full_name, \
             100.0 * COALESCE(numerator.wins, 0) / NULLIF(denominator.starts, 0) AS win_rate \
             FROM (SELECT d.forename || ' ' || d.surname AS full_name, d.driver_id AS driver_id, \
             COUNT(*) AS starts FROM public.results rr \
             JOIN public.drivers d ON rr.driver_id = d.driver_id \
             JOIN public.races r ON rr.race_id = r.race_id WHERE r.year = 2023 \
             GROUP BY d.forename || ' ' || d.surname, d.driver_id) AS denominator \
             LEFT JOIN (SELECT d.forename || ' ' || d.surname AS full_name, d.driver_id AS driver_id, \
             COUNT(*) AS wins FROM public.results rr \
             JOIN public.drivers d ON rr.driver_id = d.driver_id \
             JOIN public.races r ON rr.race_id = r.race_id WHERE r.year = 2023 AND rr.position = 1 \
             GROUP BY d.forename || ' ' || d.surname, d.driver_id) AS numerator \
             ON numerator.full_name = denominator.full_name AND numerator.driver_id = denominator.driver_id \
             ORDER BY win_rate DESC LIMIT 5"
        );
        assert_eq!(compiled.columns, ["full_name", "win_rate"]);
    }

    #[test]
    fn a_ratio_beside_another_measure_or_inside_one_is_refused() {
        let beside = SemanticPlan {
            measures: vec![metric("wins", None), metric("win_rate", None)],
            ..SemanticPlan::default()
        };
        assert_eq!(
            compile(&f1(), &beside, Dialect::Sqlite).unwrap_err(),
            super::CompileError::RatioNotAlone("win_rate".into())
        );
        let counted = SemanticPlan {
            measures: vec![Measure::DistinctOf {
                object: "driver".into(),
                metric: "win_rate".into(),
            }],
            ..SemanticPlan::default()
        };
        assert_eq!(
            compile(&f1(), &counted, Dialect::Sqlite).unwrap_err(),
            super::CompileError::RatioInside("win_rate".into())
        );
    }

    #[test]
    fn text_values_are_escaped_literals() {
        let plan = SemanticPlan {
            dimensions: vec![AttributeRef::new("driver", "nationality")],
            filters: vec![Filter {
                attribute: AttributeRef::new("driver", "full_name"),
                condition: Condition::OneOf(vec![Literal::Text(
                    "O'Brien'; DROP TABLE x; --".into(),
                )]),
            }],
            ..SemanticPlan::default()
        };
        let compiled = compile(&f1(), &plan, Dialect::Postgres).unwrap();
        assert!(
            compiled.sql.contains("'O''Brien''; DROP TABLE x; --'"),
            "{}",
            compiled.sql
        );
        crate::sql::parse_select(Dialect::Postgres, &compiled.sql).unwrap();
    }
}
