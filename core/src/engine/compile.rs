//! The deterministic compiler: a semantic plan becomes one SELECT in the
//! source's dialect. Every part is an `sqlparser` AST node (identifiers quoted
//! where needed, values as escaped literals); text from the ontology is parsed
//! as SQL expressions, never pasted.
//!
//! Aggregation never double-counts: joins follow declared relationships, and
//! when a dimension or filter sits on the many side of the measured object the
//! rows are first reduced to one per measured row (by its primary key).

use crate::engine::graph::{self, JoinTree, Unreachable};
use crate::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, Order, SemanticPlan, TimeBucket,
};
use crate::ontology::{
    Aggregate, Attribute, AttributeRole, DataType, Grain, Metric, Names, Object, Ontology,
    OntologyIndex,
};
use crate::project::Dialect;
use crate::sql::{self, SqlDialect, SqlError};
use sqlparser::ast::{
    BinaryOperator, Distinct, Expr, GroupByExpr, Ident, InTarget, Join, JoinConstraint,
    JoinOperator, ObjectName, OrderBy, OrderByExpr, OrderByKind, OrderByOptions, OrderBySort,
    Query, Select, SelectItem, SetExpr, SetOperator, SetQuantifier, TableAlias, TableFactor,
    TableWithJoins, Value, visit_expressions_mut,
};
use std::collections::BTreeMap;
use std::ops::ControlFlow;

mod derived;
mod grains;
mod growth;
pub mod resolve;
mod running;

use resolve::{Fanning, Input, ResolvedMeasure, Shape, needed_objects, refuse_chasm_trap};

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
    #[error(transparent)]
    Unreachable(#[from] Unreachable),
    #[error(
        "a percentage or an average per group is computed on its own, not beside other measures or per group; ask for it alone"
    )]
    NotAlone,
    #[error(
        "{from} holds no direct link to {to}, so Cassis cannot count the distinct {to}s among them"
    )]
    NotLinked { from: String, to: String },
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
    #[error("a running total adds up period after period: group by a period (\"by month\")")]
    CumulativeWithoutTime,
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

/// Compiles `plan` over an indexed ontology to one SELECT in `dialect`.
pub fn compile_indexed(
    index: OntologyIndex<'_>,
    plan: &SemanticPlan,
    dialect: Dialect,
) -> Result<CompiledQuery, CompileError> {
    Compiler {
        ontology: index.ontology(),
        index,
        sql: dialect.sql(),
        shift: None,
    }
    .compile(plan)
}

impl Compiler<'_> {
    /// Resolves `plan` (every name, its shape, its joins), then lowers it
    /// to SQL in the compiler's dialect. A plan with several problems
    /// reports the first; [`resolve::resolve`] has them all.
    fn compile(&self, plan: &SemanticPlan) -> Result<CompiledQuery, CompileError> {
        let resolved = resolve::resolve(self.index, plan).map_err(|problems| {
            problems
                .into_iter()
                .next()
                .expect("a plan that does not resolve has a problem")
                .error
        })?;
        self.lower(plan, resolved.shape)
    }

    fn lower(&self, plan: &SemanticPlan, shape: Shape) -> Result<CompiledQuery, CompileError> {
        let (query, columns, objects) = match shape {
            Shape::Growth {
                of,
                period,
                periods,
                named,
            } => return self.growth(plan, &of, period, periods, named.as_deref()),
            Shape::Derived { metric } => return self.derived(plan, &metric),
            Shape::Cumulative { of, to_date, named } => {
                return self.cumulative(plan, &of, to_date, named.as_deref());
            }
            Shape::Share { part, whole, only } => return self.share(plan, &part, &whole, &only),
            Shape::AveragePer { of, per } => return self.average_per(plan, &of, &per),
            Shape::Difference { of, from, minus } => {
                return self.difference(plan, &of, &from, &minus);
            }
            Shape::Ratio { metric } => return self.ratio(plan, &metric),
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
}

impl<'a> Compiler<'a> {
    /// `AVG(m)` over the plan of `of` grouped by `per`: the average of the
    /// measure's value per group ("average points per race").
    fn average_per(
        &self,
        plan: &SemanticPlan,
        of: &Measure,
        per: &AttributeRef,
    ) -> Result<CompiledQuery, CompileError> {
        if !plan.dimensions.is_empty() || of.is_composite() {
            return Err(CompileError::NotAlone);
        }
        let grouped = SemanticPlan {
            measures: vec![of.clone()],
            dimensions: vec![per.clone()],
            filters: plan.filters.clone(),
            via: plan.via.clone(),
            ..SemanticPlan::default()
        };
        let inner = self.compile(&grouped)?;
        let measured = inner.columns.last().cloned().unwrap_or_default();
        let name = format!("average_{measured}_per_{}", per.object);
        let ident = |text: &str| self.sql.ident(text).to_string();
        // The grouped query is the compiler's own output; only the shell is new.
        let text = format!(
            "SELECT AVG(per_group.{}) AS {} FROM ({}) AS per_group",
            ident(&measured),
            ident(&name),
            inner.sql,
        );
        let query = self.shell("the average per group", text)?;
        Ok(CompiledQuery::new(query, vec![name], inner.objects))
    }

    /// `key NOT IN (SELECT fk FROM <metric's table> [JOIN ...] WHERE <its
    /// conditions> [AND <within>] AND fk IS NOT NULL)`: the rows of `object`
    /// the metric counts nothing for, among the rows `within` keeps. The NULL
    /// guard keeps one row without a link from emptying the answer, as NOT IN
    /// over a NULL would. The subquery's aliases are its own scope.
    fn not_among(
        &self,
        key: Expr,
        object: &str,
        metric: &str,
        within: &[Filter],
    ) -> Result<Expr, CompileError> {
        let resolved = resolve::metric(self.index, metric, None, 0)?;
        let fk = graph::direct_link(self.ontology, &resolved.base, object)
            .map(|key| key.from.clone())
            .ok_or_else(|| CompileError::NotLinked {
                from: resolved.base.clone(),
                to: object.to_owned(),
            })?;
        let needed: Vec<&str> = within.iter().map(|f| f.attribute.object.as_str()).collect();
        let tree = graph::join_tree(self.ontology, &resolved.base, &needed)?;
        refuse_chasm_trap(&tree)?;
        let aliases = Aliases::for_objects(self.sql, tree.objects());
        let base = aliases.of(&resolved.base).clone();
        let fk = Expr::CompoundIdentifier(vec![base.clone(), self.ident(&fk)]);
        let mut extra = vec![Expr::IsNotNull(Box::new(fk.clone()))];
        let (input, condition) = self.measure_parts(&resolved, &base)?;
        extra.extend(condition);
        // "never scored a point": a sum is nothing where every row adds
        // nothing, so only the rows that add something exclude.
        if resolved.aggregate == Aggregate::Sum
            && let Some(input) = input
        {
            extra.push(binary(input, BinaryOperator::NotEq, Expr::value(number(0))));
        }
        let mut select = empty_select();
        select.projection = vec![SelectItem::UnnamedExpr(fk)];
        select.from = vec![self.joined_tables(&tree, &aliases)?];
        select.selection = self.where_clause(within, extra, &aliases)?;
        Ok(Expr::In {
            expr: Box::new(key),
            target: InTarget::Subquery(Box::new(query_of(SetExpr::Select(Box::new(select))))),
            negated: true,
            global: false,
        })
    }

    /// `column = (SELECT MAX(x.column) FROM <its table> x [WHERE x.key IN
    /// (SELECT fk FROM <among's table>)])`: the latest value, among the rows
    /// another object has ("the most recent race" that has results).
    fn extreme(
        &self,
        column: Expr,
        attribute: &AttributeRef,
        latest: bool,
        among: Option<&str>,
        siblings: &[&Filter],
    ) -> Result<Expr, CompileError> {
        let object = self.object(&attribute.object)?;
        let own = Ident::new("extreme");
        let mut scoped = Aliases(BTreeMap::new());
        scoped.0.insert(object.name.clone(), own.clone());
        let value = self.attribute(attribute, &scoped)?;
        let table = self.table(object, &own)?;
        // "the first race of 2009": the earliest among the races of 2009.
        let mut own_conditions = Vec::new();
        for sibling in siblings {
            own_conditions.push(self.filter(sibling, &scoped)?.to_string());
        }
        let link = among.and_then(|among| {
            graph::direct_link(self.ontology, among, &object.name)
                .map(|key| (among, key.from.clone(), key.to.clone()))
        });
        let scope = match link {
            Some((among, fk, key)) => {
                let rows = self.object(among)?;
                let inner = Ident::new("having_rows");
                format!(
                    " WHERE {}.{} IN (SELECT {}.{} FROM {})",
                    own,
                    self.ident(&key),
                    inner,
                    self.ident(&fk),
                    self.table(rows, &inner)?
                )
            }
            None => String::new(),
        };
        let scope = match (scope.is_empty(), own_conditions.is_empty()) {
            (_, true) => scope,
            (true, false) => format!(" WHERE {}", own_conditions.join(" AND ")),
            (false, false) => format!("{scope} AND {}", own_conditions.join(" AND ")),
        };
        let aggregate = if latest { "MAX" } else { "MIN" };
        // Every part is the compiler's own rendering; only the shell is new.
        let text = format!("{column} = (SELECT {aggregate}({value}) FROM {table}{scope})");
        let which = if latest { "latest" } else { "earliest" };
        self.shell_expression(&format!("the {which} {}", attribute.attribute), text)
    }

    /// `100.0 * part / whole` over two one-row subqueries, each compiled as
    /// its own plan: the part with the plan's filters and its own, the whole
    /// with the plan's filters alone. Either may be measured on a different
    /// object ("wins" on results over "races" on races).
    fn share(
        &self,
        plan: &SemanticPlan,
        part: &Measure,
        whole: &Measure,
        only: &[Filter],
    ) -> Result<CompiledQuery, CompileError> {
        let nested = |m: &Measure| matches!(m, Measure::Share { .. });
        if !plan.dimensions.is_empty() || nested(part) || nested(whole) {
            return Err(CompileError::NotAlone);
        }
        let part = self.alone(plan, part, only)?;
        let whole = self.alone(plan, whole, &[])?;
        let name = format!("{}_percentage", part.columns[0]);
        self.side_by_side(
            "the percentage",
            name,
            [("part", part), ("whole", whole)],
            |p, w| format!("100.0 * {p} / NULLIF({w}, 0)"),
        )
    }

    /// A ratio metric: its numerator and its denominator each aggregated on
    /// their own, under the plan's filters and at the plan's grain, then
    /// divided; never an average of ratios. Without dimensions they are two
    /// one-row subqueries side by side; with dimensions, one subquery per
    /// side grouped the same way, joined on the group keys, every group of
    /// the denominator kept (a driver without a win has a win rate of 0).
    fn ratio(&self, plan: &SemanticPlan, name: &str) -> Result<CompiledQuery, CompileError> {
        let metric = self.metric(name)?;
        let side = |metric: &Option<String>| Measure::Metric {
            metric: metric.clone().unwrap_or_default(),
            variant: None,
        };
        let (numerator, denominator) = (side(&metric.numerator), side(&metric.denominator));
        // Zero anything over zero things is no figure; nothing over some
        // things is zero. `1.0 *` keeps integer counts from dividing as integers.
        let divide = |n: &str, d: &str| format!("1.0 * COALESCE({n}, 0) / NULLIF({d}, 0)");
        if plan.dimensions.is_empty() {
            let numerator = self.alone(plan, &numerator, &[])?;
            let denominator = self.alone(plan, &denominator, &[])?;
            return self.side_by_side(
                "the ratio",
                name.to_owned(),
                [("numerator", numerator), ("denominator", denominator)],
                divide,
            );
        }
        // Two drivers may share a name: each side groups by the key of what a
        // name names as well, and the sides join on it.
        let keys = self.group_keys(plan)?;
        let grouped = |measure: Measure| -> Result<CompiledQuery, CompileError> {
            let side = SemanticPlan {
                measures: vec![measure],
                dimensions: keys.clone(),
                filters: plan.filters.clone(),
                via: plan.via.clone(),
                ..SemanticPlan::default()
            };
            let mut compiled = self.compile(&side)?;
            // The outer query orders; a subquery's order is wasted work.
            compiled.query.order_by = None;
            compiled.sql = compiled.query.to_string();
            Ok(compiled)
        };
        let numerator = grouped(numerator)?;
        let denominator = grouped(denominator)?;
        let ident = |text: &str| self.sql.ident(text).to_string();
        let value = |alias: &str, side: &CompiledQuery| {
            format!(
                "{alias}.{}",
                ident(side.columns.last().map_or("", String::as_str))
            )
        };
        let shown: Vec<String> = plan.dimensions.iter().map(|d| d.column()).collect();
        let projection = shown
            .iter()
            .map(|c| format!("denominator.{0} AS {0}", ident(c)))
            .chain(std::iter::once(format!(
                "{} AS {}",
                divide(
                    &value("numerator", &numerator),
                    &value("denominator", &denominator)
                ),
                ident(name)
            )))
            .collect::<Vec<_>>()
            .join(", ");
        let on = keys
            .iter()
            .map(|k| format!("numerator.{0} = denominator.{0}", ident(&k.column())))
            .collect::<Vec<_>>()
            .join(" AND ");
        // Both subqueries are the compiler's own output; only the shell is new.
        let text = format!(
            "SELECT {projection} FROM ({}) AS denominator LEFT JOIN ({}) AS numerator ON {on}",
            denominator.sql, numerator.sql,
        );
        let select = match *self.shell("the ratio", text)?.body {
            SetExpr::Select(select) => *select,
            _ => unreachable!("the ratio's shell is a plain SELECT"),
        };
        let order = self.order(plan, &[name])?;
        let query = finish(self.sql, select, order, plan.limit);
        let mut columns = shown;
        columns.push(name.to_owned());
        let objects = numerator
            .objects
            .into_iter()
            .chain(denominator.objects)
            .collect();
        Ok(CompiledQuery::new(query, columns, objects))
    }

    /// "How many more races in 2024 than in 2014": the measure under each
    /// side's conditions, one subtracted from the other.
    fn difference(
        &self,
        plan: &SemanticPlan,
        of: &Measure,
        from: &[Filter],
        minus: &[Filter],
    ) -> Result<CompiledQuery, CompileError> {
        if !plan.dimensions.is_empty() || of.is_composite() {
            return Err(CompileError::NotAlone);
        }
        let one = self.alone(plan, of, from)?;
        let other = self.alone(plan, of, minus)?;
        let name = format!("{}_difference", one.columns[0]);
        // An empty side counts as nothing, so "none in 1950" still subtracts.
        self.side_by_side(
            "the difference",
            name,
            [("one_side", one), ("other_side", other)],
            |a, b| format!("COALESCE({a}, 0) - COALESCE({b}, 0)"),
        )
    }

    /// One measure alone, under the plan's filters and `own`: a side of a
    /// percentage or a difference.
    fn alone(
        &self,
        plan: &SemanticPlan,
        measure: &Measure,
        own: &[Filter],
    ) -> Result<CompiledQuery, CompileError> {
        let alone = SemanticPlan {
            measures: vec![measure.clone()],
            filters: plan.filters.iter().chain(own).cloned().collect(),
            via: plan.via.clone(),
            ..SemanticPlan::default()
        };
        self.compile(&alone)
    }

    /// `expression` of two one-column subqueries, each the compiler's own
    /// output under its alias; only the shell around them is new.
    fn side_by_side(
        &self,
        what: &str,
        name: String,
        sides: [(&str, CompiledQuery); 2],
        expression: impl Fn(&str, &str) -> String,
    ) -> Result<CompiledQuery, CompileError> {
        let ident = |text: &str| self.sql.ident(text).to_string();
        let [(a, one), (b, other)] = sides;
        let column =
            |alias: &str, side: &CompiledQuery| format!("{alias}.{}", ident(&side.columns[0]));
        let text = format!(
            "SELECT {} AS {} FROM ({}) AS {a} CROSS JOIN ({}) AS {b}",
            expression(&column(a, &one), &column(b, &other)),
            ident(&name),
            one.sql,
            other.sql,
        );
        let query = self.shell(what, text)?;
        let objects = one.objects.into_iter().chain(other.objects).collect();
        Ok(CompiledQuery::new(query, vec![name], objects))
    }

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

    /// An expression over one object's columns, qualified with its alias.
    fn expression(&self, what: &str, text: &str, alias: &Ident) -> Result<Expr, CompileError> {
        let mut expr = sql::parse_expression(self.sql.dialect(), text).map_err(|error| {
            CompileError::Expression {
                what: what.to_owned(),
                text: text.to_owned(),
                error,
            }
        })?;
        qualify(&mut expr, alias);
        Ok(expr)
    }

    fn attribute(&self, reference: &AttributeRef, aliases: &Aliases) -> Result<Expr, CompileError> {
        let (object, attribute) = self.attribute_of(reference)?;
        let alias = aliases.of(&object.name);
        let expr = match (attribute.column_name(), &attribute.expr) {
            (Some(column), _) => Expr::CompoundIdentifier(vec![alias.clone(), self.ident(column)]),
            (None, Some(expr)) => {
                self.expression(&format!("{}.{}", object.name, attribute.name), expr, alias)?
            }
            (None, None) => unreachable!("an attribute without a column reads its own name"),
        };
        let expr = match self.shift {
            Some((grain, periods)) if attribute.role == AttributeRole::Time => grains::shift(
                self.sql,
                grain,
                i64::from(periods),
                expr,
                attribute.data_type,
            )?,
            _ => expr,
        };
        let Some(grain) = reference.bucket else {
            return Ok(expr);
        };
        // "races by year" where the year is a number is the number itself.
        if grain == TimeBucket::Year && attribute.data_type == DataType::Integer {
            return Ok(expr);
        }
        if !grains::holds_dates(attribute) {
            return Err(CompileError::NotADate {
                object: reference.object.clone(),
                attribute: reference.attribute.clone(),
                data_type: format!("{:?}", attribute.data_type).to_lowercase(),
                grain: grain.name(),
            });
        }
        Ok(grains::bucket(self.sql, grain, expr, attribute.data_type))
    }

    fn attribute_type(&self, reference: &AttributeRef) -> Option<DataType> {
        self.index
            .attribute(&reference.object, &reference.attribute)
            .map(|a| a.data_type)
    }

    /// What a measure aggregates and the condition its rows meet, over the
    /// measured object's alias.
    fn measure_parts(
        &self,
        measure: &ResolvedMeasure,
        alias: &Ident,
    ) -> Result<(Option<Expr>, Option<Expr>), CompileError> {
        let input = measure
            .input
            .as_ref()
            .map(|input| self.input(&measure.name, input, alias))
            .transpose()?;
        let condition = measure
            .filters
            .iter()
            .map(|text| self.expression(&measure.name, text, alias))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .reduce(and);
        Ok((input, condition))
    }

    /// What a measure aggregates, over the measured object's alias.
    fn input(&self, what: &str, input: &Input, alias: &Ident) -> Result<Expr, CompileError> {
        match input {
            Input::Sql(text) => self.expression(what, text, alias),
            Input::Column(column) => Ok(Expr::CompoundIdentifier(vec![
                alias.clone(),
                self.ident(column),
            ])),
        }
    }

    fn filter(&self, filter: &Filter, aliases: &Aliases) -> Result<Expr, CompileError> {
        let column = self.attribute(&filter.attribute, aliases)?;
        if let Condition::NotAmong { metric, within } = &filter.condition {
            return self.not_among(column, &filter.attribute.object, metric, within);
        }
        if let Condition::Extreme { latest, among } = &filter.condition {
            return self.extreme(column, &filter.attribute, *latest, among.as_deref(), &[]);
        }
        if let Some(other) = filter.condition.other_attribute() {
            // Both sides are columns of the one row, so dates compare as
            // they are stored (ISO text sorts as the dates do).
            let op = match filter.condition {
                Condition::AboveAttribute(_) => BinaryOperator::Gt,
                _ => BinaryOperator::Lt,
            };
            return Ok(binary(column, op, self.attribute(other, aliases)?));
        }
        let is_date = matches!(
            self.attribute_type(&filter.attribute),
            Some(DataType::Date | DataType::Timestamp)
        );
        if is_date {
            return Ok(year_filter_on_date(column, &filter.condition));
        }
        Ok(comparison(column, &filter.condition))
    }

    fn where_clause(
        &self,
        filters: &[Filter],
        extra: Vec<Expr>,
        aliases: &Aliases,
    ) -> Result<Option<Expr>, CompileError> {
        let mut conditions = Vec::new();
        for filter in filters {
            let Condition::Extreme { latest, among } = &filter.condition else {
                conditions.push(self.filter(filter, aliases)?);
                continue;
            };
            // The plan's other conditions on the same object narrow the rows
            // the extreme is taken over.
            let siblings: Vec<&Filter> = filters
                .iter()
                .filter(|other| {
                    other.attribute.object == filter.attribute.object
                        && !matches!(
                            other.condition,
                            Condition::Extreme { .. } | Condition::NotAmong { .. }
                        )
                })
                .collect();
            let column = self.attribute(&filter.attribute, aliases)?;
            conditions.push(self.extreme(
                column,
                &filter.attribute,
                *latest,
                among.as_deref(),
                &siblings,
            )?);
        }
        conditions.extend(extra);
        Ok(conditions.into_iter().reduce(and))
    }

    fn joined_tables(
        &self,
        tree: &JoinTree,
        aliases: &Aliases,
    ) -> Result<TableWithJoins, CompileError> {
        let base = self.object(&tree.base)?;
        let mut joins = Vec::new();
        for step in &tree.steps {
            let relationship = &self.ontology.relationships[step.relationship];
            let to = self.object(&step.to)?;
            let on = relationship
                .keys
                .iter()
                .map(|key| {
                    let from_column = Expr::CompoundIdentifier(vec![
                        aliases.of(&relationship.from).clone(),
                        self.ident(&key.from),
                    ]);
                    let to_column = Expr::CompoundIdentifier(vec![
                        aliases.of(&relationship.to).clone(),
                        self.ident(&key.to),
                    ]);
                    binary(from_column, BinaryOperator::Eq, to_column)
                })
                .reduce(and)
                .unwrap_or_else(|| Expr::value(Value::Boolean(true)));
            joins.push(Join {
                relation: self.table(to, aliases.of(&to.name))?,
                global: false,
                join_operator: JoinOperator::Join(JoinConstraint::On(on)),
            });
        }
        Ok(TableWithJoins {
            relation: self.table(base, aliases.of(&base.name))?,
            joins,
        })
    }

    fn table(&self, object: &Object, alias: &Ident) -> Result<TableFactor, CompileError> {
        let name = sql::parse_table_name(self.sql.dialect(), &object.table).map_err(|error| {
            CompileError::Expression {
                what: format!("the table of {}", object.name),
                text: object.table.clone(),
                error,
            }
        })?;
        Ok(table_factor(name, alias.clone()))
    }

    fn lookup(
        &self,
        plan: &SemanticPlan,
        tree: &JoinTree,
        dimensions: &[AttributeRef],
    ) -> Result<(Query, Vec<String>, Vec<String>), CompileError> {
        let aliases = Aliases::for_objects(self.sql, tree.objects());
        let mut projection = Vec::new();
        let mut columns = Vec::new();
        for dimension in dimensions {
            let expr = self.attribute(dimension, &aliases)?;
            projection.push(select_item(expr, &dimension.column()));
            columns.push(dimension.column());
        }
        let mut select = empty_select();
        select.distinct = Some(Distinct::Distinct);
        select.projection = projection;
        select.from = vec![self.joined_tables(tree, &aliases)?];
        select.selection = self.where_clause(&plan.filters, Vec::new(), &aliases)?;
        let order = match plan.order {
            Some(Order::Dimension { index, descending }) if index < dimensions.len() => {
                vec![order_by(
                    Expr::Identifier(self.ident(&columns[index])),
                    descending,
                )]
            }
            _ => vec![order_by(Expr::Identifier(self.ident(&columns[0])), false)],
        };
        let query = finish(self.sql, select, order, plan.limit);
        Ok((query, columns, tree.objects().map(str::to_owned).collect()))
    }

    fn aggregate(
        &self,
        plan: &SemanticPlan,
        measures: &[ResolvedMeasure],
        tree: &JoinTree,
        fanning: Fanning,
    ) -> Result<(Query, Vec<String>, Vec<String>), CompileError> {
        let aliases = Aliases::for_objects(self.sql, tree.objects());
        let objects = tree.objects().map(str::to_owned).collect();
        let query = match fanning {
            Fanning::PerMeasuredRow => self.grain_preserving(plan, measures, tree, &aliases)?,
            Fanning::Direct => self.direct(plan, measures, tree, &aliases)?,
        };
        let columns = output_columns(plan, measures);
        Ok((query, columns, objects))
    }

    /// SELECT dims, AGG(...) FROM base JOIN lookups WHERE ... GROUP BY dims.
    fn direct(
        &self,
        plan: &SemanticPlan,
        measures: &[ResolvedMeasure],
        tree: &JoinTree,
        aliases: &Aliases,
    ) -> Result<Query, CompileError> {
        let base_alias = aliases.of(&tree.base);
        let single = measures.len() == 1;
        let mut projection = Vec::new();
        let mut group_by = Vec::new();
        for dimension in &plan.dimensions {
            let expr = self.attribute(dimension, aliases)?;
            group_by.push(expr.clone());
            projection.push(select_item(expr, &dimension.column()));
        }
        // Two drivers may share a name: grouping by a name also groups by the
        // key of what it names, so they stay apart.
        for dimension in &plan.dimensions {
            let object = self.object(&dimension.object)?;
            if dimension.bucket.is_none()
                && display_attribute(object) == Some(dimension.attribute.as_str())
            {
                for key in &object.primary_key {
                    let column = Expr::CompoundIdentifier(vec![
                        aliases.of(&object.name).clone(),
                        self.ident(key),
                    ]);
                    if !group_by.contains(&column) {
                        group_by.push(column);
                    }
                }
            }
        }
        let mut extra_filters = Vec::new();
        for measure in measures {
            let (input, condition) = self.measure_parts(measure, base_alias)?;
            let aggregate = if single {
                extra_filters.extend(condition);
                aggregate_call(measure.aggregate, input)
            } else {
                aggregate_call(measure.aggregate, Some(conditional(condition, input)))
            };
            projection.push(SelectItem::ExprWithAlias {
                expr: aggregate,
                alias: self.ident(&measure.name),
            });
        }
        let mut select = empty_select();
        select.projection = projection;
        select.from = vec![self.joined_tables(tree, aliases)?];
        select.selection = self.where_clause(&plan.filters, extra_filters, aliases)?;
        select.group_by = GroupByExpr::Expressions(group_by, Vec::new());
        let order = self.order(plan, &names(measures))?;
        Ok(finish(self.sql, select, order, plan.limit))
    }

    /// When a dimension or filter is on the many side of the measured object,
    /// first keep one row per measured row and dimension value, then aggregate.
    fn grain_preserving(
        &self,
        plan: &SemanticPlan,
        measures: &[ResolvedMeasure],
        tree: &JoinTree,
        aliases: &Aliases,
    ) -> Result<Query, CompileError> {
        // Resolving refused a fanning tree whose base has no primary key.
        let base = self.object(&tree.base)?;
        let base_alias = aliases.of(&base.name);
        let mut inner = Vec::new();
        for (i, key) in base.primary_key.iter().enumerate() {
            inner.push(SelectItem::ExprWithAlias {
                expr: Expr::CompoundIdentifier(vec![base_alias.clone(), self.ident(key)]),
                alias: Ident::new(format!("key_{i}")),
            });
        }
        let grain = Ident::new("per_row");
        let mut outer = Vec::new();
        for dimension in &plan.dimensions {
            inner.push(SelectItem::ExprWithAlias {
                expr: self.attribute(dimension, aliases)?,
                alias: self.ident(&dimension.column()),
            });
        }
        for (i, measure) in measures.iter().enumerate() {
            let (input, condition) = self.measure_parts(measure, base_alias)?;
            let value = Ident::new(format!("value_{i}"));
            inner.push(SelectItem::ExprWithAlias {
                expr: conditional(condition, input),
                alias: value.clone(),
            });
            outer.push(SelectItem::ExprWithAlias {
                expr: aggregate_call(
                    measure.aggregate,
                    Some(Expr::CompoundIdentifier(vec![grain.clone(), value])),
                ),
                alias: self.ident(&measure.name),
            });
        }
        let mut rows = empty_select();
        rows.distinct = Some(Distinct::Distinct);
        rows.projection = inner;
        rows.from = vec![self.joined_tables(tree, aliases)?];
        rows.selection = self.where_clause(&plan.filters, Vec::new(), aliases)?;
        let select = self.regrouped(plan, SetExpr::Select(Box::new(rows)), grain, outer);
        let order = self.order(plan, &names(measures))?;
        Ok(finish(self.sql, select, order, plan.limit))
    }

    /// A metric plus others (race points plus sprint points): one branch per
    /// metric with the same dimensions, combined with UNION ALL, then summed.
    fn combined(
        &self,
        plan: &SemanticPlan,
        measure: ResolvedMeasure,
    ) -> Result<(Query, Vec<String>, Vec<String>), CompileError> {
        let unsupported = || CompileError::UnsupportedCombination {
            metric: measure.name.clone(),
            variant: measure.variant.clone().unwrap_or_default(),
        };
        let branches: Vec<&ResolvedMeasure> = std::iter::once(&measure)
            .chain(measure.plus.iter())
            .collect();
        let nested = measure.plus.iter().any(|m| !m.plus.is_empty());
        if nested
            || branches
                .iter()
                .any(|m| !matches!(m.aggregate, Aggregate::Sum | Aggregate::Count))
        {
            return Err(unsupported());
        }
        let needed = needed_objects(plan);
        let value = Ident::new("value");
        let mut objects = Vec::new();
        let mut selects = Vec::new();
        for branch in &branches {
            let tree = graph::join_tree_via(self.ontology, &branch.base, &plan.via, &needed)?;
            if tree.fans_out() {
                return Err(unsupported());
            }
            let aliases = Aliases::for_objects(self.sql, tree.objects());
            let base_alias = aliases.of(&tree.base);
            let mut projection = Vec::new();
            for dimension in &plan.dimensions {
                let expr = self.attribute(dimension, &aliases)?;
                projection.push(SelectItem::ExprWithAlias {
                    expr,
                    alias: self.ident(&dimension.column()),
                });
            }
            let input = match (&branch.aggregate, &branch.input) {
                (Aggregate::Count, _) | (_, None) => Expr::value(number(1)),
                (_, Some(input)) => self.input(&branch.name, input, base_alias)?,
            };
            projection.push(SelectItem::ExprWithAlias {
                expr: input,
                alias: value.clone(),
            });
            let metric_filters = self
                .measure_parts(branch, base_alias)?
                .1
                .into_iter()
                .collect();
            let mut select = empty_select();
            select.projection = projection;
            select.from = vec![self.joined_tables(&tree, &aliases)?];
            select.selection = self.where_clause(&plan.filters, metric_filters, &aliases)?;
            selects.push(SetExpr::Select(Box::new(select)));
            objects.extend(tree.objects().map(str::to_owned));
        }
        let union = selects
            .into_iter()
            .reduce(|left, right| SetExpr::SetOperation {
                op: SetOperator::Union,
                set_quantifier: SetQuantifier::All,
                left: Box::new(left),
                right: Box::new(right),
            })
            .expect("a metric is at least one branch");
        let combined = Ident::new("combined");
        let total = SelectItem::ExprWithAlias {
            expr: aggregate_call(
                Aggregate::Sum,
                Some(Expr::CompoundIdentifier(vec![combined.clone(), value])),
            ),
            alias: self.ident(&measure.name),
        };
        let select = self.regrouped(plan, union, combined, vec![total]);
        let order = self.order(plan, &[measure.name.as_str()])?;
        let columns = output_columns(plan, std::slice::from_ref(&measure));
        // The measured objects first, then what they join.
        objects.sort_by_key(|o| !branches.iter().any(|b| &b.base == o));
        Ok((
            finish(self.sql, select, order, plan.limit),
            columns,
            objects,
        ))
    }

    /// `SELECT alias.dimension..., aggregates FROM (rows) AS alias GROUP BY
    /// alias.dimension...`: the second step of a two-step aggregation.
    fn regrouped(
        &self,
        plan: &SemanticPlan,
        rows: SetExpr,
        alias: Ident,
        aggregates: Vec<SelectItem>,
    ) -> Select {
        let columns: Vec<Expr> = plan
            .dimensions
            .iter()
            .map(|d| Expr::CompoundIdentifier(vec![alias.clone(), self.ident(&d.column())]))
            .collect();
        let mut select = empty_select();
        select.projection = columns
            .iter()
            .cloned()
            .map(SelectItem::UnnamedExpr)
            .chain(aggregates)
            .collect();
        select.from = vec![TableWithJoins {
            relation: derived(query_of(rows), alias),
            joins: Vec::new(),
        }];
        select.group_by = GroupByExpr::Expressions(columns, Vec::new());
        select
    }

    /// The plan's order over output columns: its measures, named in order,
    /// and its dimensions.
    fn order(
        &self,
        plan: &SemanticPlan,
        measures: &[&str],
    ) -> Result<Vec<OrderByExpr>, CompileError> {
        let by_measure = |index: usize, descending| {
            measures
                .get(index)
                .map(|m| order_by(Expr::Identifier(self.ident(m)), descending))
        };
        let by_dimension = |index: usize, descending| {
            plan.dimensions
                .get(index)
                .map(|d| order_by(Expr::Identifier(self.ident(&d.column())), descending))
        };
        let explicit = match plan.order {
            Some(Order::Measure { index, descending }) => by_measure(index, descending),
            Some(Order::Dimension { index, descending }) => by_dimension(index, descending),
            None => None,
        };
        if let Some(explicit) = explicit {
            return Ok(vec![explicit]);
        }
        let Some(first) = plan.dimensions.first() else {
            return Ok(Vec::new());
        };
        // Time reads in order; anything else reads best first.
        self.object(&first.object)?;
        let is_time = self
            .index
            .attribute(&first.object, &first.attribute)
            .is_some_and(|a| a.role == AttributeRole::Time);
        Ok(if is_time {
            by_dimension(0, false).into_iter().collect()
        } else {
            by_measure(0, true).into_iter().collect()
        })
    }
}

/// The attribute that names an object's rows: the one labelled like the
/// object, else its first text attribute that is not a key.
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

fn names(measures: &[ResolvedMeasure]) -> Vec<&str> {
    measures.iter().map(|m| m.name.as_str()).collect()
}

fn output_columns(plan: &SemanticPlan, measures: &[ResolvedMeasure]) -> Vec<String> {
    plan.dimensions
        .iter()
        .map(|d| d.column())
        .chain(measures.iter().map(|m| m.name.clone()))
        .collect()
}

/// Prefixes every bare column of `expr` with `alias`.
fn qualify(expr: &mut Expr, alias: &Ident) {
    let _ = visit_expressions_mut(expr, |e| {
        if let Expr::Identifier(ident) = e {
            *e = Expr::CompoundIdentifier(vec![alias.clone(), ident.clone()]);
        }
        ControlFlow::<()>::Continue(())
    });
}

fn number(n: i64) -> Value {
    Value::Number(n.to_string(), false)
}

fn literal(value: &Literal) -> Expr {
    match value {
        Literal::Integer(n) => Expr::value(number(*n)),
        Literal::Text(text) => Expr::value(Value::SingleQuotedString(text.clone())),
    }
}

fn binary(left: Expr, op: BinaryOperator, right: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(left),
        op,
        right: Box::new(right),
    }
}

/// `left AND right`, with compound sides in parentheses where printing
/// them bare would read back as another tree than the one checked (and the
/// query be refused): `a AND (b AND c)` as `(a AND b) AND c`, `(a OR b)
/// AND c` as `a OR (b AND c)`.
fn and(left: Expr, right: Expr) -> Expr {
    let nested = |side: Expr, ops: &[BinaryOperator]| match side {
        Expr::BinaryOp { ref op, .. } if ops.contains(op) => Expr::Nested(Box::new(side)),
        side => side,
    };
    let left = nested(left, &[BinaryOperator::Or]);
    let right = nested(right, &[BinaryOperator::And, BinaryOperator::Or]);
    binary(left, BinaryOperator::And, right)
}

fn comparison(column: Expr, condition: &Condition) -> Expr {
    match condition {
        // `Compiler::filter` renders it, with the metric's table; it never
        // reaches here. Were it to, matching nothing is the safe reading.
        Condition::NotAmong { .. }
        | Condition::Extreme { .. }
        | Condition::AboveAttribute(_)
        | Condition::BelowAttribute(_) => Expr::value(Value::Boolean(false)),
        Condition::OneOf(values) if values.len() == 1 => {
            binary(column, BinaryOperator::Eq, literal(&values[0]))
        }
        Condition::OneOf(values) => Expr::In {
            expr: Box::new(column),
            target: InTarget::List(values.iter().map(literal).collect()),
            negated: false,
            global: false,
        },
        Condition::NoneOf(values) => Expr::In {
            expr: Box::new(column),
            target: InTarget::List(values.iter().map(literal).collect()),
            negated: true,
            global: false,
        },
        Condition::AtLeast(v) => binary(column, BinaryOperator::GtEq, literal(v)),
        Condition::AtMost(v) => binary(column, BinaryOperator::LtEq, literal(v)),
        Condition::Before(v) => binary(column, BinaryOperator::Lt, literal(v)),
        Condition::After(v) => binary(column, BinaryOperator::Gt, literal(v)),
        Condition::Between(low, high) => Expr::Between {
            expr: Box::new(column),
            negated: false,
            low: Box::new(literal(low)),
            high: Box::new(literal(high)),
        },
    }
}

/// Years compared with a date column become ranges of ISO dates, which
/// SQLite (dates as text) and PostgreSQL (typed dates) both compare correctly.
fn year_filter_on_date(column: Expr, condition: &Condition) -> Expr {
    let start = |year: &Literal| match year {
        Literal::Integer(y) => Literal::Text(format!("{y:04}-01-01")),
        other => other.clone(),
    };
    let next = |year: &Literal| match year {
        Literal::Integer(y) => Literal::Text(format!("{:04}-01-01", y + 1)),
        other => other.clone(),
    };
    let range = |low: &Literal, high: &Literal| {
        and(
            binary(column.clone(), BinaryOperator::GtEq, literal(&start(low))),
            binary(column.clone(), BinaryOperator::Lt, literal(&next(high))),
        )
    };
    let is_year = |v: &Literal| matches!(v, Literal::Integer(_));
    match condition {
        Condition::OneOf(values) if values.iter().all(is_year) => values
            .iter()
            .map(|y| Expr::Nested(Box::new(range(y, y))))
            .reduce(|a, b| binary(a, BinaryOperator::Or, b))
            .map(|e| Expr::Nested(Box::new(e)))
            .unwrap_or_else(|| Expr::value(Value::Boolean(false))),
        Condition::AtLeast(y) if is_year(y) => {
            binary(column, BinaryOperator::GtEq, literal(&start(y)))
        }
        Condition::After(y) if is_year(y) => {
            binary(column, BinaryOperator::GtEq, literal(&next(y)))
        }
        Condition::Before(y) if is_year(y) => {
            binary(column, BinaryOperator::Lt, literal(&start(y)))
        }
        Condition::AtMost(y) if is_year(y) => binary(column, BinaryOperator::Lt, literal(&next(y))),
        Condition::Between(low, high) if is_year(low) && is_year(high) => range(low, high),
        other => comparison(column, other),
    }
}

/// `CASE WHEN condition THEN input END`, or `input` (1 for a count) alone.
fn conditional(condition: Option<Expr>, input: Option<Expr>) -> Expr {
    let value = input.unwrap_or_else(|| Expr::value(number(1)));
    match condition {
        None => value,
        Some(condition) => {
            let mut case = template_expr("CASE WHEN cassis_condition THEN cassis_value END");
            substitute(&mut case, "cassis_condition", &condition);
            substitute(&mut case, "cassis_value", &value);
            case
        }
    }
}

fn aggregate_call(aggregate: Aggregate, input: Option<Expr>) -> Expr {
    let (template, needs_input) = match (aggregate, &input) {
        (Aggregate::Count, None) => ("COUNT(*)", false),
        (Aggregate::Count, Some(_)) => ("COUNT(cassis_value)", true),
        (Aggregate::CountDistinct, _) => ("COUNT(DISTINCT cassis_value)", true),
        (Aggregate::Sum, _) => ("SUM(cassis_value)", true),
        (Aggregate::Avg, _) => ("AVG(cassis_value)", true),
        (Aggregate::Min, _) => ("MIN(cassis_value)", true),
        (Aggregate::Max, _) => ("MAX(cassis_value)", true),
    };
    let mut call = template_expr(template);
    if needs_input {
        let value = input.unwrap_or_else(|| Expr::value(number(1)));
        substitute(&mut call, "cassis_value", &value);
    }
    call
}

/// Parses one of this module's own constant templates; they are generic SQL.
fn template_expr(template: &str) -> Expr {
    sql::parse_expression(Dialect::Postgres, template).expect("compiler templates parse")
}

fn substitute(expr: &mut Expr, placeholder: &str, replacement: &Expr) {
    let _ = visit_expressions_mut(expr, |e| {
        if matches!(e, Expr::Identifier(ident) if ident.value == placeholder) {
            *e = replacement.clone();
        }
        ControlFlow::<()>::Continue(())
    });
}

/// Always aliased, so ORDER BY names the output column even when two joined
/// tables have a column of that name.
fn select_item(expr: Expr, name: &str) -> SelectItem {
    SelectItem::ExprWithAlias {
        expr,
        alias: Ident::new(name),
    }
}

fn order_by(expr: Expr, descending: bool) -> OrderByExpr {
    OrderByExpr {
        expr,
        options: OrderByOptions {
            sort: Some(if descending {
                OrderBySort::Desc
            } else {
                OrderBySort::Asc
            }),
            nulls_first: None,
        },
        with_fill: None,
    }
}

/// A SELECT with nothing in it, from a constant template, so new fields of
/// the AST keep their defaults.
fn empty_select() -> Select {
    let query = sql::parse_select(Dialect::Postgres, "SELECT 1 FROM cassis_table")
        .expect("the compiler's template parses");
    match *query.body {
        SetExpr::Select(select) => *select,
        _ => unreachable!("the template is a plain SELECT"),
    }
}

fn query_of(body: SetExpr) -> Query {
    let mut query = sql::parse_select(Dialect::Postgres, "SELECT 1").expect("template parses");
    query.body = Box::new(body);
    query
}

fn finish(
    dialect: &dyn SqlDialect,
    select: Select,
    order: Vec<OrderByExpr>,
    limit: Option<u32>,
) -> Query {
    let mut query = query_of(SetExpr::Select(Box::new(select)));
    if !order.is_empty() {
        query.order_by = Some(OrderBy {
            kind: OrderByKind::Expressions(order),
            interpolate: None,
        });
    }
    if let Some(limit) = limit {
        query.limit_clause = Some(dialect.limit(limit));
    }
    query
}

fn table_factor(name: ObjectName, alias: Ident) -> TableFactor {
    let template = sql::parse_select(
        Dialect::Postgres,
        "SELECT 1 FROM cassis_table AS cassis_alias",
    )
    .expect("template parses");
    let SetExpr::Select(select) = *template.body else {
        unreachable!()
    };
    let mut factor = select.from[0].relation.clone();
    if let TableFactor::Table {
        name: table_name,
        alias: table_alias,
        ..
    } = &mut factor
    {
        *table_name = name;
        *table_alias = Some(TableAlias {
            explicit: false,
            name: alias,
            columns: Vec::new(),
            at: None,
        });
    }
    factor
}

fn derived(query: Query, alias: Ident) -> TableFactor {
    TableFactor::Derived {
        lateral: false,
        subquery: Box::new(query),
        alias: Some(TableAlias {
            explicit: true,
            name: alias,
            columns: Vec::new(),
            at: None,
        }),
        sample: None,
    }
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
            "SELECT 1.0 * COALESCE(numerator.wins, 0) / NULLIF(denominator.starts, 0) AS win_rate \
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
             1.0 * COALESCE(numerator.wins, 0) / NULLIF(denominator.starts, 0) AS win_rate \
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
