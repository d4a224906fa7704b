//! The ontology's concepts, exactly as they are stored, published and written
//! as YAML. Optional parts are omitted when empty so exported files stay short.

use serde::{Deserialize, Serialize};

fn is_false(value: &bool) -> bool {
    !value
}

/// What a project's data means to the business: the only ground the question
/// engine answers from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ontology {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The month the business's fiscal year starts in (`july`); a fiscal
    /// year is named by the calendar year it ends in, so with July FY1996
    /// runs from July 1995 to June 1996. Absent: fiscal years are calendar
    /// years.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fiscal_year_start: Option<Month>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<Object>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relationships: Vec<Relationship>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<Peer>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<Metric>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<BusinessRule>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verified_questions: Vec<VerifiedQuestion>,
}

/// A business entity backed by a table or view.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Object {
    /// How the rest of the ontology refers to it: `race_result`.
    pub name: String,
    /// The table or view, qualified as the source needs it: `public.results`.
    pub table: String,
    /// What people call it: `Race Result`. Defaults to the name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    /// Columns that identify one row.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub primary_key: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Attribute>,
    /// Conditions on its rows the business calls by name: `urgent_orders`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<NamedFilter>,
}

/// A condition on one object's rows with a name (a segment): "urgent
/// orders" are the orders of priority `1-URGENT`. Questions use it by its
/// name or synonyms, and a metric's filters by its name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedFilter {
    pub name: String,
    /// SQL over the object's columns: `o_orderpriority = '1-URGENT'`.
    pub expr: String,
    /// What people call the rows it keeps: `Urgent orders`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
}

impl NamedFilter {
    /// How an answer names the rows it keeps: its label, else its name in words.
    pub fn title(&self) -> String {
        if self.label.is_empty() {
            self.name.replace('_', " ")
        } else {
            self.label.clone()
        }
    }
}

/// A month of the year, as a fiscal year's start is written: `july`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Month {
    January,
    February,
    March,
    April,
    May,
    June,
    July,
    August,
    September,
    October,
    November,
    December,
}

impl Month {
    pub const ALL: [Month; 12] = [
        Month::January,
        Month::February,
        Month::March,
        Month::April,
        Month::May,
        Month::June,
        Month::July,
        Month::August,
        Month::September,
        Month::October,
        Month::November,
        Month::December,
    ];

    /// 1 for January to 12 for December.
    pub fn number(self) -> u32 {
        Month::ALL.iter().position(|m| *m == self).unwrap_or(0) as u32 + 1
    }

    /// The month as people write it: `July`.
    pub fn title(self) -> &'static str {
        [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ][self.number() as usize - 1]
    }
}

/// A column of an object, or a SQL expression over its columns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attribute {
    pub name: String,
    /// The column it reads; the attribute's name when neither this nor `expr` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// A SQL expression over the object's columns: `forename || ' ' || surname`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<String>,
    #[serde(rename = "type")]
    pub data_type: DataType,
    #[serde(default, skip_serializing_if = "AttributeRole::is_default")]
    pub role: AttributeRole,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    /// Values questions may mention by name: drivers, countries, segments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_values: Vec<String>,
}

impl Ontology {
    /// The attribute `attribute` of the object `object`, if both exist.
    pub fn attribute(&self, object: &str, attribute: &str) -> Option<&Attribute> {
        self.objects
            .iter()
            .find(|o| o.name == object)?
            .attributes
            .iter()
            .find(|a| a.name == attribute)
    }

    /// The named filter `filter` of the object `object`, if both exist.
    pub fn named_filter(&self, object: &str, filter: &str) -> Option<&NamedFilter> {
        self.objects
            .iter()
            .find(|o| o.name == object)?
            .filters
            .iter()
            .find(|f| f.name == filter)
    }

    /// The month fiscal years start in: January when none is set.
    pub fn fiscal_start(&self) -> Month {
        self.fiscal_year_start.unwrap_or(Month::January)
    }
}

impl Attribute {
    /// Its name, label and synonyms in lower case: what people may call it.
    pub fn naming_words(&self) -> String {
        format!("{} {} {}", self.name, self.label, self.synonyms.join(" ")).to_lowercase()
    }

    /// The column this attribute reads when it is not an expression.
    pub fn column_name(&self) -> Option<&str> {
        match (&self.column, &self.expr) {
            (Some(column), _) => Some(column),
            (None, None) => Some(&self.name),
            (None, Some(_)) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataType {
    Integer,
    Decimal,
    #[default]
    Text,
    Boolean,
    Date,
    Timestamp,
}

impl DataType {
    /// A number: what can be added up, averaged or compared with a number.
    pub fn is_numeric(self) -> bool {
        matches!(self, DataType::Integer | DataType::Decimal)
    }
}

/// How questions use an attribute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttributeRole {
    /// Identifies a row; rarely grouped by.
    Identifier,
    /// Something to group or filter by: a name, a country, a status.
    #[default]
    Dimension,
    /// A date or time that "in 2023" and "since March" filter on.
    Time,
    /// A number that metrics aggregate.
    Measure,
}

impl AttributeRole {
    fn is_default(&self) -> bool {
        *self == AttributeRole::default()
    }
}

/// A join between two objects, so the compiler never guesses one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relationship {
    pub name: String,
    /// The object on the many side of a many-to-one.
    pub from: String,
    pub to: String,
    /// Column pairs joined by equality: `from` column = `to` column.
    pub keys: Vec<KeyPair>,
    #[serde(default, skip_serializing_if = "Cardinality::is_default")]
    pub cardinality: Cardinality,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyPair {
    pub from: String,
    pub to: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cardinality {
    #[default]
    ManyToOne,
    OneToOne,
}

impl Cardinality {
    fn is_default(&self) -> bool {
        *self == Cardinality::default()
    }
}

/// Two things of one kind paired by the rows they share: a driver's
/// teammate is another driver with a result in the same race for the same
/// constructor. "Hamilton's teammate", "his teammates in 2013" read the
/// other rows of `through` that share every `sharing` object with a row of
/// the named thing, and the things of `of` those rows name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Peer {
    /// What the question calls one: `teammate`.
    pub name: String,
    /// The kind of thing a peer is: `driver`.
    pub of: String,
    /// The rows that pair them, each linked to `of` and to every `sharing`
    /// object: `race_result`.
    pub through: String,
    /// The objects two rows of `through` both point to when their things
    /// are peers: `[race, constructor]`.
    pub sharing: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
}

impl Ontology {
    /// The one-column link by which rows of `from` name a row of `to`
    /// (`results.driver_id` for a driver).
    pub fn direct_link(&self, from: &str, to: &str) -> Option<&KeyPair> {
        self.relationships
            .iter()
            .find(|r| r.from == from && r.to == to && r.keys.len() == 1)
            .map(|r| &r.keys[0])
    }
}

/// A named aggregate the business counts on: revenue, wins, points; or the
/// ratio of two such metrics (win rate: wins per start).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "MetricDocument", into = "MetricDocument")]
pub struct Metric {
    pub name: String,
    /// The object whose rows it aggregates. For a ratio, the object the
    /// questions about it are read from (where its time and groupings
    /// start): its numerator's or its denominator's.
    pub object: String,
    /// For a ratio or a growth, `avg`, never written: each side aggregates its own way,
    /// and like an average a ratio neither counts rows nor adds up across
    /// groups, which is what the planner and the answer read from it.
    pub aggregate: Aggregate,
    pub kind: MetricKind,
    /// What it aggregates, over the object's columns; omitted for a row
    /// count. For a derived metric, SQL over other metrics' names.
    pub expr: Option<String>,
    /// Conditions every counted row meets: `position = 1`.
    pub filters: Vec<String>,
    /// A ratio's metric divided, and the one it is divided by.
    pub numerator: Option<String>,
    pub denominator: Option<String>,
    /// A growth's or a running total's metric.
    pub of: Option<String>,
    /// The period a growth compares with the one before.
    pub period: Option<Grain>,
    /// The period a running total starts again at: `year` for year to date.
    pub to_date: Option<Grain>,
    /// A rolling total's span, in periods of the question's time grouping:
    /// 3 for "the last 3 months" read by month.
    pub window: Option<u32>,
    /// A balance or a headcount: a level read at one time, which adding up
    /// over time would count again and again. Per period it stands at its
    /// last (or first, or average) value of `time`.
    pub semi_additive: Option<SemiAdditive>,
    pub format: Option<MetricFormat>,
    pub label: String,
    pub description: String,
    pub synonyms: Vec<String>,
    /// Readings the business genuinely disagrees on; a question that does not
    /// say which is a fork the user confirms.
    pub variants: Vec<MetricVariant>,
}

/// How a level (a balance, a stock, a headcount) is read over time: not
/// added up across its `time` attribute's values, but taken at one of them
/// per period asked about, then aggregated across everything else. As
/// MetricFlow's `non_additive_dimension` (`name`, `window_choice: max` for
/// `last`, `window_groupings` for `per`) and Snowflake's `NON ADDITIVE BY`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SemiAdditive {
    /// The time attribute the level is recorded at: `snapshot_date` of the
    /// metric's own object, or `object.attribute` of the one thing each of
    /// its rows belongs to (`race.date` for standings after each race).
    pub time: String,
    /// Which of the period's values stands for it: the last (a closing
    /// balance), the first (an opening one) or their average.
    #[serde(default, skip_serializing_if = "Take::is_default")]
    pub take: Take,
    /// Attributes of the metric's object each read at its own last (or
    /// first) time before the values are aggregated: a balance per
    /// `account` whose latest snapshots fall on different days. Empty: the
    /// rows at the period's one last time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per: Vec<String>,
}

/// Which of a period's values a [`SemiAdditive`] metric takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Take {
    /// The value at the period's latest time: a closing balance.
    #[default]
    Last,
    /// The value at the period's earliest time: an opening balance.
    First,
    /// The average over the period's times of the value at each: an average
    /// daily balance.
    Average,
}

impl SemiAdditive {
    /// The object and attribute `time` names, for a metric of `object`.
    pub fn time_of<'a>(&'a self, object: &'a str) -> (&'a str, &'a str) {
        self.time.split_once('.').unwrap_or((object, &self.time))
    }
}

impl Take {
    pub const ALL: [Take; 3] = [Take::Last, Take::First, Take::Average];

    fn is_default(&self) -> bool {
        *self == Take::default()
    }

    /// As written in YAML: `last`.
    pub fn name(self) -> &'static str {
        match self {
            Take::Last => "last",
            Take::First => "first",
            Take::Average => "average",
        }
    }
}

/// What a metric computes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricKind {
    /// One aggregate over one object's rows.
    #[default]
    Simple,
    /// One metric divided by another, each aggregated at the question's grain
    /// before dividing (never an average of per-row ratios).
    Ratio,
    /// How much a metric changed from one period to the one before, as a
    /// percentage of the earlier: (this - previous) / previous.
    Growth,
    /// A metric added up period after period (a running total), from the
    /// first period asked about or from the start of each `to_date` period
    /// (year to date).
    Cumulative,
    /// An expression over other metrics (`quantity_shipped -
    /// returned_quantity`), each computed at the question's grain first.
    Derived,
}

impl MetricKind {
    fn is_default(&self) -> bool {
        *self == MetricKind::default()
    }
}

/// A metric as written: `aggregate` is required of a simple metric and
/// absent from a ratio, which the derived reader cannot say by itself.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MetricDocument {
    name: String,
    object: String,
    #[serde(
        rename = "type",
        default,
        skip_serializing_if = "MetricKind::is_default"
    )]
    kind: MetricKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    aggregate: Option<Aggregate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expr: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    filters: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    numerator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    denominator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    of: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    period: Option<Grain>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to_date: Option<Grain>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    window: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    semi_additive: Option<SemiAdditive>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    format: Option<MetricFormat>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    label: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    synonyms: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    variants: Vec<MetricVariant>,
}

/// A metric document that cannot be read as a metric at all; what is
/// merely inconsistent (a ratio with filters) is left to validation, which
/// names the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MetricDocumentError {
    #[error("the metric `{0}` needs `aggregate` (count, count_distinct, sum, avg, min or max)")]
    MissingAggregate(String),
    #[error(
        "the metric `{0}` is a ratio: it divides `numerator` by `denominator`, so it takes no `aggregate`"
    )]
    RatioWithAggregate(String),
    #[error(
        "the metric `{0}` is a growth: it compares `of` with itself one `period` earlier, so it takes no `aggregate`"
    )]
    GrowthWithAggregate(String),
    #[error(
        "the metric `{0}` is a running total: it adds up `of` period after period, so it takes no `aggregate`"
    )]
    CumulativeWithAggregate(String),
    #[error(
        "the metric `{0}` is derived: its `expr` combines other metrics, so it takes no `aggregate`"
    )]
    DerivedWithAggregate(String),
}

impl TryFrom<MetricDocument> for Metric {
    type Error = MetricDocumentError;

    fn try_from(d: MetricDocument) -> Result<Self, Self::Error> {
        let aggregate = match (d.kind, d.aggregate) {
            (MetricKind::Simple, Some(aggregate)) => aggregate,
            (MetricKind::Simple, None) => {
                return Err(MetricDocumentError::MissingAggregate(d.name));
            }
            (MetricKind::Ratio, None) => Aggregate::Avg,
            (MetricKind::Ratio, Some(_)) => {
                return Err(MetricDocumentError::RatioWithAggregate(d.name));
            }
            (MetricKind::Growth, None) => Aggregate::Avg,
            (MetricKind::Growth, Some(_)) => {
                return Err(MetricDocumentError::GrowthWithAggregate(d.name));
            }
            // A running total adds up; what it adds is its metric's sums or counts.
            (MetricKind::Cumulative, None) => Aggregate::Sum,
            (MetricKind::Cumulative, Some(_)) => {
                return Err(MetricDocumentError::CumulativeWithAggregate(d.name));
            }
            (MetricKind::Derived, None) => Aggregate::Avg,
            (MetricKind::Derived, Some(_)) => {
                return Err(MetricDocumentError::DerivedWithAggregate(d.name));
            }
        };
        Ok(Metric {
            name: d.name,
            object: d.object,
            aggregate,
            kind: d.kind,
            expr: d.expr,
            filters: d.filters,
            numerator: d.numerator,
            denominator: d.denominator,
            of: d.of,
            period: d.period,
            to_date: d.to_date,
            window: d.window,
            semi_additive: d.semi_additive,
            format: d.format,
            label: d.label,
            description: d.description,
            synonyms: d.synonyms,
            variants: d.variants,
        })
    }
}

impl From<Metric> for MetricDocument {
    fn from(m: Metric) -> Self {
        MetricDocument {
            aggregate: (m.kind == MetricKind::Simple).then_some(m.aggregate),
            name: m.name,
            object: m.object,
            kind: m.kind,
            expr: m.expr,
            filters: m.filters,
            numerator: m.numerator,
            denominator: m.denominator,
            of: m.of,
            period: m.period,
            to_date: m.to_date,
            window: m.window,
            semi_additive: m.semi_additive,
            format: m.format,
            label: m.label,
            description: m.description,
            synonyms: m.synonyms,
            variants: m.variants,
        }
    }
}

impl Metric {
    pub fn is_ratio(&self) -> bool {
        self.kind == MetricKind::Ratio
    }

    /// A ratio declared as a percent ("win rate": 29.55, not 0.2955) is
    /// computed and shown in percent, as people quote it.
    pub fn in_percent(&self) -> bool {
        self.is_ratio() && self.format == Some(MetricFormat::Percent)
    }

    pub fn is_growth(&self) -> bool {
        self.kind == MetricKind::Growth
    }

    pub fn is_derived(&self) -> bool {
        self.kind == MetricKind::Derived
    }

    /// The metrics a derived metric's `expr` names (`quantity_shipped -
    /// returned_quantity`), each once, in order. The names are the
    /// ontology's, so the text is read as generic SQL.
    pub fn metrics_used(&self) -> Result<Vec<String>, crate::sql::SqlError> {
        let text = self.expr.as_deref().unwrap_or_default();
        let mut parsed = crate::sql::parse_expression(crate::project::Dialect::Postgres, text)?;
        let mut names: Vec<String> = Vec::new();
        let _ = sqlparser::ast::visit_expressions_mut(&mut parsed, |e| {
            if let sqlparser::ast::Expr::Identifier(ident) = e
                && !names.contains(&ident.value)
            {
                names.push(ident.value.clone());
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        Ok(names)
    }

    /// A level (a balance, a headcount) read at one time per period.
    pub fn is_semi_additive(&self) -> bool {
        self.semi_additive.is_some()
    }

    /// A count of the rows that meet the metric's own condition ("wins":
    /// results in first place), with no expression or variant to it.
    pub fn counts_rows_under_condition(&self) -> bool {
        self.aggregate == Aggregate::Count
            && !self.filters.is_empty()
            && self.expr.is_none()
            && self.variants.is_empty()
    }

    /// A count of every row of its object ("customers"): the same as the
    /// number of distinct rows, however many rows a filter reaches through.
    pub fn counts_every_row(&self) -> bool {
        self.aggregate == Aggregate::Count
            && self.kind == MetricKind::Simple
            && self.filters.is_empty()
            && self.expr.is_none()
            && self.variants.is_empty()
    }

    /// Whether `other` aggregates the same expression the same way
    /// (standings "points" summed, as race results' "points" are).
    pub fn adds_up_like(&self, other: &Metric) -> bool {
        self.expr.is_some() && self.expr == other.expr && self.aggregate == other.aggregate
    }

    pub fn is_cumulative(&self) -> bool {
        self.kind == MetricKind::Cumulative
    }

    /// A metric computed from other metrics rather than from rows: a
    /// ratio, a growth, a running total.
    pub fn is_composed(&self) -> bool {
        self.kind != MetricKind::Simple
    }

    /// The variant named, or the default reading when none is named.
    pub fn reading(&self, variant: Option<&str>) -> Option<&MetricVariant> {
        match variant {
            Some(name) => self.variants.iter().find(|v| v.name == name),
            None => self.variants.iter().find(|v| v.default),
        }
    }
}

/// A period time is read at: a date grouped by it ("revenue by quarter"),
/// or what a growth compares with (the year before).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Grain {
    /// The year, as a number.
    Year,
    /// "1997-03": the year and month, which sort as text.
    Month,
    /// "1997-Q1": the year and quarter, which sort as text.
    Quarter,
    /// "1997-03-10": the Monday the week (Monday to Sunday) starts on.
    Week,
    /// "1997-03-14": the day itself, without a time of day.
    Day,
    /// The fiscal year, as the number of the calendar year it ends in
    /// (with a July start, July 1995 to June 1996 is 1996); the calendar
    /// year when the ontology sets no `fiscal_year_start`.
    FiscalYear,
    /// The month of the year as a number, 1 for January, whatever the
    /// year: "races held in April" over every season. Not a period: nothing
    /// is compared with or added up over the month before it.
    MonthOfYear,
}

impl Grain {
    /// The grains that are periods, one after another in time.
    pub const ALL: [Grain; 6] = [
        Grain::Day,
        Grain::Week,
        Grain::Month,
        Grain::Quarter,
        Grain::Year,
        Grain::FiscalYear,
    ];

    /// Whether it is a period of time that follows the one before it (not
    /// a month of every year).
    pub fn is_period(self) -> bool {
        self != Grain::MonthOfYear
    }

    /// As written in YAML and in output column names: `quarter`.
    pub fn name(self) -> &'static str {
        match self {
            Grain::Year => "year",
            Grain::Month => "month",
            Grain::Quarter => "quarter",
            Grain::Week => "week",
            Grain::Day => "day",
            Grain::FiscalYear => "fiscal_year",
            Grain::MonthOfYear => "month_of_year",
        }
    }

    /// How many months one period spans, for the grains made of months.
    pub fn months(self) -> Option<u32> {
        match self {
            Grain::Year | Grain::FiscalYear => Some(12),
            Grain::Quarter => Some(3),
            Grain::Month => Some(1),
            Grain::Week | Grain::Day | Grain::MonthOfYear => None,
        }
    }

    /// How many days one period spans, for the grains made of days.
    pub fn days(self) -> Option<u32> {
        match self {
            Grain::Week => Some(7),
            Grain::Day => Some(1),
            _ => None,
        }
    }
}

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    #[default]
    Count,
    CountDistinct,
    Sum,
    Avg,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricFormat {
    Integer,
    Decimal,
    Currency,
    Percent,
}

/// One reading of a metric; it changes what it names and keeps the rest.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricVariant {
    pub name: String,
    /// The reading used when a question does not say.
    #[serde(default, skip_serializing_if = "is_false")]
    pub default: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<String>,
    /// Replace the metric's filters when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Vec<String>>,
    /// Other metrics added to this one: race points plus `sprint_points`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plus: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
}

/// Plain-language context the engine and the LLM read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusinessRule {
    pub name: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
}

/// A question with SQL the data team approved: a worked example for the
/// planner and a regression test before publishing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifiedQuestion {
    pub question: String,
    pub sql: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}
