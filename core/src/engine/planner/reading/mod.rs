//! From pieces to a plan: the pieces sorted into the roles they play
//! (measures, groupings, filters, order), then assembled into the semantic
//! plan they describe.

mod concepts;
mod dates;
mod dimensions;
mod filters;
mod follow_up;
mod measures;
mod named_filters;
mod roles;
mod shape;

pub(super) use follow_up::about_one_named_thing;

use super::Planned;
use super::attributes::{base_object, display_of, is_a_name, is_display, is_person};
use super::time::DateRange;
use crate::engine::compile::display_attribute;
use crate::engine::grammar::Op;
use crate::engine::graph;
use crate::engine::lexicon::{Concept, Entry};
use crate::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, Order, PlanAssumption, SemanticPlan,
};
use crate::ontology::{Aggregate, AttributeRole, Metric, MetricKind, Object, Ontology};
use std::ops::ControlFlow;

/// A span that names values: every attribute it may be a value of, with the
/// values it matches there.
#[derive(Debug)]
pub(super) struct ValueMention {
    options: Vec<(AttributeRef, Vec<String>)>,
    text: String,
    /// After "not", "outside", "except": every value but these.
    negated: bool,
    /// After a share's "of all": the value says what the whole is ("what
    /// percent of all AIR line items is that").
    of_whole: bool,
    /// Said before the share was asked: "of the line items shipped by AIR,
    /// what percentage arrived late" takes the percentage of AIR line items,
    /// unless the whole is named later ("as a share of all line items").
    before_share: bool,
    /// "brass parts", "some kind of brass": the value is said right before
    /// its own things in the plural, or as a kind, so it may name a kind of
    /// them rather than one of them.
    before_its_things: bool,
}

/// The pieces of one question, sorted into the roles they play.
#[derive(Debug, Default)]
pub(super) struct Reading {
    /// Metrics named outright, with the variant when the words settle it.
    metrics: Vec<(usize, Option<usize>)>,
    /// The only metric came from a word that also names an object ("races"
    /// in "how many races did X win"); a later metric word replaces it.
    weak_metric: bool,
    /// The object the weak metric's word also named.
    weak_object: Option<usize>,
    /// The weak metric's word came right after "how many".
    weak_counted: bool,
    /// Where the weak metric's word was, and where the piece being placed is:
    /// "Grand Prix wins" is one measure, "races did X win" is not.
    weak_at: usize,
    /// Whether the weak metric's word was plural ("orders", not "race").
    weak_plural: bool,
    /// The weak metric's word came after "by" in a ranking ("top 5
    /// countries by sales"): what the ranking is by, which a later thing
    /// ("based on the customer's country") only qualifies.
    weak_ranks: bool,
    at: usize,
    /// "average quantity": an aggregate of a measure attribute.
    aggregates: Vec<(AttributeRef, Aggregate)>,
    /// A count asked of an object ("how many drivers").
    count_of: Option<usize>,
    /// Variants named apart from their metric ("including sprints").
    variants: Vec<(usize, usize)>,
    /// Each grouping phrase with every attribute it may mean; the one
    /// nearest to what is measured wins.
    groupings: Vec<Vec<AttributeRef>>,
    /// Attributes asked about ("nationality of ...", "which team").
    asked: Vec<AttributeRef>,
    /// Numeric measure attributes named without an aggregate ("how many
    /// units", "discount on average"): summed or averaged, never grouped.
    quantities: Vec<AttributeRef>,
    /// "average" or "on average" anywhere in the question.
    averaged: bool,
    /// Rows named by their key: "order number 1".
    keys: Vec<(usize, i64)>,
    /// "per" named a grouping: with "average", the average is over it.
    per: bool,
    /// "what percentage of", "podium rate": the answer is a share.
    share: bool,
    /// A metric a later one replaced ("races" in "what percentage of
    /// races did X win"): what a share is of.
    displaced: Option<usize>,
    /// Later metric words that also name an attribute ("wins" is also a
    /// standings column), read as metrics only by a share.
    also: Vec<usize>,
    /// Objects mentioned without another role.
    mentioned: Vec<usize>,
    /// Objects mentioned after "all": rolled up, not grouped.
    rolled_up: Vec<usize>,
    /// "across all ship modes": attributes after "all", whatever value the
    /// chat had them at.
    across: Vec<AttributeRef>,
    /// Named filters used ("urgent orders"), as object and filter
    /// positions, and whether a negation excluded their rows.
    named_filters: Vec<(usize, usize, bool)>,
    /// Values named in the question: for each span, every attribute it may
    /// be a value of, with the matching values; resolved once the plan's
    /// objects are known.
    values: Vec<ValueMention>,
    years: Vec<(Op, i64)>,
    /// The thing a year qualifies ("1995 orders"), whose date it is of.
    year_of: Option<usize>,
    /// The date a year directly follows ("orders placed in 1997"), which
    /// the year is of even where another date was named before it.
    year_after_date: Option<AttributeRef>,
    /// The thing a date follows ("the race held on 2015/11/29"), whose own
    /// date it is.
    date_of: Option<usize>,
    /// A number compared with nothing the question names: "spent more
    /// than 500000" (a measure's total, which no plan filters on yet).
    pub(super) uncompared: Option<(Op, i64)>,
    /// The thing named right after that number ("more than 3 suppliers"),
    /// which is what the compared total counts.
    uncompared_of: Option<usize>,
    /// "both Ferrari and McLaren": the things listed have every value
    /// named, not one of them.
    both: bool,
    /// Attributes the things have no value of: "drivers without a code".
    missing: Vec<AttributeRef>,
    /// The displaced metric's word only qualified the next ("race
    /// entries"): it is not a second measure.
    displaced_modifies: bool,
    /// Attributes the question names by their own name ("milliseconds"),
    /// not a synonym ("duration").
    named_by_name: Vec<AttributeRef>,
    /// The chat's other filters on the one thing "there" or "it" refers
    /// to: the year of "the 2022 Hungarian GP".
    referred_also: Vec<Filter>,
    /// "drivers with a recorded fastest lap speed": attributes that must
    /// have a value.
    present: Vec<AttributeRef>,
    pub(super) comparison: bool,
    pub(super) who: bool,
    /// "each of them", "which of those": the question is about what the
    /// chat's last answer counted or listed.
    refers_back: bool,
    /// "which of those", "each of them": the rows the last answer listed.
    partitive: bool,
    /// "how many of them": the things the chat counted are counted again,
    /// among those that did what is named next.
    counts_among: bool,
    when: bool,
    order: Option<bool>,
    limit: Option<u32>,
    only: bool,
    /// "where is X": the location of what X names.
    place: bool,
    /// The question opens with "where", as a question of place, not as
    /// "line items where the ship mode is AIR".
    place_first: bool,
    /// The question opens with "of the" or "among the": what follows scopes
    /// everything after, a share's whole as well as its part.
    pub(super) opens_scoped: bool,
    /// "by year", "each year", "per year".
    per_year: bool,
    /// "by month", "each month", "monthly".
    per_month: bool,
    /// "by quarter", "weekly", "per day": the date grouped at that grain.
    per_grain: Option<crate::ontology::Grain>,
    /// "growth", "year over year": the measure against an earlier period,
    /// which one when the question says.
    pub(super) growth: Option<Option<crate::ontology::Grain>>,
    /// "running total", "year to date": added up over the periods, starting
    /// again at each period named.
    pub(super) running: Option<Option<crate::ontology::Grain>>,
    /// "second", "P3": finishing positions asked about.
    ordinals: Vec<i64>,
    /// "the second most wins": the place in the ranking asked for.
    rank: Option<u32>,
    /// "the winning driver": conditional counts said as adjectives, whose
    /// conditions say which rows.
    adjectives: Vec<usize>,
    /// "oldest", "the latest race": the extreme of a date, true for latest.
    extreme: Option<bool>,
    /// The object the extreme word was about.
    extreme_object: Option<usize>,
    /// The extreme is of a person's age ("the youngest driver"), not of a
    /// date ("the latest race").
    extreme_of_age: bool,
    /// Ranges of days, with the time word before each.
    dates: Vec<(Op, DateRange)>,
    /// "in April": months of every year, by number.
    months: Vec<u32>,
    /// "in descending order": how a list is sorted, true for descending.
    sort: Option<bool>,
    /// "the highest fastest lap speed": a number of each row whose extreme
    /// row is asked for, not its total.
    peak: Option<AttributeRef>,
    /// "in descending order of latitude": the attribute a list is sorted by.
    sort_by: Option<AttributeRef>,
    /// "oldest season first": the sort is by the time shown.
    in_time_order: bool,
    /// Where the one metric so far was typed as a verb ("started"): a
    /// metric right after it ("on pole") is the one meant.
    verb_at: Option<usize>,
    /// The first measure was named by what was done ("won", "started"), so
    /// a later count of the same rows may say which of them it counts.
    measured_by_verb: bool,
    /// Dates named by a verb ("shipped", "ordered"): what a time in the
    /// question is of, never a grouping of their own.
    verb_dates: Vec<AttributeRef>,
    /// Of those, the ones typed as a verb ("born", "shipped").
    dated_by_verb: Vec<AttributeRef>,
    /// The numeric attribute named last, which "over 9000" compares.
    last_quantity: Option<AttributeRef>,
    /// Numeric attributes compared with a number: "more than", "at
    /// least", "less than" or "at most" it.
    compared: Vec<(AttributeRef, Op, i64)>,
    /// "list", "which", "what": things are asked for, not only measured.
    lists: bool,
    /// The share word came before any measure ("what percentage of poles
    /// became wins"): the measure named first is the whole, not the part
    /// ("wins as a percentage of poles").
    share_names_whole: bool,
    /// A share's "of all" was read: values after it bound the whole.
    whole_named: bool,
    /// Still inside that "of all" phrase, before the thing it names.
    whole_open: bool,
    /// Numbered attributes equal to a number: "grid 4", "first on the grid".
    equals: Vec<(AttributeRef, i64)>,
    /// Attributes compared with another of the same thing: "received after
    /// the commit date" (true: after or above it).
    against: Vec<(AttributeRef, bool, AttributeRef)>,
    /// An attribute compared with its own average: "orders with a total
    /// above the average order value" (true: above it).
    against_average: Option<(Condition, AttributeRef)>,
    /// Which grouping "per" introduced ("average points per race for each
    /// driver": the race), by its place among the groupings.
    per_grouping: Option<usize>,
    /// "but": what the question excludes is set against what holds.
    contrast: bool,
    /// A time named before a negation: it says which things ("drivers who
    /// raced in 2025 have never ...").
    time_before_negation: bool,
    /// The values named before the negation ("raced for Ferrari but never
    /// won for Ferrari"), which say which things as well as which rows.
    values_before_negation: Vec<String>,
    /// "ever", "in any race" after a negation: what did not happen, at no
    /// time.
    ever: bool,
    /// Where the last concept that named only values was: "German
    /// customers" qualifies the customers by the value before them.
    value_at: Option<usize>,
    /// Where the last attribute asked about was ("what segment and country").
    asked_at: Option<usize>,
    /// "the brands made by …": an attribute asked in the plural, of
    /// several things.
    asked_plural: bool,
    /// "driver nationalities": the object whose attribute the next word names.
    qualifier: Option<usize>,
    /// "he", "his", "there": about the thing the chat's last answer led with.
    refers_to_answer: bool,
    /// The question opens with "who": the person is what it is about.
    who_opens: bool,
    /// The reference is "he" or "she": one person, even among a set ("how
    /// many of those did he turn into wins").
    refers_to_person: bool,
    /// "their drivers": the thing "their" possesses, which is the chat's
    /// last answer's lead's when that is one thing of another kind.
    possessed: Option<usize>,
    /// "that team", "the same customer": the object named after the
    /// demonstrative, which is the answer's lead when it led with one.
    demonstrated: Option<usize>,
    /// "... and how many wins": the count after "and" asks a measure beside
    /// the one named before, not in its place.
    and_how_many: bool,
    /// "that brand": the attribute whose value the last answer led with.
    demonstrated_value: Option<(usize, usize)>,
    /// "that year", "the same season": the chat's time is kept.
    same_time: bool,
    /// "of all time", "in his career": the chat's scope is not.
    all_time: bool,
    /// "never driven for Ferrari": a value negated through a verb, which
    /// says what the things never did, not which of their rows to leave out.
    verb_negates_value: bool,
    /// The negation is "never".
    never: bool,
    /// Some word of the question was not read ("team principal").
    unread: bool,
    /// "won a race in 2012 but not in 2013": the years after the negation,
    /// when the things' own years come before it.
    years_lacking: Vec<(Op, i64)>,
    /// The conditions of the measure the things have in their own years
    /// ("won": a first place), beside what they lack in the others.
    contrast_filters: Vec<Filter>,
    /// "how many more … than …" (true), "how many fewer" (false).
    difference: Option<bool>,
    /// "in which year was it held": the year of what is asked about.
    year_asked: bool,
    /// "which race had the most?": nothing is named after the superlative,
    /// so in a chat it ranks what the last answer measured.
    superlative_last: bool,
    /// "how many" anywhere in the question.
    counts: bool,
    /// "between them", "in total": one figure for all the things named.
    together: bool,
    /// "how many winners": the people a metric's rows name, counted.
    agents_counted: bool,
    /// A negation waits for the value it excludes.
    negate: bool,
    /// A negation that excluded no value ("never won").
    pub(super) dangling_negation: bool,
    /// "finished in the top 3": the places up to this one.
    top_places: Option<i64>,
    /// "outside the top 10": the places after `top_places`, not up to it.
    outside_top: bool,
    /// "in the top 3 on the grid": the place named after the number, where
    /// it is not the finishing position.
    top_places_of: Option<AttributeRef>,
    /// "his second pit stop": the thing an ordinal numbers, named right
    /// after it.
    ordinal_of: Option<usize>,
    /// The metric a negation excluded: "customers who never placed an order".
    negated_metric: Option<usize>,
    /// Things a value right before them qualified ("French customers"),
    /// through which the value's attribute is reached.
    qualified: Vec<usize>,
    /// Where other measures said which things took part, beside one
    /// excluded ("drivers who started a race in 2022 but never scored"):
    /// the excluded measure's object, whose rows they took part through.
    took_part: Option<usize>,
    /// Things named in the plural ("the races"), not as one ("the race").
    plural: Vec<usize>,
    /// The question opens with "and": it goes on from the last answer
    /// ("and who was on pole?").
    continues: bool,
    /// "add how many wins each had": the measure joins the last answer's.
    adds: bool,
    /// The question opens with it ("add the number of orders for each"):
    /// an instruction, so the measure joins whatever rows it counts, not
    /// only the last answer's ("how many sprint points did he add").
    adds_first: bool,
    /// "status breakdown for 2023": with nothing measured, the rows for
    /// each value shown are counted.
    tallies: bool,
    /// The things named after the concept being placed, nearest first:
    /// "the reference name and nationality of the driver" are the
    /// driver's.
    named_later: Vec<usize>,
    /// The things the chat's last question was about, what it counted
    /// first: "how many suppliers in each region" → "the average account
    /// balance of the ones in Africa" is the suppliers' balance.
    earlier: Vec<usize>,
    /// The question opens with "how much": it asks for an amount.
    how_much: bool,
    /// The concept being placed is followed right away by values that
    /// qualify it ("customers in ASIA").
    value_next: bool,
    /// A thing named as one right after "how many" ("how many times did a
    /// driver retire"): counted only when nothing else is.
    one_counted: Option<usize>,
}

/// What assembling a plan carries from one step to the next.
pub(super) struct Assembly<'a> {
    plan: SemanticPlan,
    /// What the answer states it assumed (a value among several matches).
    assumptions: Vec<PlanAssumption>,
    /// The chat's last plan, where the question builds on it.
    previous: Option<&'a SemanticPlan>,
    /// The object whose rows are measured.
    base: Option<String>,
    /// Each grouping phrase, resolved to the attribute nearest the base.
    groupings: Vec<AttributeRef>,
    /// The finishing position an ordinal ("second") filters.
    position: Option<AttributeRef>,
    /// The object "oldest" or "the latest" is about.
    extreme_object: Option<usize>,
    /// What "who" and a year are read against when nothing is measured.
    anchor: Option<String>,
    /// The excluded metric and the object whose rows it keeps.
    excluded: Option<(usize, usize)>,
    /// A quantity the things listed are ranked by.
    rank_by: Option<AttributeRef>,
}

impl Reading {
    /// The plan the reading describes, or why there is none.
    pub(super) fn into_plan(
        mut self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
    ) -> Planned {
        let planned = match self.assemble(ontology, previous) {
            ControlFlow::Break(planned) => planned,
            ControlFlow::Continue(plan) => Planned::Plan(plan),
        };
        match planned {
            // A follow-up's filters may come from the question before.
            Planned::Plan(plan) => match previous
                .is_none()
                .then(|| self.unnamed_detail(ontology, &plan))
                .flatten()
            {
                Some(reason) => Planned::NotAnswerable(reason),
                None => {
                    // The finishing passes, in order, each on the plan the
                    // last one left.
                    let plan = aggregated_not_grouped(ontology, plan);
                    let plan = listed_not_counted(ontology, plan);
                    let plan = named_thing_shown(ontology, plan);
                    let plan = placed_within(ontology, plan);
                    let plan = self.how_often(ontology, plan);
                    Planned::Plan(self.who_first(ontology, plan))
                }
            },
            other => other,
        }
    }

    /// "How much revenue did it bring in?" → "which country in it
    /// contributed the most of that?": a ranking about the thing the last
    /// answer named, by nothing it names, is by what was just measured.
    fn ranked_by_the_last_measure(
        &mut self,
        ontology: &Ontology,
        referred: bool,
        previous: Option<&SemanticPlan>,
    ) {
        if !referred
            || self.order.is_none()
            || !self.metrics.is_empty()
            || !self.aggregates.is_empty()
            || self.count_of.is_some()
            || self.peak.is_some()
            || !self.quantities.is_empty()
        {
            return;
        }
        let Some([Measure::Metric { metric, variant }]) = previous.map(|p| p.measures.as_slice())
        else {
            return;
        };
        let Some(m) = ontology.metrics.iter().position(|x| x.name == *metric) else {
            return;
        };
        let v = variant.as_ref().and_then(|v| {
            ontology.metrics[m]
                .variants
                .iter()
                .position(|x| x.name == *v)
        });
        self.metrics.push((m, v));
    }

    /// "Who made the quickest pit stop": the person leads the row, and is
    /// who the answer is about ("he" after it), whatever else is shown.
    fn who_first(&self, ontology: &Ontology, mut plan: SemanticPlan) -> SemanticPlan {
        if !self.who_opens || !plan.measures.is_empty() {
            return plan;
        }
        let Some(at) = plan.dimensions.iter().position(|d| {
            is_display(ontology, d)
                && ontology
                    .objects
                    .iter()
                    .find(|o| o.name == d.object)
                    .is_some_and(is_person)
        }) else {
            return plan;
        };
        if at == 0 {
            return plan;
        }
        let person = plan.dimensions.remove(at);
        plan.dimensions.insert(0, person);
        if let Some(Order::Dimension { index, .. }) = &mut plan.order {
            *index = match *index {
                i if i == at => 0,
                i if i < at => i + 1,
                i => i,
            };
        }
        plan
    }

    /// "How often was Latifi eliminated in Q1": with nothing measured and
    /// nothing to tally by but the rows' own keys, how many rows the
    /// conditions keep.
    fn how_often(&self, ontology: &Ontology, mut plan: SemanticPlan) -> SemanticPlan {
        if self.tallies
            && self.extreme.is_none()
            && plan.measures.is_empty()
            && !plan.filters.is_empty()
            && plan.dimensions.iter().all(|d| {
                !self.asked.contains(d)
                    && ontology
                        .attribute(&d.object, &d.attribute)
                        .is_some_and(|a| a.role == AttributeRole::Identifier)
            })
            && let Some(rows) = shape::tallied_rows(ontology, &plan)
        {
            plan.dimensions.clear();
            plan.order = None;
            plan.limit = None;
            plan.measures = vec![Measure::CountOf { object: rows }];
        }
        plan
    }

    /// "Hamilton's lap time on lap 20": a number compared with an
    /// attribute of something the question never names, of which each
    /// measured row has many (a result's pit stops), asks for detail the
    /// ontology does not record; filtering those other rows would answer
    /// another question.
    fn unnamed_detail(&self, ontology: &Ontology, plan: &SemanticPlan) -> Option<String> {
        let base = base_object(ontology, plan)?;
        let named: Vec<String> = self
            .named_objects(ontology)
            .into_iter()
            .chain(self.count_of.map(|o| ontology.objects[o].name.clone()))
            .chain(self.weak_object.map(|o| ontology.objects[o].name.clone()))
            .chain(
                self.plural
                    .iter()
                    .map(|o| ontology.objects[*o].name.clone()),
            )
            .collect();
        plan.filters.iter().find_map(|filter| {
            let object = &filter.attribute.object;
            let Condition::OneOf(values) = &filter.condition else {
                return None;
            };
            // Named by its own name ("lap 20"), not a year read as the
            // season of what is measured.
            let named_attribute = self.named_by_name.contains(&filter.attribute)
                && ontology
                    .attribute(object, &filter.attribute.attribute)
                    .is_some_and(|a| a.role != AttributeRole::Time);
            let numbers = named_attribute
                && !values.is_empty()
                && values.iter().all(|v| matches!(v, Literal::Integer(_)));
            // The join is looked at last: it is the costly check.
            let unnamed = numbers && *object != base && !named.contains(object);
            let fans_out = || {
                graph::join_tree(ontology, &base, &[object.as_str()])
                    .is_ok_and(|tree| tree.fans_out())
            };
            (unnamed && fans_out()).then(|| {
                let label = |name: &str| {
                    ontology
                        .objects
                        .iter()
                        .find(|o| o.name == name)
                        .map_or(name.to_owned(), |o| o.label.to_lowercase())
                };
                let thing = label(object);
                format!(
                    "the question compares {} with a number, but the ontology records it only per {thing} (several per {}), and the question names no {thing}",
                    filter.attribute.attribute.replace('_', " "),
                    label(&base),
                )
            })
        })
    }

    /// One step per role: each adds its part to the plan, and any may
    /// settle the answer early (a refusal, or a list that is complete).
    fn assemble(
        &mut self,
        ontology: &Ontology,
        previous: Option<&SemanticPlan>,
    ) -> ControlFlow<Planned, SemanticPlan> {
        if let Some(reread) = self
            .other_end(ontology, previous)
            .or_else(|| self.place_on_list(previous))
        {
            return ControlFlow::Break(Planned::Plan(reread));
        }
        self.peak_as_value(ontology, previous);
        self.place_in_standings(ontology);
        let referred = self.referred(ontology, previous);
        self.ranked_by_the_last_measure(ontology, referred.is_some(), previous);
        self.read_on_those(ontology, previous);
        self.counted_among_those(ontology);
        let counted_rows = self.values_among_counted_rows(ontology);
        let also_conditions = self.displaced_conditions(ontology);
        let adjective_conditions: Vec<Filter> = self
            .adjectives
            .iter()
            .filter_map(|m| {
                let metric = &ontology.metrics[*m];
                metric_conditions(ontology, metric, &metric.object).collect::<Option<Vec<_>>>()
            })
            .flatten()
            .collect();
        let excluded = self.set_exclusion_apart(ontology);
        let measured = self.measures(ontology, previous)?;
        // "how many poles did he have that season": a measure of the thing
        // referred to, in the last question's scope; "when was the first race
        // held there": a new question about it.
        let scope = match (&referred, previous) {
            (Some(filter), Some(before)) if measured.measures.is_empty() => {
                self.scope_of_referred(ontology, filter, before)
            }
            _ => Vec::new(),
        };
        let previous = match &referred {
            Some(_) if measured.measures.is_empty() => None,
            _ => previous,
        };
        let rank_by = measured.rank_by.clone();
        let referred_object = referred.as_ref().map(|f| f.attribute.object.clone());
        let mut plan = self.carry_over(ontology, previous, referred, measured);
        counted_on_rows_named(ontology, &mut plan);
        plan.filters.extend(counted_rows);
        plan.filters.extend(also_conditions);
        for condition in adjective_conditions {
            if !plan.filters.contains(&condition) {
                plan.filters.push(condition);
            }
        }
        for filter in scope {
            if !plan.filters.iter().any(|f| f.attribute == filter.attribute) {
                plan.filters.push(filter);
            }
        }
        self.all_time_scope(ontology, &mut plan, referred_object.as_deref());
        let mut assembly = self.frame(ontology, plan, previous, rank_by, excluded)?;
        self.filter(ontology, &mut assembly)?;
        self.apply_named_filters(ontology, &mut assembly);
        self.date(ontology, &mut assembly)?;
        self.shape(ontology, assembly)
    }

    /// "How many of those poles did he turn into wins": of the rows one
    /// conditional count counts, those another counts; the second is
    /// measured among the first.
    fn counted_among_those(&mut self, ontology: &Ontology) {
        let conditional_count = |m: usize| {
            let metric = &ontology.metrics[m];
            metric.aggregate == Aggregate::Count && !metric.filters.is_empty()
        };
        if let ([(among, None)], [counted]) = (self.metrics.as_slice(), self.also.as_slice())
            && self.partitive
            && self.displaced.is_none()
            && among != counted
            && conditional_count(*among)
            && conditional_count(*counted)
            && ontology.metrics[*among].object == ontology.metrics[*counted].object
        {
            self.displaced = Some(*among);
            self.metrics = vec![(*counted, None)];
            self.also.clear();
            self.quantities.clear();
            self.last_quantity = None;
        }
    }

    /// "how many returned line items were shipped late": a count under a
    /// condition, of rows another measure's condition names too, counts
    /// the rows that meet both.
    fn displaced_conditions(&mut self, ontology: &Ontology) -> Vec<Filter> {
        let (Some(d), [(m, None)]) = (self.displaced, self.metrics.as_slice()) else {
            return Vec::new();
        };
        let (metric, other) = (&ontology.metrics[*m], &ontology.metrics[d]);
        let simple = |x: &crate::ontology::Metric| {
            x.kind == MetricKind::Simple && !x.filters.is_empty() && x.variants.is_empty()
        };
        if !self.counts
            || self.share
            || self.partitive
            || !simple(metric)
            || !simple(other)
            || metric.aggregate != Aggregate::Count
            || metric.object != other.object
        {
            return Vec::new();
        }
        let Some(filters) =
            metric_conditions(ontology, other, &other.object).collect::<Option<Vec<_>>>()
        else {
            return Vec::new();
        };
        self.displaced = None;
        filters
    }

    /// "How many nationalities among drivers who won a race in 2012": the
    /// values are counted, and the verb's measure only says which rows
    /// they are read through. Its conditions become the plan's filters,
    /// its rows the route.
    fn values_among_counted_rows(&mut self, ontology: &Ontology) -> Vec<Filter> {
        let ([(attribute, Aggregate::CountDistinct)], [(m, None)]) =
            (self.aggregates.as_slice(), self.metrics.as_slice())
        else {
            return Vec::new();
        };
        let metric = &ontology.metrics[*m];
        if !self.counts
            || !self.measured_by_verb
            || !self.variants.is_empty()
            || metric.kind != MetricKind::Simple
            || metric.aggregate != Aggregate::Count
            || metric.object == attribute.object
        {
            return Vec::new();
        }
        let Some(filters) =
            metric_conditions(ontology, metric, &metric.object).collect::<Option<Vec<_>>>()
        else {
            return Vec::new();
        };
        self.took_part = ontology
            .objects
            .iter()
            .position(|o| o.name == metric.object);
        self.metrics.clear();
        filters
    }

    /// Objects the question names, which settle a route they lie on.
    fn named_objects(&self, ontology: &Ontology) -> Vec<String> {
        self.mentioned
            .iter()
            .chain(self.took_part.iter())
            .map(|o| ontology.objects[*o].name.clone())
            .collect()
    }

    /// What a year or a date is read against: the measured or asked-about
    /// object, else what the plan shows or filters, else a mentioned object.
    fn time_anchor(
        &self,
        ontology: &Ontology,
        anchor: Option<&str>,
        plan: &SemanticPlan,
    ) -> Option<String> {
        anchor.map(str::to_owned).or_else(|| {
            plan.dimensions
                .first()
                .map(|d| d.object.clone())
                .or_else(|| plan.filters.first().map(|f| f.attribute.object.clone()))
                .or_else(|| {
                    self.mentioned
                        .first()
                        .map(|o| ontology.objects[*o].name.clone())
                })
        })
    }

    /// Whether the question named anything of the ontology: a measure, an
    /// attribute, a value, a grouping or a time.
    pub(super) fn grounds_anything(&self) -> bool {
        !(self.metrics.is_empty()
            && self.variants.is_empty()
            && self.aggregates.is_empty()
            && self.quantities.is_empty()
            && self.count_of.is_none()
            && self.asked.is_empty()
            && self.values.is_empty()
            && self.groupings.is_empty()
            && self.named_filters.is_empty()
            && self.years.is_empty()
            && self.dates.is_empty())
    }

    /// Whether the question ranks or picks an extreme ("which race had the
    /// most?"), which a follow-up may ask of the very plan it follows.
    pub(super) fn ranks(&self) -> bool {
        self.order.is_some()
            || self.limit.is_some()
            || self.extreme.is_some()
            || self.sort.is_some()
    }

    /// Whether a negation of a measure can be planned: as the rows of the
    /// counted or named thing that the metric counts nothing for, where the
    /// metric's object links to that thing directly.
    pub(super) fn excludes_a_measure(&self, ontology: &Ontology) -> bool {
        self.negated_metric
            .is_some_and(|m| self.excluded_of(ontology, m).is_some())
    }

    /// "the average discount on line items that were not returned": where
    /// the negated measure counts rows of the thing measured under one
    /// condition of their own (`l_returnflag = 'R'`), the rows without it
    /// are meant, and the condition is negated as a value would be.
    /// Whether it was.
    pub(super) fn negate_own_condition(&mut self, ontology: &Ontology) -> bool {
        let Some(m) = self.negated_metric else {
            return false;
        };
        let metric = &ontology.metrics[m];
        let measured = self
            .metrics
            .iter()
            .filter(|(x, _)| *x != m)
            .map(|&(x, _)| ontology.metrics[x].object.as_str())
            .chain(self.aggregates.iter().map(|(a, _)| a.object.as_str()))
            .chain(self.count_of.map(|o| ontology.objects[o].name.as_str()))
            .collect::<Vec<_>>();
        if measured.is_empty() || measured.iter().any(|o| *o != metric.object) {
            return false;
        }
        let conditions: Option<Vec<Filter>> =
            metric_conditions(ontology, metric, &metric.object).collect();
        let Some([condition]) = conditions.as_deref() else {
            return false;
        };
        let Condition::OneOf(literals) = &condition.condition else {
            return false;
        };
        self.asked.retain(|a| *a != condition.attribute);
        self.also.retain(|x| *x != m);
        self.metrics.retain(|(x, _)| *x != m);
        self.weak_metric &= !self.metrics.is_empty();
        self.values.push(ValueMention {
            options: vec![(
                condition.attribute.clone(),
                literals.iter().map(ToString::to_string).collect(),
            )],
            text: metric.label.to_lowercase(),
            negated: true,
            of_whole: false,
            before_share: false,
            before_its_things: false,
        });
        self.dangling_negation = false;
        self.negated_metric = None;
        true
    }

    /// The object whose rows "never <metric>" keeps.
    fn excluded_of(&self, ontology: &Ontology, m: usize) -> Option<usize> {
        let metric = &ontology.metrics[m];
        // A count's rows are what it counts; "never scored a point" keeps
        // the things none of whose rows add to the sum (the compiler
        // excludes the rows that do).
        if !matches!(metric.aggregate, Aggregate::Count | Aggregate::Sum) {
            return None;
        }
        let asked = self
            .asked
            .iter()
            .filter_map(|a| ontology.objects.iter().position(|o| o.name == a.object));
        self.count_of
            .into_iter()
            .chain(asked)
            .chain(self.mentioned.iter().copied())
            // "How many customers never bought anything": the customers
            // also read as their count.
            .chain(self.weak_object)
            .find(|o| {
                let object = &ontology.objects[*o];
                // Directly or through other links ("parts never ordered":
                // through the orders' line items).
                object.primary_key.len() == 1
                    && graph::join_tree(ontology, &metric.object, &[object.name.as_str()]).is_ok()
            })
    }
}

/// "Which circuits are in Italy?": things listed by the country they are
/// in are told apart by the town each is in, where they record one.
fn placed_within(ontology: &Ontology, mut plan: SemanticPlan) -> SemanticPlan {
    let [shown] = plan.dimensions.as_slice() else {
        return plan;
    };
    let Some(object) = ontology.objects.iter().find(|o| o.name == shown.object) else {
        return plan;
    };
    let naming = |name: &str, words: &[&str]| {
        ontology
            .attribute(&object.name, name)
            .is_some_and(|a| words.iter().any(|w| a.naming_words().contains(w)))
    };
    let by_country = plan.filters.iter().any(|f| {
        f.attribute.object == object.name
            && naming(&f.attribute.attribute, &["country"])
            && matches!(f.condition, Condition::OneOf(_))
    });
    let town = object
        .attributes
        .iter()
        .find(|a| naming(&a.name, &["location", "city", "town"]) && !naming(&a.name, &["country"]));
    if !plan.measures.is_empty()
        || display_attribute(object) != Some(shown.attribute.as_str())
        || !by_country
    {
        return plan;
    }
    if let Some(town) = town {
        plan.dimensions
            .push(AttributeRef::new(&object.name, &town.name));
    }
    plan
}

/// "Which 10 parts had the largest quantity shipped? Give the part name and
/// the units": the units asked for are the quantity the measure adds up,
/// not a grouping by each line's quantity beside it.
fn aggregated_not_grouped(ontology: &Ontology, mut plan: SemanticPlan) -> SemanticPlan {
    let aggregated: Vec<AttributeRef> = plan
        .measures
        .iter()
        .filter_map(|m| match m {
            Measure::Aggregate { attribute, .. } => Some(attribute.clone()),
            Measure::Metric {
                metric,
                variant: None,
            } => {
                let metric = ontology.metrics.iter().find(|x| x.name == *metric)?;
                let expr = metric.expr.as_deref()?.trim();
                let object = ontology.objects.iter().find(|o| o.name == metric.object)?;
                let attribute = object.attributes.iter().find(|a| {
                    a.column_name() == Some(expr) || a.expr.as_deref().map(str::trim) == Some(expr)
                })?;
                (metric.aggregate != Aggregate::Count
                    && metric.aggregate != Aggregate::CountDistinct)
                    .then(|| AttributeRef::new(&object.name, &attribute.name))
            }
            _ => None,
        })
        .collect();
    if plan.dimensions.len() > 1 {
        plan.dimensions.retain(|d| !aggregated.contains(d));
    }
    plan
}

/// "Customers who are not in the BUILDING segment": a count of things
/// split one group per thing is a list of them; every count would be 1.
fn listed_not_counted(ontology: &Ontology, mut plan: SemanticPlan) -> SemanticPlan {
    // "who are they?", after "how many of them won a race": the distinct
    // drivers among the wins, one row each, are shown with their wins.
    if let [Measure::DistinctOf { object, metric }] = plan.measures.as_slice()
        && !plan.dimensions.is_empty()
        && let Some(counted) = ontology.objects.iter().find(|o| o.name == *object)
        && plan.dimensions.iter().all(|d| {
            d.object == *object
                && d.bucket.is_none()
                && display_attribute(counted) == Some(d.attribute.as_str())
        })
    {
        plan.measures = vec![Measure::Metric {
            metric: metric.clone(),
            variant: None,
        }];
        return plan;
    }
    let counted = match plan.measures.as_slice() {
        [Measure::CountOf { object }] => Some(object.as_str()),
        [
            Measure::Metric {
                metric,
                variant: None,
            },
        ] => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric)
            .filter(|m| {
                m.aggregate == Aggregate::Count
                    && m.filters.is_empty()
                    && m.variants.is_empty()
                    && m.expr.is_none()
            })
            .map(|m| m.object.as_str()),
        _ => None,
    };
    let Some(object) = counted.and_then(|name| ontology.objects.iter().find(|o| o.name == name))
    else {
        return plan;
    };
    let per_thing = !plan.dimensions.is_empty()
        && plan
            .dimensions
            .iter()
            .all(|d| d.object == object.name && d.bucket.is_none())
        && plan.dimensions.iter().any(|d| {
            // "number of orders by order status": a status shows orders
            // where they have no name, but does not tell one from another.
            let names_rows = display_attribute(object) == Some(d.attribute.as_str())
                && object.attributes.iter().any(|a| {
                    a.name == d.attribute
                        && (a.name.contains("name")
                            || a.label.to_lowercase().contains("name")
                            || a.label.eq_ignore_ascii_case(&object.label))
                });
            names_rows || object.primary_key == [d.attribute.clone()]
        });
    if per_thing {
        plan.measures.clear();
        plan.order = None;
    }
    plan
}

/// "What market segment is customer 1042 in?", "which country is
/// Customer#000000777 based in": a lookup of one thing, named by its key (or
/// by its name, for what it looks up elsewhere), says which thing it answers
/// for. Only where each of the thing's rows has one value of what is shown,
/// so no row is repeated for it.
fn named_thing_shown(ontology: &Ontology, mut plan: SemanticPlan) -> SemanticPlan {
    if !plan.measures.is_empty() || plan.dimensions.is_empty() || plan.dimensions.len() > 3 {
        return plan;
    }
    let named = plan.filters.iter().find_map(|f| {
        let Condition::OneOf(values) = &f.condition else {
            return None;
        };
        let object = ontology
            .objects
            .iter()
            .find(|o| o.name == f.attribute.object)?;
        let by_key = filters::names_one_row(ontology, f);
        // Named by its name, the rows say whose they are too: a name may
        // match more loosely than the user typed it.
        let by_name = values.len() == 1 && is_display(ontology, &f.attribute);
        (by_key || by_name)
            .then(|| display_of(ontology, &object.name))
            .flatten()
    });
    let Some(name) = named else {
        return plan;
    };
    let others: Vec<&str> = plan
        .dimensions
        .iter()
        .map(|d| d.object.as_str())
        .filter(|o| *o != name.object)
        .collect();
    let one_row_each = others.is_empty()
        || graph::join_tree(ontology, &name.object, &others).is_ok_and(|tree| !tree.fans_out());
    if one_row_each && !plan.dimensions.contains(&name) {
        plan.dimensions.insert(0, name);
        // The order stays by what it was by; with none, the rows are still
        // sorted by what was shown first.
        plan.order = match plan.order {
            Some(Order::Dimension { index, descending }) => Some(Order::Dimension {
                index: index + 1,
                descending,
            }),
            None if plan.limit.is_some() => Some(Order::Dimension {
                index: 1,
                descending: false,
            }),
            order => order,
        };
    }
    plan
}

/// A concept that is only values ("German", "Ferrari").
fn only_values(entries: &[Entry]) -> bool {
    entries
        .iter()
        .all(|e| matches!(e.concept, Concept::Value { .. } | Concept::Filter { .. }))
}

/// A filter to exactly one text value ("Silverstone", "Lewis Hamilton").
fn is_one_text_value(filter: &Filter) -> bool {
    matches!(&filter.condition, Condition::OneOf(list) if matches!(list.as_slice(), [Literal::Text(_)]))
}

/// The things a measure counts, one each ("how many drivers", or a metric
/// counting every customer), where it counts things rather than rows.
fn things_counted<'o>(ontology: &'o Ontology, measure: &'o Measure) -> Option<&'o str> {
    match measure {
        Measure::CountOf { object } => Some(object),
        Measure::Metric { metric, .. } => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric && m.counts_every_row())
            .map(|m| m.object.as_str()),
        _ => None,
    }
}

/// The things a metric counts one of each of: those its distinct key
/// names (`sprints` counts the races of sprint results).
fn distinct_things<'o>(ontology: &'o Ontology, metric: &Metric) -> Option<&'o Object> {
    if metric.aggregate != Aggregate::CountDistinct || !metric.variants.is_empty() {
        return None;
    }
    let named = graph::named_by(ontology, &metric.object, metric.expr.as_deref()?)?;
    ontology.objects.iter().find(|o| o.name == named)
}

/// A measure that adds up over rows (a count or a sum), so that an average
/// of it per group means something other than the measure itself.
fn adds_up(ontology: &Ontology, measure: &Measure) -> bool {
    match measure {
        Measure::Metric { metric, .. } => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric)
            .is_some_and(|m| {
                matches!(
                    m.aggregate,
                    Aggregate::Count | Aggregate::CountDistinct | Aggregate::Sum
                )
            }),
        Measure::CountOf { .. } | Measure::DistinctOf { .. } => true,
        Measure::Aggregate { aggregate, .. } => {
            matches!(aggregate, Aggregate::Count | Aggregate::Sum)
        }
        Measure::AveragePer { .. }
        | Measure::CountPassing { .. }
        | Measure::Share { .. }
        | Measure::Difference { .. }
        | Measure::Growth { .. }
        | Measure::Cumulative { .. } => false,
    }
}

/// How the word before a year or a date bounds it: "since", "until",
/// "between … and"; anything else means that year or day only.
/// A metric's filter of the form `column op literal` ("position = 1",
/// "grid <= 3") as a plan filter on the metric's object; `None` for anything
/// else, which only the metric's own SQL can say.
/// "How many sprints has Verstappen won": a conditional count (wins, a
/// result with `position = 1`) beside a measure of other rows that record
/// the same (sprint results) counts those rows under its conditions. The
/// two could not be measured side by side, so nothing else is lost.
fn counted_on_rows_named(ontology: &Ontology, plan: &mut SemanticPlan) {
    let [first, second] = plan.measures.as_slice() else {
        return;
    };
    let Some((rows, filters)) = counted_on(ontology, first, second) else {
        return;
    };
    plan.measures = vec![Measure::CountOf { object: rows }];
    plan.filters.extend(filters);
}

/// The rows one of two measures counts and the other's conditions on them,
/// where one is a conditional count and the other a measure of other rows
/// that have the attributes its conditions name.
fn counted_on(
    ontology: &Ontology,
    first: &Measure,
    second: &Measure,
) -> Option<(String, Vec<Filter>)> {
    let metric = |m: &Measure| match m {
        Measure::Metric { metric, .. } => ontology.metrics.iter().find(|x| x.name == *metric),
        _ => None,
    };
    let (first, second) = (metric(first)?, metric(second)?);
    let conditional = |m: &crate::ontology::Metric| {
        m.aggregate == Aggregate::Count && !m.filters.is_empty() && m.kind == MetricKind::Simple
    };
    let (condition, rows) = match (conditional(first), conditional(second)) {
        (true, false) => (first, second),
        (false, true) => (second, first),
        _ => return None,
    };
    if condition.object == rows.object || rows.kind != MetricKind::Simple {
        return None;
    }
    let filters =
        metric_conditions(ontology, condition, &rows.object).collect::<Option<Vec<_>>>()?;
    Some((rows.object.clone(), filters))
}

/// A metric's conditions ("position = 1") as filters on `object`'s rows,
/// each `None` where it is not one simple comparison.
fn metric_conditions<'a>(
    ontology: &'a Ontology,
    metric: &'a crate::ontology::Metric,
    object: &'a str,
) -> impl Iterator<Item = Option<Filter>> + 'a {
    metric
        .filters
        .iter()
        .map(move |text| simple_filter(ontology, object, text))
}

/// The metric that counts what `name` counts without its own "equals"
/// condition on `attribute`: "starts" for "wins" (`position = 1`), where
/// the question pins that attribute itself ("and who came home third?").
/// Only where every condition of both is one simple comparison.
fn counted_without(ontology: &Ontology, name: &str, attribute: &AttributeRef) -> Option<String> {
    let simple = |m: &Metric| {
        m.kind == MetricKind::Simple && m.variants.is_empty() && m.object == attribute.object
    };
    let conditions =
        |m: &Metric| metric_conditions(ontology, m, &m.object).collect::<Option<Vec<_>>>();
    let metric = ontology.metrics.iter().find(|m| m.name == name)?;
    if !simple(metric) {
        return None;
    }
    let mut rest = conditions(metric)?;
    let pinned = rest.len();
    rest.retain(|f| !(f.attribute == *attribute && matches!(f.condition, Condition::OneOf(_))));
    if rest.len() == pinned {
        return None;
    }
    ontology
        .metrics
        .iter()
        .find(|m| {
            simple(m)
                && m.aggregate == metric.aggregate
                && m.expr == metric.expr
                && conditions(m).is_some_and(|own| own == rest)
        })
        .map(|m| m.name.clone())
}

fn simple_filter(ontology: &Ontology, object: &str, filter: &str) -> Option<Filter> {
    let [column, op, literal] = filter.split_whitespace().collect::<Vec<_>>()[..] else {
        return None;
    };
    let attribute = ontology
        .objects
        .iter()
        .find(|o| o.name == object)?
        .attributes
        .iter()
        .find(|a| a.column_name() == Some(column))?;
    let literal = match literal.parse::<i64>() {
        Ok(n) => Literal::Integer(n),
        Err(_) => Literal::Text(
            literal
                .strip_prefix('\'')?
                .strip_suffix('\'')?
                .replace("''", "'"),
        ),
    };
    let condition = match op {
        "=" => Condition::OneOf(vec![literal]),
        "<=" => Condition::AtMost(literal),
        ">=" => Condition::AtLeast(literal),
        _ => return None,
    };
    Some(Filter {
        attribute: AttributeRef::new(object, &attribute.name),
        condition,
    })
}

fn time_bound(previous: Option<Op>) -> Op {
    match previous {
        Some(
            op @ (Op::Since
            | Op::After
            | Op::Before
            | Op::Until
            | Op::Between
            | Op::From
            | Op::To
            | Op::And),
        ) => op,
        _ => Op::Only,
    }
}

/// "started", or "start" where the metric is "starts": a metric named by
/// its verb, which another metric right after it may complete.
fn typed_as_verb(ontology: &Ontology, metric: usize, text: &str) -> bool {
    let bare = ontology.metrics[metric].name.strip_suffix('s') == Some(text);
    let verb = |word: &str| word.len() > 4 && word.ends_with("ed");
    // "races started": the things, then what they did ("quantity
    // shipped" names a quantity, not things).
    let things_then_verb = text.rsplit_once(' ').is_some_and(|(things, last)| {
        let one = things.strip_suffix('s').unwrap_or(things);
        verb(last)
            && ontology.objects.iter().any(|o| {
                std::iter::once(&o.name)
                    .chain(std::iter::once(&o.label))
                    .chain(&o.synonyms)
                    .any(|n| n.eq_ignore_ascii_case(things) || n.eq_ignore_ascii_case(one))
            })
    });
    (!text.contains(' ') && (verb(text) || bare)) || things_then_verb
}

/// A number compared by `op` ("more than", "at least", "less than", "at
/// most"), as a condition.
pub(super) fn bound(op: Op, n: i64) -> Condition {
    let n = Literal::Integer(n);
    match op {
        Op::AtLeast => Condition::AtLeast(n),
        Op::AtMost => Condition::AtMost(n),
        Op::Below => Condition::Before(n),
        _ => Condition::After(n),
    }
}
