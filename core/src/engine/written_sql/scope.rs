//! Which table and which column every name in a statement means. Names are
//! resolved as SQL resolves them, scope by scope: a relation in FROM is an
//! ontology object's table or a CTE in scope, never just an alias, and a
//! column is one the ontology curates for the table it is read from, an
//! output of a CTE or derived table, or (in GROUP BY, HAVING, ORDER BY) an
//! output of the same SELECT.

use super::SqlRejection;
use crate::ontology::Ontology;
use crate::project::Dialect;
use crate::sql;
use sqlparser::ast::{
    Distinct, Expr, GroupByExpr, Ident, JoinConstraint, JoinOperator, ObjectName, OrderBy, Query,
    Select, SelectItem, SelectItemQualifiedWildcardKind, SetExpr, TableAlias, TableFactor,
    TableWithJoins, Visit, Visitor, WildcardAdditionalOptions,
};
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

/// What the ontology lets SQL name: each object's table and, per table, the
/// columns its attributes, keys and metrics read.
pub(super) struct Known {
    dialect: Dialect,
    /// Each object's table as folded parts, with the ontology's spelling.
    tables: Vec<(Vec<String>, String)>,
    /// Folded column names by the ontology's spelling of their table.
    columns: HashMap<String, HashSet<String>>,
}

impl Known {
    pub(super) fn of(ontology: &Ontology, dialect: Dialect) -> Self {
        let mut known = Known {
            dialect,
            tables: Vec::new(),
            columns: HashMap::new(),
        };
        let table_of = |object: &str| {
            ontology
                .objects
                .iter()
                .find(|o| o.name == object)
                .map(|o| o.table.clone())
        };
        for object in &ontology.objects {
            if let Ok(name) = sql::parse_table_name(dialect, &object.table) {
                let parts = known.fold_parts(&name);
                known.tables.push((parts, object.table.clone()));
            }
            for key in &object.primary_key {
                known.add_column(&object.table, key);
            }
            for attribute in &object.attributes {
                if let Some(column) = attribute.column_name() {
                    known.add_column(&object.table, column);
                }
                if let Some(expr) = &attribute.expr {
                    known.add_expression(&object.table, expr);
                }
            }
        }
        for relationship in &ontology.relationships {
            let (from, to) = (table_of(&relationship.from), table_of(&relationship.to));
            for key in &relationship.keys {
                if let Some(from) = &from {
                    known.add_column(from, &key.from);
                }
                if let Some(to) = &to {
                    known.add_column(to, &key.to);
                }
            }
        }
        for metric in &ontology.metrics {
            let Some(table) = table_of(&metric.object) else {
                continue;
            };
            let variants = metric
                .variants
                .iter()
                .flat_map(|variant| variant.expr.iter().chain(variant.filters.iter().flatten()));
            let expressions = metric.expr.iter().chain(&metric.filters).chain(variants);
            for expr in expressions {
                known.add_expression(&table, expr);
            }
        }
        known
    }

    /// A name as the source compares it: quoted names exactly where the
    /// dialect keeps them so (PostgreSQL), otherwise without case.
    fn fold(&self, ident: &Ident) -> String {
        if ident.quote_style.is_some() && self.dialect.sql().quoted_names_are_exact() {
            ident.value.clone()
        } else {
            ident.value.to_lowercase()
        }
    }

    /// An ontology column name, which the compiler quotes unless it is plain
    /// lower case, so exact where quoted names are.
    fn fold_column(&self, column: &str) -> String {
        if self.dialect.sql().quoted_names_are_exact() {
            column.to_owned()
        } else {
            column.to_lowercase()
        }
    }

    fn fold_parts(&self, name: &ObjectName) -> Vec<String> {
        name.0
            .iter()
            .map(|part| match part.as_ident() {
                Some(ident) => self.fold(ident),
                None => part.to_string(),
            })
            .collect()
    }

    fn add_column(&mut self, table: &str, column: &str) {
        let column = self.fold_column(column);
        self.columns
            .entry(table.to_owned())
            .or_default()
            .insert(column);
    }

    fn add_expression(&mut self, table: &str, text: &str) {
        let Ok(expr) = sql::parse_expression(self.dialect, text) else {
            return;
        };
        let mut columns = Vec::new();
        let _ = expr.visit(&mut ColumnNames(&mut columns));
        for column in columns {
            let column = self.fold(&column);
            self.columns
                .entry(table.to_owned())
                .or_default()
                .insert(column);
        }
    }

    /// The ontology's spelling of the table `parts` names: the same parts, or
    /// an unqualified name equal to a table's last part (the search path).
    fn table(&self, parts: &[String]) -> Option<&str> {
        let exact = self.tables.iter().find(|(known, _)| known == parts);
        let unqualified = || match parts {
            [name] => self
                .tables
                .iter()
                .find(|(known, _)| known.last() == Some(name)),
            _ => None,
        };
        exact.or_else(unqualified).map(|(_, table)| table.as_str())
    }

    fn columns_of(&self, table: &str) -> HashSet<String> {
        self.columns.get(table).cloned().unwrap_or_default()
    }
}

/// The last part of every column an ontology expression reads.
struct ColumnNames<'a>(&'a mut Vec<Ident>);

impl Visitor for ColumnNames<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Identifier(ident) => self.0.push(ident.clone()),
            Expr::CompoundIdentifier(parts) => self.0.extend(parts.last().cloned()),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// A table, CTE or derived table a SELECT reads.
struct Relation {
    /// The qualifiers that name it: its alias, or its name (whole and last
    /// part). A derived table without alias has none.
    names: Vec<Vec<String>>,
    columns: HashSet<String>,
}

/// The names visible at one level of a statement, and the level around it
/// for correlated subqueries and CTEs.
#[derive(Default)]
struct Scope<'p> {
    parent: Option<&'p Scope<'p>>,
    /// CTEs defined by a WITH at this level, with their output columns.
    ctes: Vec<(String, HashSet<String>)>,
    relations: Vec<Relation>,
    /// The SELECT's output names, which GROUP BY, HAVING and ORDER BY may use.
    outputs: HashSet<String>,
}

impl<'p> Scope<'p> {
    fn within(parent: Option<&'p Scope<'p>>) -> Self {
        Scope {
            parent,
            ..Scope::default()
        }
    }

    /// This scope and the ones around it, innermost first.
    fn chain(&self) -> impl Iterator<Item = &Scope<'_>> {
        std::iter::successors(Some(self), |scope| scope.parent)
    }

    fn cte(&self, name: &str) -> Option<&HashSet<String>> {
        self.chain()
            .flat_map(|scope| scope.ctes.iter().rev())
            .find(|(cte, _)| cte == name)
            .map(|(_, columns)| columns)
    }
}

/// Where an expression sits, which decides whether output names resolve.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Clause {
    /// SELECT list, WHERE, JOIN ... ON, window definitions, LIMIT.
    Input,
    /// GROUP BY, HAVING, QUALIFY, ORDER BY, DISTINCT ON.
    AfterOutputs,
}

/// Resolves a statement's names and lists the ontology tables it reads.
pub(super) struct Resolver<'k> {
    known: &'k Known,
    /// The ontology's spelling of each table read, in the order first read.
    pub(super) objects: Vec<String>,
}

impl<'k> Resolver<'k> {
    pub(super) fn new(known: &'k Known) -> Self {
        Resolver {
            known,
            objects: Vec::new(),
        }
    }

    /// Resolves a whole statement.
    pub(super) fn statement(&mut self, query: &Query) -> Result<(), SqlRejection> {
        self.query(query, None).map(drop)
    }

    /// Resolves `query` and returns its output column names.
    fn query(
        &mut self,
        query: &Query,
        parent: Option<&Scope<'_>>,
    ) -> Result<HashSet<String>, SqlRejection> {
        refuse_extras(query)?;
        let mut scope = Scope::within(parent);
        if let Some(with) = &query.with {
            // A recursive CTE generates rows without bound until the timeout.
            if with.recursive {
                return Err(SqlRejection::Unsupported("WITH RECURSIVE"));
            }
            for cte in &with.cte_tables {
                let outputs = self.query(&cte.query, Some(&scope))?;
                let name = self.known.fold(&cte.alias.name);
                scope.ctes.push((name, self.renamed(&cte.alias, outputs)));
            }
        }
        let outputs = self.set_expr(&query.body, &scope, query.order_by.as_ref())?;
        if let Some(limit) = &query.limit_clause {
            self.visit(limit, &scope, Clause::Input)?;
        }
        Ok(outputs)
    }

    /// A CTE's or derived table's columns: the alias's column list when it
    /// has one, else the outputs of its query.
    fn renamed(&self, alias: &TableAlias, outputs: HashSet<String>) -> HashSet<String> {
        if alias.columns.is_empty() {
            outputs
        } else {
            alias
                .columns
                .iter()
                .map(|c| self.known.fold(&c.name))
                .collect()
        }
    }

    fn set_expr(
        &mut self,
        body: &SetExpr,
        scope: &Scope<'_>,
        order_by: Option<&OrderBy>,
    ) -> Result<HashSet<String>, SqlRejection> {
        let outputs = match body {
            SetExpr::Select(select) => return self.select(select, scope, order_by),
            SetExpr::Query(query) => self.query(query, Some(scope))?,
            SetExpr::SetOperation { left, right, .. } => {
                let outputs = self.set_expr(left, scope, None)?;
                self.set_expr(right, scope, None)?;
                outputs
            }
            SetExpr::Values(values) => {
                for row in &values.rows {
                    for expr in row.iter() {
                        self.visit(expr, scope, Clause::Input)?;
                    }
                }
                let width = values.rows.first().map_or(0, |row| row.len());
                (1..=width).map(|i| format!("column{i}")).collect()
            }
            SetExpr::Table(_) => return Err(SqlRejection::Unsupported("TABLE statements")),
            _ => return Err(SqlRejection::Unsupported("statements that write")),
        };
        // ORDER BY after a set operation sees only its output columns.
        if let Some(order_by) = order_by {
            let mut outer = Scope::within(Some(scope));
            outer.outputs = outputs.clone();
            self.visit(order_by, &outer, Clause::AfterOutputs)?;
        }
        Ok(outputs)
    }

    fn select(
        &mut self,
        select: &Select,
        parent: &Scope<'_>,
        order_by: Option<&OrderBy>,
    ) -> Result<HashSet<String>, SqlRejection> {
        refuse_select_extras(select)?;
        let mut scope = Scope::within(Some(parent));
        let mut constraints = Vec::new();
        for from in &select.from {
            self.from(from, &mut scope, parent, &mut constraints)?;
        }
        for constraint in constraints {
            self.constraint(constraint, &scope)?;
        }
        let mut outputs = HashSet::new();
        for item in &select.projection {
            self.select_item(item, &scope, &mut outputs)?;
        }
        scope.outputs = outputs.clone();
        if let Some(selection) = &select.selection {
            self.visit(selection, &scope, Clause::Input)?;
        }
        for window in &select.named_window {
            self.visit(window, &scope, Clause::Input)?;
        }
        if let Some(Distinct::On(exprs)) = &select.distinct {
            for expr in exprs {
                self.visit(expr, &scope, Clause::AfterOutputs)?;
            }
        }
        match &select.group_by {
            GroupByExpr::Expressions(exprs, _) => {
                for expr in exprs {
                    self.visit(expr, &scope, Clause::AfterOutputs)?;
                }
            }
            GroupByExpr::All(_) => {}
        }
        for clause in [&select.having, &select.qualify].into_iter().flatten() {
            self.visit(clause, &scope, Clause::AfterOutputs)?;
        }
        if let Some(order_by) = order_by {
            self.visit(order_by, &scope, Clause::AfterOutputs)?;
        }
        Ok(outputs)
    }

    /// Checks one item of a SELECT list and adds the names it outputs.
    fn select_item(
        &mut self,
        item: &SelectItem,
        scope: &Scope<'_>,
        outputs: &mut HashSet<String>,
    ) -> Result<(), SqlRejection> {
        match item {
            SelectItem::UnnamedExpr(expr) => {
                self.visit(expr, scope, Clause::Input)?;
                outputs.insert(self.unnamed_output(expr));
            }
            SelectItem::ExprWithAlias { expr, alias } => {
                self.visit(expr, scope, Clause::Input)?;
                outputs.insert(self.known.fold(alias));
            }
            SelectItem::ExprWithAliases { expr, aliases } => {
                self.visit(expr, scope, Clause::Input)?;
                outputs.extend(aliases.iter().map(|a| self.known.fold(a)));
            }
            // A wildcard inside the statement shows only what the relations
            // it expands are known to hold: the curated columns.
            SelectItem::Wildcard(options) => {
                plain_wildcard(options)?;
                for relation in &scope.relations {
                    outputs.extend(relation.columns.iter().cloned());
                }
            }
            SelectItem::QualifiedWildcard(kind, options) => {
                plain_wildcard(options)?;
                let SelectItemQualifiedWildcardKind::ObjectName(name) = kind else {
                    return Err(SqlRejection::Unsupported("a wildcard over an expression"));
                };
                let qualifier = self.known.fold_parts(name);
                let relation = named(scope, &qualifier)
                    .ok_or_else(|| SqlRejection::UnknownTable(name.to_string()))?;
                outputs.extend(relation.columns.iter().cloned());
            }
        }
        Ok(())
    }

    /// The name a source gives an unaliased output: the column's, else the
    /// function's (PostgreSQL), else the text (SQLite). Only a later
    /// reference to the same output can use it, so a generous guess is safe.
    fn unnamed_output(&self, expr: &Expr) -> String {
        match expr {
            Expr::Identifier(ident) => self.known.fold(ident),
            Expr::CompoundIdentifier(parts) => {
                parts.last().map(|p| self.known.fold(p)).unwrap_or_default()
            }
            Expr::Function(function) => function
                .name
                .0
                .last()
                .and_then(|part| part.as_ident())
                .map(|ident| self.known.fold(ident))
                .unwrap_or_default(),
            other => other.to_string().to_lowercase(),
        }
    }

    /// Adds the relations of one FROM item to `scope`; join conditions are
    /// checked once every relation of the SELECT is known.
    fn from<'q>(
        &mut self,
        from: &'q TableWithJoins,
        scope: &mut Scope<'_>,
        outer: &Scope<'_>,
        constraints: &mut Vec<&'q JoinConstraint>,
    ) -> Result<(), SqlRejection> {
        self.table_factor(&from.relation, scope, outer, constraints)?;
        for join in &from.joins {
            self.table_factor(&join.relation, scope, outer, constraints)?;
            constraints.push(join_constraint(&join.join_operator)?);
        }
        Ok(())
    }

    fn table_factor<'q>(
        &mut self,
        factor: &'q TableFactor,
        scope: &mut Scope<'_>,
        outer: &Scope<'_>,
        constraints: &mut Vec<&'q JoinConstraint>,
    ) -> Result<(), SqlRejection> {
        let relation = match factor {
            TableFactor::Table {
                name,
                alias,
                args: None,
                version: None,
                json_path: None,
                ..
            } => self.table(name, alias.as_ref(), scope)?,
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                ..
            } => {
                // Only a LATERAL subquery sees the relations before it.
                let parent = if *lateral { &*scope } else { outer };
                let outputs = self.query(subquery, Some(parent))?;
                match alias {
                    Some(alias) => Relation {
                        names: vec![vec![self.known.fold(&alias.name)]],
                        columns: self.renamed(alias, outputs),
                    },
                    None => Relation {
                        names: Vec::new(),
                        columns: outputs,
                    },
                }
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias: None,
            } => return self.from(table_with_joins, scope, outer, constraints),
            TableFactor::NestedJoin { alias: Some(_), .. } => {
                return Err(SqlRejection::Unsupported(
                    "an alias for a parenthesised join",
                ));
            }
            other => return Err(SqlRejection::TableFunction(other.to_string())),
        };
        scope.relations.push(relation);
        Ok(())
    }

    /// A named relation: a CTE in scope, else an ontology object's table.
    /// An alias only renames what it resolves to; it never makes a table known.
    fn table(
        &mut self,
        name: &ObjectName,
        alias: Option<&TableAlias>,
        scope: &Scope<'_>,
    ) -> Result<Relation, SqlRejection> {
        let parts = self.known.fold_parts(name);
        let cte = match parts.as_slice() {
            [single] => scope.cte(single).cloned(),
            _ => None,
        };
        let columns = match cte {
            Some(columns) => columns,
            None => {
                let table = self
                    .known
                    .table(&parts)
                    .ok_or_else(|| SqlRejection::UnknownTable(name.to_string()))?;
                if !self.objects.iter().any(|t| t == table) {
                    self.objects.push(table.to_owned());
                }
                self.known.columns_of(table)
            }
        };
        let names = match alias {
            // `FROM t AS a(x, y)` renames t's columns by position, which
            // would give an uncurated column a curated name.
            Some(alias) if !alias.columns.is_empty() => {
                return Err(SqlRejection::Unsupported("column names in a table's alias"));
            }
            Some(alias) => vec![vec![self.known.fold(&alias.name)]],
            None => {
                let last = parts.last().cloned().into_iter().collect();
                vec![parts, last]
            }
        };
        Ok(Relation { names, columns })
    }

    fn constraint(
        &mut self,
        constraint: &JoinConstraint,
        scope: &Scope<'_>,
    ) -> Result<(), SqlRejection> {
        match constraint {
            JoinConstraint::On(expr) => self.visit(expr, scope, Clause::Input),
            JoinConstraint::Using(columns) => {
                for column in columns {
                    let parts = self.known.fold_parts(column);
                    let written = column.to_string();
                    match parts.as_slice() {
                        [name] if scope.relations.iter().any(|r| r.columns.contains(name)) => {}
                        _ => return Err(SqlRejection::UnknownColumn(written)),
                    }
                }
                Ok(())
            }
            JoinConstraint::Natural | JoinConstraint::None => Ok(()),
            JoinConstraint::UsingAlias(..) => Err(SqlRejection::Unsupported("USING ... AS")),
        }
    }

    /// Resolves every column `node` names in `scope`; subqueries get their
    /// own scope, inside this one.
    fn visit<V: Visit>(
        &mut self,
        node: &V,
        scope: &Scope<'_>,
        clause: Clause,
    ) -> Result<(), SqlRejection> {
        let mut columns = Columns {
            resolver: self,
            scope,
            clause,
            depth: 0,
        };
        match node.visit(&mut columns) {
            ControlFlow::Break(rejection) => Err(rejection),
            ControlFlow::Continue(()) => Ok(()),
        }
    }

    /// An unqualified column: a column of a relation in this scope or one
    /// around it, or, after the outputs exist, one of the SELECT's outputs.
    fn column(&self, ident: &Ident, scope: &Scope<'_>, clause: Clause) -> Result<(), SqlRejection> {
        let name = self.known.fold(ident);
        let output = clause == Clause::AfterOutputs && scope.outputs.contains(&name);
        let input = scope
            .chain()
            .flat_map(|s| &s.relations)
            .any(|relation| relation.columns.contains(&name));
        if output || input {
            Ok(())
        } else {
            Err(SqlRejection::UnknownColumn(ident.value.clone()))
        }
    }

    /// `t.col` (or `schema.t.col`): `t` names the innermost relation so
    /// named, and `col` must be one of its columns.
    fn qualified_column(&self, parts: &[Ident], scope: &Scope<'_>) -> Result<(), SqlRejection> {
        let Some((column, qualifier)) = parts.split_last() else {
            return Ok(());
        };
        let folded: Vec<String> = qualifier.iter().map(|q| self.known.fold(q)).collect();
        let written = || {
            qualifier
                .iter()
                .map(|q| q.to_string())
                .collect::<Vec<_>>()
                .join(".")
        };
        let relation =
            named(scope, &folded).ok_or_else(|| SqlRejection::UnknownTable(written()))?;
        if relation.columns.contains(&self.known.fold(column)) {
            Ok(())
        } else {
            Err(SqlRejection::UnknownColumn(format!(
                "{}.{}",
                written(),
                column.value
            )))
        }
    }
}

/// The innermost relation `qualifier` names.
fn named<'s>(scope: &'s Scope<'_>, qualifier: &[String]) -> Option<&'s Relation> {
    scope
        .chain()
        .flat_map(|s| &s.relations)
        .find(|relation| relation.names.iter().any(|name| name == qualifier))
}

/// Visits the expressions of one clause, resolving each column reference.
struct Columns<'r, 'k, 's, 'p> {
    resolver: &'r mut Resolver<'k>,
    scope: &'s Scope<'p>,
    clause: Clause,
    /// How deep inside a subquery the visit is; a subquery is resolved on
    /// its own when it is entered, so its expressions are skipped here.
    depth: usize,
}

impl Visitor for Columns<'_, '_, '_, '_> {
    type Break = SqlRejection;

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<SqlRejection> {
        if self.depth == 0
            && let Err(rejection) = self.resolver.query(query, Some(self.scope))
        {
            return ControlFlow::Break(rejection);
        }
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<SqlRejection> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<SqlRejection> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        let resolved = match expr {
            Expr::Identifier(ident) => self.resolver.column(ident, self.scope, self.clause),
            Expr::CompoundIdentifier(parts) => self.resolver.qualified_column(parts, self.scope),
            Expr::Wildcard(_) | Expr::QualifiedWildcard(..) => {
                Err(SqlRejection::Unsupported("a wildcard inside an expression"))
            }
            _ => Ok(()),
        };
        resolved.map_or_else(ControlFlow::Break, ControlFlow::Continue)
    }
}

fn join_constraint(operator: &JoinOperator) -> Result<&JoinConstraint, SqlRejection> {
    match operator {
        JoinOperator::Join(c)
        | JoinOperator::Inner(c)
        | JoinOperator::Left(c)
        | JoinOperator::LeftOuter(c)
        | JoinOperator::Right(c)
        | JoinOperator::RightOuter(c)
        | JoinOperator::FullOuter(c)
        | JoinOperator::CrossJoin(c)
        | JoinOperator::Semi(c)
        | JoinOperator::LeftSemi(c)
        | JoinOperator::RightSemi(c)
        | JoinOperator::Anti(c)
        | JoinOperator::LeftAnti(c)
        | JoinOperator::RightAnti(c)
        | JoinOperator::StraightJoin(c) => Ok(c),
        _ => Err(SqlRejection::Unsupported("this kind of join")),
    }
}

/// `* EXCLUDE (...)`, `* REPLACE (...)` and the like rewrite what a wildcard
/// shows in ways the resolver does not follow.
fn plain_wildcard(options: &WildcardAdditionalOptions) -> Result<(), SqlRejection> {
    let plain = options.opt_ilike.is_none()
        && options.opt_exclude.is_none()
        && options.opt_except.is_none()
        && options.opt_replace.is_none()
        && options.opt_rename.is_none()
        && options.opt_alias.is_none();
    if plain {
        Ok(())
    } else {
        Err(SqlRejection::Unsupported("wildcard options"))
    }
}

/// Clauses a question's SQL has no use for and the resolver does not follow.
fn refuse_extras(query: &Query) -> Result<(), SqlRejection> {
    let unsupported = [
        (!query.locks.is_empty(), "row locks (FOR UPDATE)"),
        (query.fetch.is_some(), "FETCH (use LIMIT)"),
        (query.for_clause.is_some(), "FOR XML/JSON"),
        (query.settings.is_some(), "SETTINGS"),
        (query.format_clause.is_some(), "FORMAT"),
        (!query.pipe_operators.is_empty(), "pipe operators"),
    ];
    match unsupported.into_iter().find(|(present, _)| *present) {
        Some((_, what)) => Err(SqlRejection::Unsupported(what)),
        None => Ok(()),
    }
}

fn refuse_select_extras(select: &Select) -> Result<(), SqlRejection> {
    let unsupported = [
        (select.top.is_some(), "TOP (use LIMIT)"),
        (select.into.is_some(), "SELECT INTO"),
        (select.exclude.is_some(), "EXCLUDE"),
        (!select.lateral_views.is_empty(), "LATERAL VIEW"),
        (select.prewhere.is_some(), "PREWHERE"),
        (!select.connect_by.is_empty(), "CONNECT BY"),
        (!select.cluster_by.is_empty(), "CLUSTER BY"),
        (!select.distribute_by.is_empty(), "DISTRIBUTE BY"),
        (!select.sort_by.is_empty(), "SORT BY"),
        (select.value_table_mode.is_some(), "SELECT AS STRUCT/VALUE"),
    ];
    match unsupported.into_iter().find(|(present, _)| *present) {
        Some((_, what)) => Err(SqlRejection::Unsupported(what)),
        None => Ok(()),
    }
}
