//! The semantic plan: the one contract between planners and the compiler, and
//! what a chat keeps so a follow-up can be read against it.

use serde::{Deserialize, Serialize};

/// What to compute, in the ontology's terms; never SQL.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SemanticPlan {
    /// Aggregates to compute; empty for a lookup of attribute values.
    #[serde(default)]
    pub measures: Vec<Measure>,
    /// Attributes to group by (with measures) or to show (without).
    #[serde(default)]
    pub dimensions: Vec<AttributeRef>,
    #[serde(default)]
    pub filters: Vec<Filter>,
    #[serde(default)]
    pub order: Option<Order>,
    #[serde(default)]
    pub limit: Option<u32>,
    /// Rows skipped before the limit: "the second most wins" is one row
    /// after the first. Compiled only with a limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// Dimensions the order and limit apply within: "for each region, which
    /// customer had the most revenue" is each region's top customer (rows
    /// tied for a place all kept), not the top rows overall.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limit_within: Vec<AttributeRef>,
    /// Conditions on a measure's value per group, SQL's `HAVING`:
    /// "customers who spent more than 500000", "drivers with at least 50
    /// wins".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub having: Vec<Threshold>,
    /// Objects the joins pass through where an object is reached more than
    /// one way ("nation" through the customer, not the supplier).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
    /// What the planner assumed, stated in the answer; forks carry options.
    #[serde(default)]
    pub assumptions: Vec<PlanAssumption>,
    /// The thing this plan's answer led with (its first row's first
    /// grouping), which "he" or "there" in the chat's next question means.
    /// Set by the chat from the answer, never planned or stored.
    #[serde(skip)]
    #[schemars(skip)]
    pub answered: Option<Box<Filter>>,
    /// What a ranked answer listed ("top 3 clients"): every row's value of
    /// the plan's first grouping, which "those" in the next question keeps
    /// ("which of those are in BUILDING"). Set by the chat like `answered`.
    #[serde(skip)]
    #[schemars(skip)]
    pub listed: Option<Box<Filter>>,
}

impl SemanticPlan {
    /// Whether the filters fix `attribute` to one value, so every row shows
    /// the value the question named ("Ferrari" in "Ferrari's nationality").
    pub fn fixes(&self, attribute: &AttributeRef) -> bool {
        self.filters
            .iter()
            .any(|f| f.attribute == *attribute && f.is_one_value())
    }
}

impl Filter {
    /// Equal to exactly one value: "Ferrari", "race 901".
    pub fn is_one_value(&self) -> bool {
        matches!(&self.condition, Condition::OneOf(values) if values.len() == 1)
    }

    /// Equal to one whole number: on a date, a year ("races in 2022").
    pub fn is_one_number(&self) -> bool {
        matches!(&self.condition, Condition::OneOf(values) if matches!(values.as_slice(), [Literal::Integer(_)]))
    }
}

/// A condition on one of a plan's measures, per group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Threshold {
    /// Which of the plan's measures, by position.
    pub measure: usize,
    /// `after` is "more than", `at_least` "at least", `before` "less than",
    /// `at_most` "at most"; `one_of` with one value is "exactly".
    pub condition: Condition,
}

/// One aggregate of a plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Measure {
    /// A metric of the ontology, in one of its variants.
    Metric {
        metric: String,
        #[serde(default)]
        variant: Option<String>,
    },
    /// "How many drivers ...": the number of distinct rows of an object.
    CountOf { object: String },
    /// "How many different drivers won": the number of distinct `object`s
    /// among the rows `metric` counts, through the metric's object's link
    /// to it.
    DistinctOf { object: String, metric: String },
    /// "Average points per race": `of` computed per value of `per`, then
    /// averaged over those values.
    AveragePer { of: Box<Measure>, per: AttributeRef },
    /// "How many customers have more than 30 orders": the number of values
    /// of `per` whose `of` meets `condition`.
    CountPassing {
        of: Box<Measure>,
        per: AttributeRef,
        condition: Condition,
    },
    /// "What percentage of the 2023 races did Verstappen win": `part` as a
    /// percentage of `whole`. The plan's filters apply to both; `only`
    /// applies to the part alone ("customers in Europe" of all revenue).
    Share {
        part: Box<Measure>,
        whole: Box<Measure>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        only: Vec<Filter>,
    },
    /// "How many more races in 2024 than in 2014": `of` under the `from`
    /// filters minus `of` under the `minus` filters; the plan's filters
    /// apply to both.
    Difference {
        of: Box<Measure>,
        from: Vec<Filter>,
        minus: Vec<Filter>,
    },
    /// "Revenue growth in 1996", "orders year over year": `of` against
    /// itself `periods` periods of `period` earlier, as the percentage it
    /// changed by. The plan's time filters and groupings say which periods;
    /// the earlier side reads every time attribute moved forward by the
    /// offset, so its 1995 is compared with the 1996 the plan names.
    Growth {
        of: Box<Measure>,
        period: TimeBucket,
        #[serde(default = "one_period", skip_serializing_if = "is_one_period")]
        periods: u32,
    },
    /// "Running total of orders in 1995", "year-to-date revenue": `of` per
    /// period of the plan's time grouping, added up period after period in
    /// time order, starting again at each `to_date` period (each year for
    /// year to date) and for each group of the plan's other groupings.
    Cumulative {
        of: Box<Measure>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to_date: Option<TimeBucket>,
        /// A rolling total: each period with the `window - 1` periods
        /// before it ("rolling 3-month revenue"), rather than every one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<u32>,
    },
    /// "Average quantity": an aggregate of one numeric attribute, for
    /// questions no metric names.
    Aggregate {
        attribute: AttributeRef,
        aggregate: crate::ontology::Aggregate,
    },
}

impl Measure {
    /// A measure computed from other measures (a percentage, a difference,
    /// an average per group), which compiles only alone and never nests.
    pub fn is_composite(&self) -> bool {
        matches!(
            self,
            Measure::Share { .. }
                | Measure::AveragePer { .. }
                | Measure::CountPassing { .. }
                | Measure::Difference { .. }
                | Measure::Growth { .. }
                | Measure::Cumulative { .. }
        )
    }
}

fn one_period() -> u32 {
    1
}

fn is_one_period(periods: &u32) -> bool {
    *periods == 1
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct AttributeRef {
    pub object: String,
    pub attribute: String,
    /// A date read at a coarser grain: "orders by year".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<TimeBucket>,
}

/// The grain a date is grouped at: the ontology's time grains.
pub use crate::ontology::Grain as TimeBucket;

impl AttributeRef {
    pub fn new(object: &str, attribute: &str) -> Self {
        Self {
            object: object.to_owned(),
            attribute: attribute.to_owned(),
            bucket: None,
        }
    }

    pub fn by_month(mut self) -> Self {
        self.bucket = Some(TimeBucket::Month);
        self
    }

    pub fn by_year(mut self) -> Self {
        self.bucket = Some(TimeBucket::Year);
        self
    }

    /// The date read at `grain`: "orders by quarter".
    pub fn by(mut self, grain: TimeBucket) -> Self {
        self.bucket = Some(grain);
        self
    }

    /// The output column: the attribute's name, with the grain when bucketed.
    pub fn column(&self) -> String {
        match self.bucket {
            Some(grain) => format!("{}_{}", self.attribute, grain.name()),
            None => self.attribute.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Filter {
    pub attribute: AttributeRef,
    pub condition: Condition,
}

/// A comparison of an attribute with literal values, which the compiler
/// renders as escaped literals, or with another attribute of the same row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "op", content = "value", rename_all = "snake_case")]
pub enum Condition {
    /// Equal to one of the values.
    OneOf(Vec<Literal>),
    /// Equal to none of the values: "outside Europe", "except Ferrari".
    NoneOf(Vec<Literal>),
    AtLeast(Literal),
    AtMost(Literal),
    Before(Literal),
    After(Literal),
    /// Inclusive at both ends.
    Between(Literal, Literal),
    /// A key with no row among those `metric` counts: "customers who never
    /// placed an order". Set on the key of the object the metric links to.
    NotAmong {
        metric: String,
        /// Conditions on the excluded rows: "never made the podium in 2024"
        /// excludes the 2024 podiums only.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        within: Vec<Filter>,
    },
    /// The latest (or earliest) value of the attribute, among the rows of
    /// `among` where given ("the most recent race" with results): "who won
    /// the most recent race", "races in the latest season".
    Extreme {
        latest: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        among: Option<String>,
    },
    /// Greater (later) than another attribute of the same row: "line items
    /// received after their commit date".
    AboveAttribute(AttributeRef),
    /// Less (earlier) than another attribute of the same row: "shipped
    /// before the promised date".
    BelowAttribute(AttributeRef),
    /// Greater than the attribute's average over the rows the plan's other
    /// filters keep: "1998 orders with a total above the average order
    /// value for 1998".
    AboveAverage,
    /// Less than that average: "pit stops shorter than average".
    BelowAverage,
    /// Greater than the attribute's average over every row, whatever the
    /// plan's other filters keep: "customers in Japan with a balance above
    /// the average balance of all customers".
    AboveAverageOfAll,
    /// Less than the average over every row.
    BelowAverageOfAll,
    /// The object's named filter holds: the filter's name stands where an
    /// attribute's would (`order.urgent_orders`): "urgent orders".
    Named,
    /// The object's named filter does not hold: "orders that are not urgent".
    NotNamed,
    /// No value at all (SQL `NULL`): "drivers who don't have a code".
    Missing,
    /// Some value (SQL `IS NOT NULL`): "drivers with a recorded fastest
    /// lap speed".
    Present,
    /// The value another plan's answer leads with: "the winner of the 2012
    /// Monaco Grand Prix" is whoever "who won the 2012 Monaco Grand Prix"
    /// ranks first. That plan's first column is this attribute; `said` is
    /// how the question named it.
    Leader {
        plan: Box<SemanticPlan>,
        said: String,
    },
    /// The rows of the ontology's peer the filter's attribute names
    /// (`race_result.teammate`, as a named filter's is): rows of its
    /// pairing object sharing every shared object with a row of a thing
    /// `of` keeps, for another thing. "Hamilton's teammates in 2013" are
    /// the 2013 results of the other driver in each of his cars.
    PeerOf {
        of: Vec<Filter>,
    },
}

impl Condition {
    /// A bound on a total in words, with its value: ("more than", 30).
    pub fn bound_words(&self) -> Option<(&'static str, &Literal)> {
        match self {
            Condition::After(v) => Some(("more than", v)),
            Condition::AtLeast(v) => Some(("at least", v)),
            Condition::Before(v) => Some(("less than", v)),
            Condition::AtMost(v) => Some(("at most", v)),
            _ => None,
        }
    }

    /// A comparison with the attribute's own average.
    pub fn is_against_average(&self) -> bool {
        matches!(
            self,
            Condition::AboveAverage
                | Condition::BelowAverage
                | Condition::AboveAverageOfAll
                | Condition::BelowAverageOfAll
        )
    }

    /// The other attribute a condition compares with, if it compares with
    /// one rather than with literal values.
    pub fn other_attribute(&self) -> Option<&AttributeRef> {
        match self {
            Condition::AboveAttribute(other) | Condition::BelowAttribute(other) => Some(other),
            _ => None,
        }
    }
}

impl Filter {
    /// The rows of `object` its named filter `filter` keeps.
    pub fn named(object: &str, filter: &str) -> Self {
        Filter {
            attribute: AttributeRef::new(object, filter),
            condition: Condition::Named,
        }
    }

    /// The rows of `object` its named filter `filter` does not keep.
    pub fn not_named(object: &str, filter: &str) -> Self {
        Filter {
            attribute: AttributeRef::new(object, filter),
            condition: Condition::NotNamed,
        }
    }

    /// Whether it applies one of an object's named filters (or excludes
    /// its rows) rather than a condition on an attribute.
    pub fn is_named(&self) -> bool {
        matches!(self.condition, Condition::Named | Condition::NotNamed)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Literal {
    Integer(i64),
    Text(String),
}

impl std::fmt::Display for Literal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Literal::Integer(n) => write!(f, "{n}"),
            Literal::Text(text) => f.write_str(text),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Order {
    /// By the measure at this index.
    Measure { index: usize, descending: bool },
    /// By the dimension at this index.
    Dimension { index: usize, descending: bool },
}

/// An assumption as the response shows it; a fork lists its options and the
/// one the plan uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanAssumption {
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<String>,
}

impl PlanAssumption {
    pub fn stated(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            options: Vec::new(),
            selected: None,
        }
    }

    pub fn is_fork(&self) -> bool {
        !self.options.is_empty()
    }
}
