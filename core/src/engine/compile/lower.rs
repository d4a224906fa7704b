//! Lowering a resolved lookup or aggregate to one SELECT: attributes,
//! conditions and joins as AST nodes in the dialect, then the aggregate
//! directly, per measured row first (when a join fans out), or as a union
//! of the metrics a variant adds.

use super::ast::{
    aggregate_call, and, binary, comparison, conditional, derived, empty_select, finish, number,
    order_by, qualify, query_of, select_item, substitute, table_factor, year_filter_on_date,
};
use super::resolve::{self, Fanning, Input, ResolvedMeasure, needed_objects, refuse_chasm_trap};
use super::{Aliases, CompileError, Compiler, display_attribute, grains};
use crate::engine::graph::{self, JoinTree};
use crate::engine::plan::{
    AttributeRef, Condition, Filter, Measure, Order, SemanticPlan, TimeBucket,
};
use crate::ontology::{Aggregate, AttributeRole, DataType, Grain, Month, Object};
use crate::sql;
use sqlparser::ast::{
    BinaryOperator, Distinct, Expr, GroupByExpr, Ident, InTarget, Join, JoinConstraint,
    JoinOperator, OrderByExpr, Query, Select, SelectItem, SetExpr, SetOperator, SetQuantifier,
    TableFactor, TableWithJoins, Value,
};
use std::collections::BTreeMap;

impl<'a> Compiler<'a> {
    /// `key NOT IN (SELECT fk FROM <metric's table> [JOIN ...] WHERE <its
    /// conditions> [AND <within>] AND fk IS NOT NULL)`: the rows of `object`
    /// the metric counts nothing for, among the rows `within` keeps. The NULL
    /// guard keeps one row without a link from emptying the answer, as NOT IN
    /// over a NULL would. The subquery's aliases are its own scope.
    pub(super) fn not_among(
        &self,
        key: Expr,
        object: &str,
        metric: &str,
        within: &[Filter],
    ) -> Result<Expr, CompileError> {
        let resolved = resolve::metric(self.index, metric, None, 0)?;
        let not_linked = || CompileError::NotLinked {
            from: resolved.base.clone(),
            to: object.to_owned(),
        };
        let mut needed = needed_objects(self.index, &[], within, &[&resolved]);
        // The column holding the keys excluded: the metric's own foreign key
        // where it links to the object; else ("parts never ordered": orders
        // reach parts through their line items) the object's key, joined
        // through. Fanning out is harmless here: only which keys occur
        // matters, not how often.
        let excluded = match graph::direct_link(self.ontology, &resolved.base, object) {
            Some(link) => ExcludedKey::Own(link.from.clone()),
            None => match self.object(object)?.primary_key.as_slice() {
                [key] => {
                    needed.push(object);
                    ExcludedKey::Through(key.clone())
                }
                _ => return Err(not_linked()),
            },
        };
        let tree = graph::join_tree(self.ontology, &resolved.base, &needed)?;
        refuse_chasm_trap(&tree)?;
        let aliases = Aliases::for_objects(self.sql, tree.objects());
        let base = aliases.of(&resolved.base).clone();
        let fk = match &excluded {
            ExcludedKey::Own(column) => {
                Expr::CompoundIdentifier(vec![base.clone(), self.ident(column)])
            }
            ExcludedKey::Through(key) => {
                Expr::CompoundIdentifier(vec![aliases.of(object).clone(), self.ident(key)])
            }
        };
        let mut extra = vec![Expr::IsNotNull(Box::new(fk.clone()))];
        let (input, condition) = self.measure_parts(&resolved, &aliases)?;
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

    /// `column IN (SELECT leader.<first> FROM (<plan, first row>) leader)`:
    /// the value another question's answer leads with. The derived table
    /// keeps its `LIMIT` out of the `IN`, which MariaDB refuses.
    pub(super) fn leader(&self, column: Expr, plan: &SemanticPlan) -> Result<Expr, CompileError> {
        let mut first_row = plan.clone();
        first_row.limit = Some(1);
        let compiled = self.compile(&first_row)?;
        let Some(first) = compiled.columns.first() else {
            return Err(CompileError::EmptyPlan);
        };
        let alias = Ident::new("leader");
        let mut select = empty_select();
        select.projection = vec![SelectItem::UnnamedExpr(Expr::CompoundIdentifier(vec![
            alias.clone(),
            self.ident(first),
        ]))];
        select.from = vec![TableWithJoins {
            relation: derived(compiled.query, alias),
            joins: Vec::new(),
        }];
        Ok(Expr::In {
            expr: Box::new(column),
            target: InTarget::Subquery(Box::new(query_of(SetExpr::Select(Box::new(select))))),
            negated: false,
            global: false,
        })
    }

    /// `row.fk NOT IN (<whose>) AND EXISTS (SELECT 1 FROM <pairing table>
    /// peer_row WHERE peer_row.shared = row.shared ... AND peer_row.fk IN
    /// (<whose>))`: rows of the peer's pairing object whose thing is not one
    /// `of` keeps, beside a row of one that is, sharing every shared
    /// object. `<whose>` is `SELECT key FROM <the thing's table> WHERE
    /// <of>`, in a scope of its own.
    fn peer_of(
        &self,
        reference: &AttributeRef,
        of: &[Filter],
        aliases: &Aliases,
    ) -> Result<Expr, CompileError> {
        let peer = self
            .ontology
            .peers
            .iter()
            .find(|p| p.through == reference.object && p.name == reference.attribute)
            .ok_or_else(|| CompileError::UnknownPeer {
                object: reference.object.clone(),
                peer: reference.attribute.clone(),
            })?;
        if of.is_empty() {
            return Err(CompileError::PeerOfNobody {
                peer: peer.name.clone(),
            });
        }
        if let Some(elsewhere) = of.iter().find(|f| f.attribute.object != peer.of) {
            return Err(CompileError::PeerOfElsewhere {
                peer: peer.name.clone(),
                of: peer.of.clone(),
                object: elsewhere.attribute.object.clone(),
            });
        }
        let through = self.object(&peer.through)?;
        let thing = self.object(&peer.of)?;
        let link = |to: &str| {
            graph::direct_link(self.ontology, &peer.through, to).ok_or_else(|| {
                CompileError::NotLinked {
                    from: peer.through.clone(),
                    to: to.to_owned(),
                }
            })
        };
        let own = link(&peer.of)?;
        let inner = Ident::new("peer_of");
        let mut scope = Aliases(BTreeMap::new());
        scope.0.insert(thing.name.clone(), inner.clone());
        let conditions = self.where_clause(of, Vec::new(), &scope)?.ok_or_else(|| {
            CompileError::PeerOfNobody {
                peer: peer.name.clone(),
            }
        })?;
        let whose = format!(
            "SELECT {inner}.{} FROM {} WHERE {conditions}",
            self.ident(&own.to),
            self.table(thing, &inner)?,
        );
        let row = aliases
            .get(&through.name)
            .ok_or_else(|| CompileError::NotJoined {
                what: format!("the {}s", peer.name),
                object: through.name.clone(),
            })?;
        let pair = Ident::new("peer_row");
        let mut shared = Vec::new();
        for object in &peer.sharing {
            let column = self.ident(&link(object)?.from);
            shared.push(format!("{pair}.{column} = {row}.{column}"));
        }
        let fk = self.ident(&own.from);
        let text = format!(
            "{row}.{fk} NOT IN ({whose}) AND EXISTS (SELECT 1 FROM {} WHERE {} AND {pair}.{fk} IN ({whose}))",
            self.table(through, &pair)?,
            shared.join(" AND ")
        );
        self.shell_expression(&format!("the {}s", peer.name), text)
    }

    /// `column > (SELECT AVG(column) FROM ... WHERE <the other filters>)`:
    /// the average over the rows the rest of the question keeps ("orders
    /// in 1998 above the average for 1998").
    fn against_average(
        &self,
        column: Expr,
        filter: &Filter,
        filters: &[Filter],
    ) -> Result<Expr, CompileError> {
        // "of all customers": the question's other conditions say which
        // rows are compared, not which the average is over.
        let of_all = matches!(
            filter.condition,
            Condition::AboveAverageOfAll | Condition::BelowAverageOfAll
        );
        let average = SemanticPlan {
            measures: vec![Measure::Aggregate {
                attribute: filter.attribute.clone(),
                aggregate: Aggregate::Avg,
            }],
            // "above the average balance of all customers": over every row.
            filters: filters
                .iter()
                .filter(|other| !of_all && !other.condition.is_against_average())
                .cloned()
                .collect(),
            ..SemanticPlan::default()
        };
        let compiled = self.compile(&average)?;
        let op = match filter.condition {
            Condition::AboveAverage | Condition::AboveAverageOfAll => BinaryOperator::Gt,
            _ => BinaryOperator::Lt,
        };
        Ok(binary(column, op, Expr::Subquery(Box::new(compiled.query))))
    }

    /// `column = (SELECT MAX(x.column) FROM <its table> x [WHERE x.key IN
    /// (SELECT fk FROM <among's table>)])`: the latest value, among the rows
    /// another object has ("the most recent race" that has results).
    pub(super) fn extreme(
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
        // "the first race of 2009": the earliest among the races of 2009;
        // "the first race at Marina Bay": among the races whose circuit is.
        let mut own_conditions = Vec::new();
        for sibling in siblings {
            let Some(key) = (sibling.attribute.object != object.name)
                .then(|| graph::direct_link(self.ontology, &object.name, &sibling.attribute.object))
                .flatten()
            else {
                own_conditions.push(self.filter(sibling, &scoped)?.to_string());
                continue;
            };
            let parent = self.object(&sibling.attribute.object)?;
            let inner = Ident::new("extreme_of");
            let mut parent_scope = Aliases(BTreeMap::new());
            parent_scope.0.insert(parent.name.clone(), inner.clone());
            own_conditions.push(format!(
                "{own}.{} IN (SELECT {inner}.{} FROM {} WHERE {})",
                self.ident(&key.from),
                self.ident(&key.to),
                self.table(parent, &inner)?,
                self.filter(sibling, &parent_scope)?
            ));
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

    pub(super) fn attribute(
        &self,
        reference: &AttributeRef,
        aliases: &Aliases,
    ) -> Result<Expr, CompileError> {
        let (object, attribute) = self.attribute_of(reference)?;
        let alias = aliases.of(&object.name);
        let expr = match (attribute.column_name(), &attribute.expr) {
            (Some(column), _) => Expr::CompoundIdentifier(vec![alias.clone(), self.ident(column)]),
            (None, Some(expr)) => {
                let what = format!("{}.{}", object.name, attribute.name);
                self.expression(&what, expr, &object.name, aliases)?
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
        Ok(grains::bucket(
            self.sql,
            grain,
            expr,
            attribute.data_type,
            self.ontology.fiscal_start(),
        ))
    }

    /// A grouping's expression. A semi-additive metric's own time, read
    /// per time for its level, stays as recorded on a growth's earlier
    /// side too: only its order within each (shifted) period counts, which
    /// moving every date to its period's start would lose.
    pub(super) fn dimension(
        &self,
        reference: &AttributeRef,
        aliases: &Aliases,
    ) -> Result<Expr, CompileError> {
        let level_time = self
            .plain
            .and_then(|name| self.index.metric(name))
            .is_some_and(|m| {
                m.semi_additive.as_ref().is_some_and(|level| {
                    reference.bucket.is_none()
                        && level.time_of(&m.object)
                            == (reference.object.as_str(), reference.attribute.as_str())
                })
            });
        if level_time && self.shift.is_some() {
            Compiler {
                shift: None,
                ..*self
            }
            .attribute(reference, aliases)
        } else {
            self.attribute(reference, aliases)
        }
    }

    pub(super) fn attribute_type(&self, reference: &AttributeRef) -> Option<DataType> {
        self.index
            .attribute(&reference.object, &reference.attribute)
            .map(|a| a.data_type)
    }

    /// What a measure aggregates and the condition its rows meet, over the
    /// measured object's alias.
    pub(super) fn measure_parts(
        &self,
        measure: &ResolvedMeasure,
        aliases: &Aliases,
    ) -> Result<(Option<Expr>, Option<Expr>), CompileError> {
        let input = measure
            .input
            .as_ref()
            .map(|input| self.input(&measure.name, input, &measure.base, aliases))
            .transpose()?;
        let condition = measure
            .filters
            .iter()
            .map(|text| self.condition(&measure.name, text, &measure.base, aliases))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .reduce(and);
        Ok((input, condition))
    }

    /// What a measure of `object`'s rows aggregates.
    pub(super) fn input(
        &self,
        what: &str,
        input: &Input,
        object: &str,
        aliases: &Aliases,
    ) -> Result<Expr, CompileError> {
        match input {
            Input::Sql(text) => self.expression(what, text, object, aliases),
            Input::Column(column) => Ok(Expr::CompoundIdentifier(vec![
                aliases.of(object).clone(),
                self.ident(column),
            ])),
        }
    }

    /// A metric's condition over its object's columns, where a name of one
    /// of the object's named filters (`urgent_orders`) stands for that
    /// filter's condition.
    pub(super) fn condition(
        &self,
        what: &str,
        text: &str,
        object: &str,
        aliases: &Aliases,
    ) -> Result<Expr, CompileError> {
        let mut expr = self.parse(what, text)?;
        if let Some(object) = self.index.object(object) {
            for named in &object.filters {
                let mut found = false;
                let _ = sqlparser::ast::visit_expressions(&expr, |e| {
                    found |= matches!(e, Expr::Identifier(i) if i.value == named.name);
                    std::ops::ControlFlow::<()>::Continue(())
                });
                if found {
                    let what = format!("the filter {}.{}", object.name, named.name);
                    let condition = self.parse(&what, &named.expr)?;
                    substitute(&mut expr, &named.name, &Expr::Nested(Box::new(condition)));
                }
            }
        }
        self.read_across(what, &mut expr, aliases)?;
        qualify(&mut expr, aliases.of(object));
        self.write_out(what, text, expr)
    }

    /// The condition of the named filter `reference` names, over its
    /// object's alias.
    fn named_filter(
        &self,
        reference: &AttributeRef,
        aliases: &Aliases,
    ) -> Result<Expr, CompileError> {
        let object = self.object(&reference.object)?;
        let named = object
            .filters
            .iter()
            .find(|f| f.name == reference.attribute)
            .ok_or_else(|| CompileError::UnknownFilter {
                object: reference.object.clone(),
                filter: reference.attribute.clone(),
            })?;
        let what = format!("the filter {}.{}", object.name, named.name);
        let condition = self.expression(&what, &named.expr, &object.name, aliases)?;
        Ok(Expr::Nested(Box::new(condition)))
    }

    pub(super) fn filter(&self, filter: &Filter, aliases: &Aliases) -> Result<Expr, CompileError> {
        if filter.is_named() {
            let kept = self.named_filter(&filter.attribute, aliases)?;
            return Ok(match filter.condition {
                Condition::NotNamed => Expr::UnaryOp {
                    op: sqlparser::ast::UnaryOperator::Not,
                    expr: Box::new(kept),
                },
                _ => kept,
            });
        }
        // "fiscal 1996": the days from the fiscal year's first to the
        // next one's, on the date itself.
        if filter.attribute.bucket == Some(Grain::FiscalYear) {
            let date = AttributeRef {
                bucket: None,
                ..filter.attribute.clone()
            };
            let (_, attribute) = self.attribute_of(&date)?;
            if !grains::holds_dates(attribute) {
                return Err(CompileError::NotADate {
                    object: date.object.clone(),
                    attribute: date.attribute.clone(),
                    data_type: format!("{:?}", attribute.data_type).to_lowercase(),
                    grain: Grain::FiscalYear.name(),
                });
            }
            let column = self.attribute(&date, aliases)?;
            return Ok(year_filter_on_date(
                column,
                &filter.condition,
                self.ontology.fiscal_start(),
            ));
        }
        if let Condition::PeerOf { of } = &filter.condition {
            return self.peer_of(&filter.attribute, of, aliases);
        }
        let column = self.attribute(&filter.attribute, aliases)?;
        if let Condition::NotAmong { metric, within } = &filter.condition {
            return self.not_among(column, &filter.attribute.object, metric, within);
        }
        if let Condition::Extreme { latest, among } = &filter.condition {
            return self.extreme(column, &filter.attribute, *latest, among.as_deref(), &[]);
        }
        if let Condition::Leader { plan, .. } = &filter.condition {
            return self.leader(column, plan);
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
        // A date read at a grain ("in April": the month of every year) is
        // compared as the grain's value, never as a range of days.
        let is_date = filter.attribute.bucket.is_none()
            && matches!(
                self.attribute_type(&filter.attribute),
                Some(DataType::Date | DataType::Timestamp)
            );
        if is_date {
            return Ok(year_filter_on_date(
                column,
                &filter.condition,
                Month::January,
            ));
        }
        Ok(comparison(column, &filter.condition))
    }

    pub(super) fn where_clause(
        &self,
        filters: &[Filter],
        extra: Vec<Expr>,
        aliases: &Aliases,
    ) -> Result<Option<Expr>, CompileError> {
        let mut conditions = Vec::new();
        for filter in filters {
            if filter.condition.is_against_average() {
                let column = self.attribute(&filter.attribute, aliases)?;
                conditions.push(self.against_average(column, filter, filters)?);
                continue;
            }
            let Condition::Extreme { latest, among } = &filter.condition else {
                conditions.push(self.filter(filter, aliases)?);
                continue;
            };
            // The plan's other conditions on the same object, or on one
            // each of its rows points to ("the first race at Marina Bay"),
            // narrow the rows the extreme is taken over.
            let siblings: Vec<&Filter> = filters
                .iter()
                .filter(|other| {
                    graph::narrows(
                        self.ontology,
                        &filter.attribute.object,
                        &other.attribute.object,
                    ) && !matches!(
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

    pub(super) fn joined_tables(
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

    pub(super) fn table(
        &self,
        object: &Object,
        alias: &Ident,
    ) -> Result<TableFactor, CompileError> {
        let name = sql::parse_table_name(self.sql.dialect(), &object.table).map_err(|error| {
            CompileError::Expression {
                what: format!("the table of {}", object.name),
                text: object.table.clone(),
                error,
            }
        })?;
        Ok(table_factor(name, alias.clone()))
    }

    pub(super) fn lookup(
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
        let query = finish(self.sql, select, order, plan.limit, plan.offset);
        Ok((query, columns, tree.objects().map(str::to_owned).collect()))
    }

    pub(super) fn aggregate(
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
    pub(super) fn direct(
        &self,
        plan: &SemanticPlan,
        measures: &[ResolvedMeasure],
        tree: &JoinTree,
        aliases: &Aliases,
    ) -> Result<Query, CompileError> {
        let single = measures.len() == 1;
        let mut projection = Vec::new();
        let mut group_by = Vec::new();
        for dimension in &plan.dimensions {
            let expr = self.dimension(dimension, aliases)?;
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
        let mut aggregates = Vec::new();
        for measure in measures {
            let (input, condition) = self.measure_parts(measure, aliases)?;
            let aggregate = if single {
                extra_filters.extend(condition);
                aggregate_call(measure.aggregate, input)
            } else {
                aggregate_call(measure.aggregate, Some(conditional(condition, input)))
            };
            aggregates.push(aggregate.clone());
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
        select.having = having(plan, &aggregates);
        let order = self.order(plan, &names(measures))?;
        Ok(finish(self.sql, select, order, plan.limit, plan.offset))
    }

    /// When a dimension or filter is on the many side of the measured object,
    /// first keep one row per measured row and dimension value, then aggregate.
    pub(super) fn grain_preserving(
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
        let mut aggregates = Vec::new();
        for dimension in &plan.dimensions {
            inner.push(SelectItem::ExprWithAlias {
                expr: self.dimension(dimension, aliases)?,
                alias: self.ident(&dimension.column()),
            });
        }
        for (i, measure) in measures.iter().enumerate() {
            let (input, condition) = self.measure_parts(measure, aliases)?;
            let value = Ident::new(format!("value_{i}"));
            inner.push(SelectItem::ExprWithAlias {
                expr: conditional(condition, input),
                alias: value.clone(),
            });
            let aggregate = aggregate_call(
                measure.aggregate,
                Some(Expr::CompoundIdentifier(vec![grain.clone(), value])),
            );
            aggregates.push(aggregate.clone());
            outer.push(SelectItem::ExprWithAlias {
                expr: aggregate,
                alias: self.ident(&measure.name),
            });
        }
        let mut rows = empty_select();
        rows.distinct = Some(Distinct::Distinct);
        rows.projection = inner;
        rows.from = vec![self.joined_tables(tree, aliases)?];
        rows.selection = self.where_clause(&plan.filters, Vec::new(), aliases)?;
        let mut select = self.regrouped(plan, SetExpr::Select(Box::new(rows)), grain, outer);
        select.having = having(plan, &aggregates);
        let order = self.order(plan, &names(measures))?;
        Ok(finish(self.sql, select, order, plan.limit, plan.offset))
    }

    /// A metric plus others (race points plus sprint points): one branch per
    /// metric with the same dimensions, combined with UNION ALL, then summed.
    pub(super) fn combined(
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
        let value = Ident::new("value");
        let mut objects = Vec::new();
        let mut selects = Vec::new();
        for branch in &branches {
            let needed = needed_objects(self.index, &plan.dimensions, &plan.filters, &[branch]);
            let tree = graph::join_tree_via(self.ontology, &branch.base, &plan.via, &needed)?;
            if tree.fans_out() {
                return Err(unsupported());
            }
            let aliases = Aliases::for_objects(self.sql, tree.objects());
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
                (_, Some(input)) => self.input(&branch.name, input, &branch.base, &aliases)?,
            };
            projection.push(SelectItem::ExprWithAlias {
                expr: input,
                alias: value.clone(),
            });
            let metric_filters = self
                .measure_parts(branch, &aliases)?
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
            finish(self.sql, select, order, plan.limit, plan.offset),
            columns,
            objects,
        ))
    }

    /// `SELECT alias.dimension..., aggregates FROM (rows) AS alias GROUP BY
    /// alias.dimension...`: the second step of a two-step aggregation.
    pub(super) fn regrouped(
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
    pub(super) fn order(
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

pub(super) fn names(measures: &[ResolvedMeasure]) -> Vec<&str> {
    measures.iter().map(|m| m.name.as_str()).collect()
}

pub(super) fn output_columns(plan: &SemanticPlan, measures: &[ResolvedMeasure]) -> Vec<String> {
    plan.dimensions
        .iter()
        .map(|d| d.column())
        .chain(measures.iter().map(|m| m.name.clone()))
        .collect()
}

/// Where the keys a negation excludes are read ("never placed an order").
enum ExcludedKey {
    /// The measured rows' own foreign key to the object.
    Own(String),
    /// The object's key, reached through the measured rows' links.
    Through(String),
}

/// The plan's conditions on its measures per group, over their aggregates
/// as computed (`HAVING SUM(...) > 500000`).
fn having(plan: &SemanticPlan, aggregates: &[Expr]) -> Option<Expr> {
    plan.having
        .iter()
        .filter_map(|threshold| {
            let aggregate = aggregates.get(threshold.measure)?.clone();
            Some(comparison(aggregate, &threshold.condition))
        })
        .reduce(and)
}
