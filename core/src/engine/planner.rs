//! The built-in planner: offline and deterministic. It reads a question as a
//! sequence of operator words (from the grammar), concepts (from the
//! lexicon), numbers and years, then assembles the semantic plan those
//! pieces describe, or says which word the ontology cannot ground.

use crate::engine::compile::display_attribute;
use crate::engine::grammar::{self, Op};
use crate::engine::graph;
use crate::engine::lexicon::{Concept, Entry, Lexicon, MAX_PHRASE_WORDS, Strength};
use crate::engine::plan::{
    AttributeRef, Condition, Filter, Literal, Measure, Order, PlanAssumption, SemanticPlan,
};
use crate::engine::text::{self, Word};
use crate::ontology::{Aggregate, AttributeRole, DataType, Ontology};

/// What the planner made of a question.
#[derive(Clone, Debug, PartialEq)]
pub enum Planned {
    Plan(SemanticPlan),
    /// The question uses something the ontology does not describe.
    NotAnswerable(String),
}

/// One recognised piece of a question.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Op(Op),
    Number(i64),
    Concept {
        entries: Vec<Entry>,
        text: String,
    },
    /// "second", "P2", "3rd": a finishing position.
    Ordinal(i64),
    /// "oldest", "the first race": the extreme of a date; true for the latest.
    Extreme(bool),
    /// "29 November 2015", "2015/11/29", "Nov 2015": whole days, inclusive.
    Dates(DateRange),
    /// A word neither the grammar nor the lexicon knows. It blocks the
    /// question when it has to carry meaning: the thing asked for, or a name.
    Unknown {
        word: String,
        blocks: bool,
    },
}

/// Days from `first` to `last`, inclusive, as ISO dates.
#[derive(Clone, Debug, PartialEq, Eq)]
struct DateRange {
    first: String,
    last: String,
}

impl DateRange {
    fn day(year: i64, month: u32, day: i64) -> Option<Self> {
        (day >= 1 && i64::from(days_in_month(year, month)) >= day).then(|| {
            let iso = format!("{year:04}-{month:02}-{day:02}");
            DateRange {
                first: iso.clone(),
                last: iso,
            }
        })
    }

    fn months(year: i64, first: u32, last: u32) -> Self {
        DateRange {
            first: format!("{year:04}-{first:02}-01"),
            last: format!("{year:04}-{last:02}-{:02}", days_in_month(year, last)),
        }
    }
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Reads `question` against one published version. `previous` is the plan of
/// the chat's last turn, which a follow-up refines.
pub fn plan(
    ontology: &Ontology,
    lexicon: &Lexicon,
    question: &str,
    previous: Option<&SemanticPlan>,
) -> Planned {
    let pieces = read(lexicon, question);
    let blocking: Vec<&str> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Unknown { word, blocks: true } => Some(word.as_str()),
            _ => None,
        })
        .collect();
    if !blocking.is_empty() {
        return Planned::NotAnswerable(format!(
            "the ontology has no concept for \"{}\", so Cassis cannot tell what it refers to",
            blocking.join(" ")
        ));
    }
    let ignored: Vec<&str> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Unknown { word, .. } => Some(word.as_str()),
            _ => None,
        })
        .collect();
    let reading = Reading::of(ontology, &pieces);
    if reading.dangling_negation {
        return Planned::NotAnswerable(
            "Cassis can exclude named values (\"outside Europe\", \"except Ferrari\") but not yet a measure (\"never won\"); ask for what to include instead".to_owned(),
        );
    }
    match reading.into_plan(ontology, previous) {
        Planned::Plan(mut plan) if !ignored.is_empty() => {
            plan.assumptions.push(PlanAssumption::stated(format!(
                "Not used from the question: {}",
                ignored
                    .iter()
                    .map(|w| format!("\"{w}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
            Planned::Plan(plan)
        }
        Planned::NotAnswerable(reason) if !ignored.is_empty() => Planned::NotAnswerable(format!(
            "{reason} (the ontology has no concept for \"{}\")",
            ignored.join(" ")
        )),
        planned => planned,
    }
}

/// Where a word stands relative to the thing the question asks for: after
/// "how many", "what is the", "top 5", the words up to the next preposition
/// or verb name it, so an unknown word there cannot be skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Focus {
    Outside,
    Opening,
    Inside,
}

fn opens_focus(op: Op) -> bool {
    matches!(
        op,
        Op::Count | Op::Sum | Op::Average | Op::Most | Op::Least | Op::Top | Op::Which
    )
}

fn read(lexicon: &Lexicon, question: &str) -> Vec<Piece> {
    let words: Vec<Word> = text::words(question)
        .into_iter()
        .map(|word| normalise_word(lexicon, word))
        .collect();
    let plain: Vec<&str> = words.iter().map(|w| w.plain.as_str()).collect();
    let mut pieces = Vec::new();
    let mut focus = Focus::Outside;
    let mut i = 0;
    while i < words.len() {
        // Dates, before their numbers are read as years.
        if let Some((range, len)) = date_at(&plain[i..]) {
            pieces.push(Piece::Dates(range));
            focus = Focus::Outside;
            i += len;
            continue;
        }
        if let Ok(n) = words[i].plain.parse::<i64>() {
            pieces.push(Piece::Number(n));
            if !matches!(
                pieces.iter().rev().nth(1),
                Some(Piece::Op(Op::Top | Op::Which))
            ) {
                focus = Focus::Outside;
            }
            i += 1;
            continue;
        }
        // "took place": a verb, not the position called "place".
        if let Some(len) = grammar::filler_phrase(&plain[i..]) {
            i += len;
            continue;
        }
        // "most recent": the latest.
        if plain[i] == "most" && plain.get(i + 1) == Some(&"recent") {
            pieces.push(Piece::Extreme(true));
            i += 2;
            continue;
        }
        let (concept_len, entries) = longest_concept(lexicon, &words[i..]);
        let operator = grammar::operator_at(&plain[i..]);
        match operator {
            Some((op_len, op)) if op_len >= concept_len => {
                pieces.push(Piece::Op(op));
                focus = if opens_focus(op) {
                    Focus::Opening
                } else {
                    Focus::Outside
                };
                i += op_len;
                continue;
            }
            _ => {}
        }
        // "who finished second": a filler verb typed in lower case is the
        // verb, not the value it happens to spell ("Finished").
        let filler_value = concept_len == 1
            && !words[i].capital
            && grammar::is_stop_word(plain[i])
            && entries
                .iter()
                .all(|e| matches!(e.concept, Concept::Value { .. }));
        if concept_len > 0 && !filler_value {
            let text = plain[i..i + concept_len].join(" ");
            pieces.push(Piece::Concept { entries, text });
            if focus == Focus::Opening {
                focus = Focus::Inside;
            }
            i += concept_len;
            continue;
        }
        let word = &words[i];
        if let Some(len) = relative_time(&plain[i..]) {
            // "last year", "this season", "in the past 5 years": read against
            // a clock the built-in planner does not have yet; never guessed.
            pieces.push(Piece::Unknown {
                word: plain[i..i + len].join(" "),
                blocks: true,
            });
            i += len;
            continue;
        }
        if let Some(extreme) = grammar::extreme(&word.plain)
            && (!extreme.needs_object || next_names_object(lexicon, &words, &plain, i))
        {
            pieces.push(Piece::Extreme(extreme.latest));
        } else if let Some(n) = grammar::ordinal(&word.plain) {
            pieces.push(Piece::Ordinal(n));
        } else if grammar::is_stop_word(&word.plain) {
            if focus == Focus::Inside {
                focus = Focus::Outside;
            }
        } else if let Some(n) = grammar::small_number(&word.plain) {
            pieces.push(Piece::Number(n));
        } else if let Some(key) = lexicon.fuzzy(&word.stem) {
            pieces.push(Piece::Concept {
                entries: lexicon.lookup(key).to_vec(),
                text: word.plain.clone(),
            });
            if focus == Focus::Opening {
                focus = Focus::Inside;
            }
        } else {
            let names_something = word.capital && i > 0 && !lexicon.names_domain(&word.stem);
            let asked_for = focus != Focus::Outside;
            pieces.push(Piece::Unknown {
                word: word.plain.clone(),
                blocks: names_something || asked_for,
            });
            if asked_for {
                focus = Focus::Inside;
            }
        }
        i += 1;
    }
    pieces
}

/// A day, month or quarter written at the start of `words`, and how many
/// words it takes: "2015 11 29" (from 2015-11-29 or 2015/11/29), "29
/// November 2015", "November 29 2015", "Nov 2015", "Q1 1997".
fn date_at(words: &[&str]) -> Option<(DateRange, usize)> {
    let number = |i: usize| words.get(i).and_then(|w| w.parse::<i64>().ok());
    let year = |i: usize| number(i).filter(|y| (1900..=2100).contains(y));
    let month = |i: usize| words.get(i).and_then(|w| grammar::month(w));
    let quarter = words
        .first()
        .and_then(|w| w.strip_prefix('q'))
        .and_then(|q| q.parse::<u32>().ok())
        .filter(|q| (1..=4).contains(q));
    if let (Some(y), Some(m), Some(d)) = (year(0), number(1), number(2))
        && (1..=12).contains(&m)
    {
        DateRange::day(y, m as u32, d).map(|r| (r, 3))
    } else if let (Some(d), Some(m), Some(y)) = (number(0), month(1), year(2)) {
        DateRange::day(y, m, d).map(|r| (r, 3))
    } else if let (Some(m), Some(d), Some(y)) = (month(0), number(1), year(2))
        && (1..=31).contains(&d)
    {
        DateRange::day(y, m, d).map(|r| (r, 3))
    } else if let (Some(m), Some(y)) = (month(0), year(1)) {
        Some((DateRange::months(y, m, m), 2))
    } else if let (Some(q), Some(y)) = (quarter, year(1)) {
        Some((DateRange::months(y, q * 3 - 2, q * 3), 2))
    } else {
        None
    }
}

/// The length of a relative time phrase at the start of `words`: "last
/// year", "this season", "past 5 years", "previous month".
fn relative_time(words: &[&str]) -> Option<usize> {
    const UNITS: &[&str] = &[
        "year", "years", "season", "seasons", "month", "months", "week", "weeks", "day", "days",
        "quarter", "quarters",
    ];
    if !matches!(
        words.first(),
        Some(&("last" | "this" | "past" | "previous" | "current" | "next" | "recent"))
    ) {
        return None;
    }
    match words.get(1..3) {
        Some([n, unit])
            if UNITS.contains(unit)
                && (n.parse::<u32>().is_ok() || grammar::small_number(n).is_some()) =>
        {
            Some(3)
        }
        _ => words.get(1).filter(|unit| UNITS.contains(unit)).map(|_| 2),
    }
}

/// The object a phrase names, if it names one.
fn object_of(entries: &[Entry]) -> Option<usize> {
    entries.iter().find_map(|e| match e.concept {
        Concept::Object(o) => Some(o),
        _ => None,
    })
}

/// Whether the first word after `i` that carries meaning names an object.
fn next_names_object(lexicon: &Lexicon, words: &[Word], plain: &[&str], i: usize) -> bool {
    (i + 1..words.len())
        .find(|j| !grammar::is_stop_word(plain[*j]))
        .is_some_and(|j| object_of(&longest_concept(lexicon, &words[j..]).1).is_some())
}

/// Expands abbreviations ("avg") and corrects one typo in an operator word
/// ("nmber"), so both reach the grammar and the lexicon as full words.
fn normalise_word(lexicon: &Lexicon, word: Word) -> Word {
    let spelled = grammar::expand_abbreviation(&word.plain)
        .map(str::to_owned)
        .or_else(|| {
            let known = grammar::is_stop_word(&word.plain)
                || grammar::operator_at(&[word.plain.as_str()]).is_some()
                || !lexicon.lookup(&word.stem).is_empty()
                || word.plain.chars().any(|c| c.is_ascii_digit());
            (!known)
                .then(|| grammar::correct_operator_word(&word.plain))
                .flatten()
                .map(str::to_owned)
        });
    match spelled {
        Some(plain) => text::words(&plain).into_iter().next().unwrap_or(word),
        None => word,
    }
}

fn longest_concept(lexicon: &Lexicon, words: &[Word]) -> (usize, Vec<Entry>) {
    for len in (1..=words.len().min(MAX_PHRASE_WORDS)).rev() {
        let key = words[..len]
            .iter()
            .map(|w| w.stem.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let entries = lexicon.lookup(&key);
        if !entries.is_empty() {
            return (len, entries.to_vec());
        }
    }
    (0, Vec::new())
}

/// A span that names values: every attribute it may be a value of, with the
/// values it matches there.
#[derive(Debug)]
struct ValueMention {
    options: Vec<(AttributeRef, Vec<String>)>,
    text: String,
    /// After "not", "outside", "except": every value but these.
    negated: bool,
}

/// The pieces of one question, sorted into the roles they play.
#[derive(Debug, Default)]
struct Reading {
    /// Metrics named outright, with the variant when the words settle it.
    metrics: Vec<(usize, Option<usize>)>,
    /// The only metric came from a word that also names an object ("races"
    /// in "how many races did X win"); a later metric word replaces it.
    weak_metric: bool,
    /// The object the weak metric's word also named.
    weak_object: Option<usize>,
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
    /// Objects mentioned without another role.
    mentioned: Vec<usize>,
    /// Objects mentioned after "all": rolled up, not grouped.
    rolled_up: Vec<usize>,
    /// Values named in the question: for each span, every attribute it may
    /// be a value of, with the matching values; resolved once the plan's
    /// objects are known.
    values: Vec<ValueMention>,
    years: Vec<(Op, i64)>,
    comparison: bool,
    who: bool,
    when: bool,
    order: Option<bool>,
    limit: Option<u32>,
    only: bool,
    /// "where is X": the location of what X names.
    place: bool,
    /// "by year", "each year", "per year".
    per_year: bool,
    /// "second", "P3": finishing positions asked about.
    ordinals: Vec<i64>,
    /// "oldest", "the latest race": the extreme of a date, true for latest.
    extreme: Option<bool>,
    /// The object the extreme word was about.
    extreme_object: Option<usize>,
    /// Ranges of days, with the time word before each.
    dates: Vec<(Op, DateRange)>,
    /// "in descending order": how a list is sorted, true for descending.
    sort: Option<bool>,
    /// A negation waits for the value it excludes.
    negate: bool,
    /// A negation that excluded no value ("never won"): not yet answerable.
    dangling_negation: bool,
}

impl Reading {
    fn of(ontology: &Ontology, pieces: &[Piece]) -> Self {
        let mut reading = Reading::default();
        let mut previous_op: Option<Op> = None;
        let mut grouping = false;
        for (index, piece) in pieces.iter().enumerate() {
            match piece {
                Piece::Op(op) => {
                    match op {
                        Op::Most => reading.order = Some(true),
                        Op::Least => reading.order = Some(false),
                        Op::Top => reading.order = reading.order.or(Some(true)),
                        Op::Who => reading.who = true,
                        Op::When => reading.when = true,
                        Op::Versus => reading.comparison = true,
                        Op::Only => reading.only = true,
                        Op::Where => reading.place = true,
                        Op::Year if grouping => reading.per_year = true,
                        Op::Negation => reading.negate = true,
                        Op::Descending => reading.sort = Some(true),
                        Op::Ascending => reading.sort = Some(false),
                        Op::GroupBy => grouping = true,
                        // "by all drivers": rolled up, not grouped.
                        Op::All => grouping = false,
                        _ => {}
                    }
                    previous_op = Some(*op);
                }
                Piece::Number(n) => {
                    // "top 5", "which five customers", "5 best".
                    let after_top = matches!(previous_op, Some(Op::Top | Op::Which));
                    let before_best = matches!(
                        pieces.get(index + 1),
                        Some(Piece::Op(Op::Most | Op::Least) | Piece::Extreme(_))
                    );
                    if (after_top || before_best) && (1..=1000).contains(n) {
                        reading.limit = Some(*n as u32);
                    } else if (1900..=2100).contains(n) {
                        let op = match previous_op {
                            Some(
                                op @ (Op::Since
                                | Op::After
                                | Op::Before
                                | Op::Until
                                | Op::Between
                                | Op::From
                                | Op::To
                                | Op::And
                                | Op::Versus),
                            ) => op,
                            _ => Op::Only,
                        };
                        reading.years.push((op, *n));
                    }
                    previous_op = None;
                }
                Piece::Ordinal(n) => {
                    reading.ordinals.push(*n);
                    previous_op = None;
                }
                Piece::Extreme(latest) => {
                    reading.extreme = Some(*latest);
                    reading.extreme_object = None;
                }
                Piece::Dates(range) => {
                    let op = match previous_op {
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
                    };
                    reading.dates.push((op, range.clone()));
                    previous_op = None;
                }
                Piece::Concept { entries, text } => {
                    if reading.extreme.is_some()
                        && reading.extreme_object.is_none()
                        && let Some(o) = object_of(entries)
                    {
                        // "the first race": the race itself, not a count of races.
                        reading.extreme_object = Some(o);
                        reading.mentioned.push(o);
                        grouping = false;
                        previous_op = None;
                        continue;
                    }
                    // "by customer region": the customer says whose region.
                    let qualifies_next =
                        grouping && matches!(pieces.get(index + 1), Some(Piece::Concept { .. }));
                    if qualifies_next && let Some(o) = object_of(entries) {
                        reading.mentioned.push(o);
                        continue;
                    }
                    reading.place(ontology, entries, text, previous_op, grouping);
                    grouping = false;
                    // "average pit stop duration": the aggregate reaches past
                    // the object to its attribute.
                    let only_objects = entries
                        .iter()
                        .all(|e| matches!(e.concept, Concept::Object(_)));
                    if !(only_objects && matches!(previous_op, Some(Op::Average | Op::Sum))) {
                        previous_op = None;
                    }
                }
                Piece::Unknown { .. } => {}
            }
        }
        if reading.negate {
            reading.dangling_negation = true;
        }
        reading
    }

    fn place(
        &mut self,
        ontology: &Ontology,
        entries: &[Entry],
        text: &str,
        previous_op: Option<Op>,
        grouping: bool,
    ) {
        let metric = entries.iter().find_map(|e| match e.concept {
            Concept::Metric(m) => Some(m),
            _ => None,
        });
        let variant = entries.iter().find_map(|e| match e.concept {
            Concept::Variant { metric, variant } => Some((metric, variant)),
            _ => None,
        });
        let object = object_of(entries);
        let attribute = entries.iter().find_map(|e| match e.concept {
            Concept::Attribute { object, attribute } => Some((object, attribute)),
            _ => None,
        });
        let values: Vec<(usize, usize, String, Strength)> = entries
            .iter()
            .filter_map(|e| match &e.concept {
                Concept::Value {
                    object,
                    attribute,
                    value,
                } => Some((*object, *attribute, value.clone(), e.strength)),
                _ => None,
            })
            .collect();
        let attribute_ref = |(o, a): (usize, usize)| {
            AttributeRef::new(
                &ontology.objects[o].name,
                &ontology.objects[o].attributes[a].name,
            )
        };
        let display = |o: usize| {
            display_attribute(&ontology.objects[o])
                .map(|a| AttributeRef::new(&ontology.objects[o].name, a))
        };
        let entity = attribute
            .map(attribute_ref)
            .or_else(|| object.and_then(display));

        // "top 5 teams by wins": a metric after "by" ranks, it does not group.
        let ranks = metric.is_some() && object.is_none();
        if grouping
            && !ranks
            && let Some(entity) = entity
        {
            let mut candidates: Vec<AttributeRef> = entries
                .iter()
                .filter_map(|e| match e.concept {
                    Concept::Attribute { object, attribute } => {
                        Some(attribute_ref((object, attribute)))
                    }
                    Concept::Object(o) => display(o),
                    _ => None,
                })
                .collect();
            if !candidates.contains(&entity) {
                candidates.insert(0, entity);
            }
            self.groupings.push(candidates);
            return;
        }
        if previous_op == Some(Op::All)
            && let Some(o) = object
        {
            self.rolled_up.push(o);
            return;
        }
        // "which race": the race itself, even where "races" is also a count.
        if previous_op == Some(Op::Which)
            && (metric.is_none() || object.is_some())
            && let Some(entity) = entity.clone()
        {
            self.asked.push(entity);
            return;
        }
        if previous_op == Some(Op::Count)
            && metric.is_none()
            && let Some(o) = object
        {
            self.count_of = Some(o);
            return;
        }
        if let Some((m, v)) = variant {
            if self.weak_metric && self.metrics.len() == 1 && self.metrics[0].0 != m {
                // "customers who brought the most net revenue": the metric
                // the variant names is meant; the customers are the subject.
                self.metrics.clear();
                self.weak_metric = false;
                self.mentioned.extend(self.weak_object.take());
            }
            self.variants.push((m, v));
            return;
        }
        if metric.is_none()
            && let Some(aggregate) = match previous_op {
                Some(Op::Average) => Some(Aggregate::Avg),
                Some(Op::Sum) => Some(Aggregate::Sum),
                _ => None,
            }
            && let Some((o, a)) = attribute
            && matches!(
                ontology.objects[o].attributes[a].data_type,
                DataType::Integer | DataType::Decimal
            )
        {
            self.aggregates.push((attribute_ref((o, a)), aggregate));
            return;
        }
        if metric.is_some() && values.is_empty() && self.negate {
            // "never won": excluding a measure is not a value filter.
            self.dangling_negation = true;
            self.negate = false;
        }
        if let Some(m) = metric {
            // "won the most races": once a metric is named, a word that is
            // also an object ("races") is the object, not a second metric.
            let ambiguous = object.is_some() || attribute.is_some();
            let repeated = self.metrics.iter().any(|(x, _)| *x == m);
            if self.weak_metric && self.metrics.len() == 1 && !repeated {
                // "how many races did Hamilton win": the later metric is meant.
                self.metrics[0] = (m, None);
                self.mentioned.extend(self.weak_object.take());
                self.weak_metric = ambiguous;
                self.weak_object = object;
                return;
            }
            if self.metrics.is_empty() {
                self.weak_metric = ambiguous;
                self.weak_object = object;
            }
            if self.metrics.is_empty() || !ambiguous || repeated {
                if !self.metrics.iter().any(|(x, _)| *x == m) {
                    self.metrics.push((m, None));
                }
                return;
            }
        }
        if !values.is_empty() {
            // Whole-value matches beat matches of one word of a value.
            let strongest = values.iter().map(|v| v.3).min().unwrap_or(Strength::Value);
            let mut options: Vec<(AttributeRef, Vec<String>)> = Vec::new();
            for (o, a, value, strength) in &values {
                if *strength != strongest {
                    continue;
                }
                let reference = attribute_ref((*o, *a));
                match options.iter_mut().find(|(r, _)| *r == reference) {
                    Some((_, list)) => list.push(value.clone()),
                    None => options.push((reference, vec![value.clone()])),
                }
            }
            for (_, list) in &mut options {
                list.sort();
                list.dedup();
            }
            self.values.push(ValueMention {
                options,
                text: text.to_owned(),
                negated: std::mem::take(&mut self.negate),
            });
            return;
        }
        // "races" names the object race and its name attribute alike; as a
        // bare mention it is the object.
        let names_object = matches!((object, attribute), (Some(o), Some((ao, _))) if o == ao);
        if let Some(attribute) = attribute.map(attribute_ref)
            && !names_object
        {
            self.asked.push(attribute);
            return;
        }
        if let Some(o) = object {
            self.mentioned.push(o);
        }
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

    fn into_plan(self, ontology: &Ontology, previous: Option<&SemanticPlan>) -> Planned {
        let mut assumptions = Vec::new();
        // Measures.
        let mut measures: Vec<Measure> = Vec::new();
        for (m, _) in &self.metrics {
            let metric = &ontology.metrics[*m];
            let variant = self
                .variants
                .iter()
                .find(|(vm, _)| vm == m)
                .map(|(_, v)| metric.variants[*v].name.clone());
            measures.push(Measure::Metric {
                metric: metric.name.clone(),
                variant,
            });
        }
        for (vm, v) in &self.variants {
            let metric = &ontology.metrics[*vm];
            if !self.metrics.iter().any(|(m, _)| m == vm) {
                measures.push(Measure::Metric {
                    metric: metric.name.clone(),
                    variant: Some(metric.variants[*v].name.clone()),
                });
            }
        }
        if self.weak_metric && !self.aggregates.is_empty() && self.metrics.len() == 1 {
            // "total account balance of customers": the customers are the
            // subject, the balance is what is summed.
            measures.clear();
        }
        for (attribute, aggregate) in &self.aggregates {
            if measures.is_empty() {
                measures.push(Measure::Aggregate {
                    attribute: attribute.clone(),
                    aggregate: *aggregate,
                });
            }
        }
        if measures.is_empty()
            && let Some(o) = self.count_of
        {
            measures.push(Measure::CountOf {
                object: ontology.objects[o].name.clone(),
            });
        }
        // "Which nationality has the most drivers": a superlative over things
        // no metric counts ranks the groups by how many there are.
        if measures.is_empty()
            && self.order.is_some()
            && (!self.asked.is_empty() || !self.groupings.is_empty())
            && let Some(o) = self.mentioned.first()
        {
            measures.push(Measure::CountOf {
                object: ontology.objects[*o].name.clone(),
            });
        }
        // "How many drivers raced in 2010" asks for drivers; a plan that
        // counts races instead would answer another question.
        if let Some(o) = self.count_of
            && !measures.iter().any(
                |m| matches!(m, Measure::CountOf { object } if *object == ontology.objects[o].name),
            )
            && previous.is_none()
        {
            let counted = &ontology.objects[o];
            let label = label_of(&counted.label, &counted.name).to_lowercase();
            return Planned::NotAnswerable(format!(
                "the question counts {} by what they did, which Cassis cannot plan yet; ask for the measure by {label} instead",
                plural(&label)
            ));
        }
        // A question with only a variant or filter words refines the last plan.
        let follow_up = previous.is_some()
            && (measures.is_empty()
                || (self.groupings.is_empty() && !self.who && self.asked.is_empty()));
        let mut plan = match (follow_up, previous) {
            (true, Some(previous)) => {
                let mut plan = previous.clone();
                plan.assumptions.clear();
                if !measures.is_empty() {
                    plan.measures = measures.clone();
                    plan.order = None;
                } else if !self.variants.is_empty() {
                    plan.measures = plan
                        .measures
                        .iter()
                        .map(|m| match m {
                            Measure::Metric { metric, .. } => {
                                match self
                                    .variants
                                    .iter()
                                    .find(|(vm, _)| ontology.metrics[*vm].name == *metric)
                                {
                                    Some((vm, v)) => Measure::Metric {
                                        metric: metric.clone(),
                                        variant: Some(
                                            ontology.metrics[*vm].variants[*v].name.clone(),
                                        ),
                                    },
                                    None => m.clone(),
                                }
                            }
                            other => other.clone(),
                        })
                        .collect();
                }
                if !self.groupings.is_empty() {
                    plan.dimensions.clear();
                    plan.order = None;
                }
                plan
            }
            _ => SemanticPlan {
                measures,
                ..SemanticPlan::default()
            },
        };
        let base = base_object(ontology, &plan);
        let groupings: Vec<AttributeRef> = self
            .groupings
            .iter()
            .map(|candidates| nearest(ontology, base.as_deref(), candidates))
            .collect();

        // Dimensions.
        for grouping in &groupings {
            push_unique(&mut plan.dimensions, grouping.clone());
        }
        // "who finished second": a finishing position of the result nearest
        // to what the question is about.
        let position = (!self.ordinals.is_empty())
            .then(|| position_attribute(ontology, base.as_deref(), &self.mentioned))
            .flatten();
        if !self.ordinals.is_empty() && position.is_none() {
            return Planned::NotAnswerable(
                "the question names a position (such as \"second\"), but nothing it asks about has one in the ontology".to_owned(),
            );
        }
        if let Some(position) = &position {
            plan.filters.retain(|f| f.attribute != *position);
            plan.filters.push(Filter {
                attribute: position.clone(),
                condition: Condition::OneOf(
                    self.ordinals.iter().map(|n| Literal::Integer(*n)).collect(),
                ),
            });
        }
        let extreme_object = self
            .extreme
            .and(self.extreme_object.or(self.mentioned.first().copied()));
        // What "who" and a year are read against when nothing is measured.
        let anchor = base
            .clone()
            .or_else(|| position.as_ref().map(|p| p.object.clone()))
            .or_else(|| extreme_object.map(|o| ontology.objects[o].name.clone()));
        if self.who {
            let person = anchor
                .as_deref()
                .and_then(|b| person_attribute(ontology, b, &self.mentioned));
            match person {
                Some(attribute) => push_unique(&mut plan.dimensions, attribute),
                None if plan.dimensions.is_empty() && self.asked.is_empty() => {
                    return Planned::NotAnswerable(
                        "the question asks who, but the ontology has no person in reach of what it measures".to_owned(),
                    );
                }
                None => {}
            }
        }
        for asked in &self.asked {
            // "which nationality has the most constructors": the
            // constructors' nationality, where several objects have one.
            let own = self
                .mentioned
                .iter()
                .map(|o| &ontology.objects[*o])
                .chain(self.count_of.map(|o| &ontology.objects[o]))
                .find(|o| o.attributes.iter().any(|a| a.name == asked.attribute))
                .filter(|o| {
                    o.name != asked.object
                        && !self
                            .mentioned
                            .iter()
                            .any(|m| ontology.objects[*m].name == asked.object)
                })
                .map(|o| AttributeRef::new(&o.name, &asked.attribute));
            push_unique(&mut plan.dimensions, own.unwrap_or_else(|| asked.clone()));
        }
        // "the constructors with the most wins": a ranked measure of another
        // object groups by that object.
        if !plan.measures.is_empty()
            && plan.dimensions.is_empty()
            && !self.who
            && (self.order.is_some() || self.limit.is_some())
            && let Some(base) = base.as_deref()
            && let Some(o) = self.mentioned.iter().find(|o| {
                let name = &ontology.objects[**o].name;
                name != base
                    && graph::join_tree(ontology, base, &[name]).is_ok_and(|t| !t.fans_out())
            })
            && let Some(a) = display_attribute(&ontology.objects[*o])
        {
            plan.dimensions
                .push(AttributeRef::new(&ontology.objects[*o].name, a));
        }
        // "List the circuits in Italy": show the object's names.
        if plan.measures.is_empty()
            && plan.dimensions.is_empty()
            && !self.place
            && let Some(o) = self.mentioned.first().or(self.rolled_up.first())
            && let Some(a) = display_attribute(&ontology.objects[*o])
        {
            plan.dimensions
                .push(AttributeRef::new(&ontology.objects[*o].name, a));
        }

        // Value filters: a new value of an attribute already filtered replaces it.
        let mut value_dimensions = Vec::new();
        let focus: Vec<String> = base
            .iter()
            .cloned()
            .chain(self.count_of.map(|o| ontology.objects[o].name.clone()))
            .chain(plan.dimensions.iter().map(|d| d.object.clone()))
            .chain(
                self.mentioned
                    .iter()
                    .map(|o| ontology.objects[*o].name.clone()),
            )
            .collect();
        for ValueMention {
            options,
            text,
            negated,
        } in &self.values
        {
            // The value of an object the question is about, else the one
            // that joins to it most directly.
            let score = |attribute: &AttributeRef| -> usize {
                if let Some(i) = focus.iter().position(|f| *f == attribute.object) {
                    return i;
                }
                focus
                    .first()
                    .and_then(|f| graph::join_tree(ontology, f, &[attribute.object.as_str()]).ok())
                    .map_or(1000, |tree| {
                        100 + tree.steps.len() + if tree.fans_out() { 50 } else { 0 }
                    })
            };
            // Among equals: the attribute another value of this question
            // already filters ("Ferrari vs McLaren" are both teams), then the
            // one that names its rows (a team's name before a surname).
            let sibling = |attribute: &AttributeRef| {
                !self.values.iter().any(|other| {
                    other.text != *text && other.options.iter().any(|(a, _)| a == attribute)
                })
            };
            let names_rows = |attribute: &AttributeRef| {
                ontology
                    .objects
                    .iter()
                    .find(|o| o.name == attribute.object)
                    .and_then(display_attribute)
                    != Some(attribute.attribute.as_str())
            };
            let Some((attribute, values)) = options
                .iter()
                .enumerate()
                .min_by_key(|(i, (attribute, _))| {
                    (
                        score(attribute),
                        sibling(attribute),
                        names_rows(attribute),
                        *i,
                    )
                })
                .map(|(_, option)| option)
            else {
                continue;
            };
            let literals: Vec<Literal> = values.iter().cloned().map(Literal::Text).collect();
            if values.len() > 1 {
                assumptions.push(PlanAssumption {
                    text: format!(
                        "\"{text}\" matches several values of {}; using {}",
                        attribute_label(ontology, attribute),
                        values[0]
                    ),
                    options: values.clone(),
                    selected: Some(values[0].clone()),
                });
            }
            let chosen = vec![literals[0].clone()];
            if *negated {
                plan.filters.push(Filter {
                    attribute: attribute.clone(),
                    condition: Condition::NoneOf(chosen),
                });
                continue;
            }
            match plan.filters.iter_mut().find(|f| f.attribute == *attribute) {
                Some(existing) if self.comparison || (!self.only && previous.is_none()) => {
                    if let Condition::OneOf(list) = &mut existing.condition
                        && !list.contains(&chosen[0])
                    {
                        list.push(chosen[0].clone());
                    }
                }
                Some(existing) => existing.condition = Condition::OneOf(chosen),
                None => plan.filters.push(Filter {
                    attribute: attribute.clone(),
                    condition: Condition::OneOf(chosen),
                }),
            }
            value_dimensions.push(attribute.clone());
        }
        if self.comparison && !plan.measures.is_empty() {
            for attribute in value_dimensions {
                let several = plan.filters.iter().any(|f| {
                    f.attribute == attribute
                        && matches!(&f.condition, Condition::OneOf(list) if list.len() > 1)
                });
                if several {
                    push_unique(&mut plan.dimensions, attribute);
                }
            }
        }

        // "Where is X": the location of the thing X names.
        if self.place && plan.measures.is_empty() {
            let object = plan
                .filters
                .first()
                .map(|f| f.attribute.object.clone())
                .or_else(|| {
                    self.mentioned
                        .first()
                        .map(|o| ontology.objects[*o].name.clone())
                });
            if let Some(object) = object
                .as_deref()
                .and_then(|name| ontology.objects.iter().find(|o| o.name == name))
            {
                for attribute in &object.attributes {
                    let words = format!(
                        "{} {} {}",
                        attribute.name,
                        attribute.label,
                        attribute.synonyms.join(" ")
                    )
                    .to_lowercase();
                    if ["location", "city", "address", "place", "country"]
                        .iter()
                        .any(|w| words.contains(w))
                    {
                        push_unique(
                            &mut plan.dimensions,
                            AttributeRef::new(&object.name, &attribute.name),
                        );
                    }
                }
            }
        }

        // Years: on the time attribute in reach of what is measured or shown.
        if !self.years.is_empty() {
            let anchor = self.time_anchor(ontology, anchor.as_deref(), &plan);
            let Some(time) = anchor.as_deref().and_then(|a| year_attribute(ontology, a)) else {
                return Planned::NotAnswerable(
                    "the question names a year, but nothing it asks about has a date or year in the ontology".to_owned(),
                );
            };
            let condition = year_condition(&self.years);
            let several = matches!(&condition, Condition::OneOf(list) if list.len() > 1);
            plan.filters.retain(|f| f.attribute != time);
            plan.dimensions
                .retain(|d| *d != time || groupings.contains(d));
            plan.filters.push(Filter {
                attribute: time.clone(),
                condition,
            });
            if several && !plan.measures.is_empty() {
                push_unique(&mut plan.dimensions, by_year_if_date(ontology, time));
            }
        }

        if self.per_year
            && !plan.measures.is_empty()
            && let Some(time) = base.as_deref().and_then(|a| year_attribute(ontology, a))
        {
            // "orders placed each year": the date is grouped by year, not shown.
            plan.dimensions.retain(|d| {
                !(d.object == time.object && d.attribute == time.attribute && d.bucket.is_none())
            });
            push_unique(&mut plan.dimensions, by_year_if_date(ontology, time));
        }

        if self.when
            && plan.dimensions.is_empty()
            && let Some(time) = base.as_deref().and_then(|b| date_attribute(ontology, b))
        {
            plan.dimensions.push(time);
        }

        // Days: "on 29 November 2015", "in Nov 2015", "since 1995-03-15".
        if !self.dates.is_empty() {
            let anchor = self.time_anchor(ontology, anchor.as_deref(), &plan);
            let Some(day) = anchor.as_deref().and_then(|a| day_attribute(ontology, a)) else {
                return Planned::NotAnswerable(
                    "the question names a date, but nothing it asks about has a date in the ontology".to_owned(),
                );
            };
            plan.filters.retain(|f| f.attribute != day);
            plan.filters.push(Filter {
                attribute: day,
                condition: date_condition(&self.dates),
            });
        }

        // "customers in the BUILDING segment", "orders placed in Feb 1994":
        // the attribute a value or date filters is named, not grouped by.
        if !plan.measures.is_empty() && !self.comparison {
            let filtered: Vec<AttributeRef> =
                plan.filters.iter().map(|f| f.attribute.clone()).collect();
            plan.dimensions
                .retain(|d| !(filtered.contains(d) && self.asked.contains(d)));
        }

        // "The oldest driver", "the first race of 2009": rows by a date,
        // earliest or latest first, one unless a number says how many.
        if let Some(latest) = self.extreme
            && plan.measures.is_empty()
            && let Some(o) = extreme_object
            && let Some(date) = date_attribute(ontology, &ontology.objects[o].name)
        {
            if plan.dimensions.is_empty()
                && let Some(a) = display_attribute(&ontology.objects[o])
            {
                plan.dimensions
                    .push(AttributeRef::new(&ontology.objects[o].name, a));
            }
            push_unique(&mut plan.dimensions, date.clone());
            let index = plan
                .dimensions
                .iter()
                .position(|d| *d == date)
                .unwrap_or_default();
            plan.order = Some(Order::Dimension {
                index,
                descending: latest,
            });
            plan.limit = Some(self.limit.unwrap_or(1));
            plan.assumptions = assumptions;
            return Planned::Plan(plan);
        }

        // Order and limit.
        if let Some(descending) = self.order.or(self.sort) {
            plan.order = if plan.measures.is_empty() {
                Some(Order::Dimension {
                    index: 0,
                    descending,
                })
            } else {
                Some(Order::Measure {
                    index: 0,
                    descending,
                })
            };
        }
        if let Some(limit) = self.limit {
            plan.limit = Some(limit);
        }

        if plan.measures.is_empty() && plan.dimensions.is_empty() {
            return Planned::NotAnswerable(
                "Cassis could not find anything to measure or show in this question; name a metric (such as one listed in the ontology) or what to list".to_owned(),
            );
        }

        // Assumptions the answer states.
        assumptions.extend(variant_assumptions(ontology, &plan.measures));
        if let Some(measure) = plan.measures.first() {
            let label = measure_label(ontology, measure);
            for o in &self.rolled_up {
                let object = &ontology.objects[*o];
                let per = plan
                    .dimensions
                    .first()
                    .map(|d| format!(" per {}", attribute_label(ontology, d).to_lowercase()))
                    .unwrap_or_default();
                assumptions.push(PlanAssumption::stated(format!(
                    "{label} rolled up across all {}{per}",
                    plural(&label_of(&object.label, &object.name).to_lowercase())
                )));
            }
        }
        plan.assumptions = assumptions;
        let named: Vec<String> = self
            .mentioned
            .iter()
            .map(|o| ontology.objects[*o].name.clone())
            .collect();
        settle_routes(ontology, &mut plan, &named);
        Planned::Plan(plan)
    }
}

/// Where a plan reaches an object more than one way (a line item's nation
/// is its supplier's or its order's customer's), the answers differ: an
/// object the question names settles the route; otherwise the plan forks,
/// proposing the route the ontology's verified questions take.
pub fn settle_routes(ontology: &Ontology, plan: &mut SemanticPlan, named: &[String]) {
    let Some(base) = base_object(ontology, plan) else {
        return;
    };
    let mut targets: Vec<String> = Vec::new();
    for attribute in plan
        .dimensions
        .iter()
        .chain(plan.filters.iter().map(|f| &f.attribute))
    {
        if attribute.object != base && !targets.contains(&attribute.object) {
            targets.push(attribute.object.clone());
        }
    }
    for target in targets {
        let routes = graph::routes(ontology, &base, &target);
        // Each route is known by the last object only it passes through.
        let objects: Vec<Vec<String>> = routes
            .iter()
            .map(|route| route.iter().map(|s| s.to.clone()).collect())
            .collect();
        let mut ways: Vec<(String, Vec<String>)> = Vec::new();
        for (i, route) in objects.iter().enumerate() {
            let shared = |o: &String| {
                objects
                    .iter()
                    .enumerate()
                    .all(|(j, other)| i == j || other.contains(o))
            };
            let by = route
                .iter()
                .rev()
                .find(|o| !shared(o))
                .cloned()
                .unwrap_or_else(|| base.clone());
            if !ways.iter().any(|(w, _)| *w == by) {
                ways.push((by, route.clone()));
            }
        }
        if ways.len() < 2 {
            continue;
        }
        let on_route = |names: &[String]| {
            ways.iter()
                .find(|(by, objects)| {
                    names.contains(by) || objects.iter().any(|o| *o != target && names.contains(o))
                })
                .map(|(by, _)| by.clone())
        };
        let in_plan: Vec<String> = plan
            .dimensions
            .iter()
            .chain(plan.filters.iter().map(|f| &f.attribute))
            .map(|a| a.object.clone())
            .filter(|o| *o != target)
            .collect();
        if on_route(&plan.via).is_some() {
            continue;
        }
        // A filter or grouping on the customer itself, or a question that
        // names it ("revenue by customer region"), settles the route.
        let settled = ways
            .iter()
            .find(|(by, _)| in_plan.contains(by))
            .map(|(by, _)| by.clone())
            .or_else(|| on_route(named));
        if let Some(by) = settled {
            plan.via.push(by);
            continue;
        }
        let table = |name: &str| {
            ontology
                .objects
                .iter()
                .find(|o| o.name == name)
                .and_then(|o| o.table.rsplit('.').next())
                .map(str::to_lowercase)
                .unwrap_or_default()
        };
        let uses = |object: &str| {
            let (by_table, target_table) = (table(object), table(&target));
            ontology
                .verified_questions
                .iter()
                .filter(|q| {
                    let sql = q.sql.to_lowercase();
                    let words: Vec<&str> = sql
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .collect();
                    words.contains(&by_table.as_str()) && words.contains(&target_table.as_str())
                })
                .count()
        };
        let selected = ways
            .iter()
            .enumerate()
            .max_by_key(|(i, (by, _))| (uses(by), std::cmp::Reverse(*i)))
            .map(|(_, (by, _))| by.clone())
            .unwrap_or_default();
        let label = |name: &str| {
            ontology
                .objects
                .iter()
                .find(|o| o.name == name)
                .map(|o| label_of(&o.label, &o.name).to_lowercase())
                .unwrap_or_else(|| name.to_owned())
        };
        let options: Vec<String> = ways.iter().map(|(by, _)| by.clone()).collect();
        plan.assumptions.push(PlanAssumption {
            text: format!(
                "{} can be reached through the {}; using the {}'s",
                label(&target),
                options
                    .iter()
                    .map(|o| label(o))
                    .collect::<Vec<_>>()
                    .join(" or the "),
                label(&selected)
            ),
            options,
            selected: Some(selected.clone()),
        });
        plan.via.push(selected);
    }
}

/// What a plan's metrics assume: the variant the words chose, stated, or a
/// fork between the variants when the question does not settle it.
pub fn variant_assumptions(ontology: &Ontology, measures: &[Measure]) -> Vec<PlanAssumption> {
    let mut found = Vec::new();
    for measure in measures {
        if let Measure::Metric { metric, variant } = measure
            && let Some(metric) = ontology.metrics.iter().find(|m| m.name == *metric)
        {
            match variant
                .as_ref()
                .and_then(|v| metric.variants.iter().find(|x| &x.name == v))
            {
                Some(chosen) if !chosen.description.is_empty() => {
                    found.push(PlanAssumption::stated(format!(
                        "{}: {}",
                        label_of(&metric.label, &metric.name),
                        chosen.description.trim_end_matches('.')
                    )));
                }
                Some(_) => {}
                // The data team's default settles the reading: stated, not asked.
                None if let Some(default) = metric.variants.iter().find(|v| v.default) => {
                    found.push(PlanAssumption::stated(format!(
                        "{}: {}, the default reading",
                        label_of(&metric.label, &metric.name),
                        describe_variant(default)
                    )));
                }
                None if !metric.variants.is_empty() => {
                    let default = &metric.variants[0];
                    found.push(PlanAssumption {
                        text: format!(
                            "{} can be read in more than one way; using {}",
                            label_of(&metric.label, &metric.name),
                            describe_variant(default)
                        ),
                        options: metric.variants.iter().map(|v| v.name.clone()).collect(),
                        selected: Some(default.name.clone()),
                    });
                }
                None => {}
            }
        }
    }
    found
}

/// The candidate that joins to `base` in the fewest steps without fanning out.
fn nearest(ontology: &Ontology, base: Option<&str>, candidates: &[AttributeRef]) -> AttributeRef {
    let cost = |c: &AttributeRef| match base {
        Some(base) => match graph::join_tree(ontology, base, &[c.object.as_str()]) {
            Ok(tree) if !tree.fans_out() => tree.steps.len(),
            Ok(tree) => 100 + tree.steps.len(),
            Err(_) => 1000,
        },
        None => 0,
    };
    candidates
        .iter()
        .enumerate()
        .min_by_key(|(i, c)| (cost(c), *i))
        .map(|(_, c)| c.clone())
        .expect("a grouping phrase has at least one candidate")
}

fn push_unique(list: &mut Vec<AttributeRef>, item: AttributeRef) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// The object a plan's first measure aggregates.
pub fn base_object(ontology: &Ontology, plan: &SemanticPlan) -> Option<String> {
    match plan.measures.first()? {
        Measure::Metric { metric, .. } => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric)
            .map(|m| m.object.clone()),
        Measure::CountOf { object } => Some(object.clone()),
        Measure::Aggregate { attribute, .. } => Some(attribute.object.clone()),
    }
}

fn label_of(label: &str, name: &str) -> String {
    if label.is_empty() {
        let spaced = name.replace('_', " ");
        let mut chars = spaced.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
            .unwrap_or_default()
    } else {
        label.to_owned()
    }
}

pub fn measure_label(ontology: &Ontology, measure: &Measure) -> String {
    match measure {
        Measure::Metric { metric, .. } => ontology
            .metrics
            .iter()
            .find(|m| m.name == *metric)
            .map(|m| label_of(&m.label, &m.name))
            .unwrap_or_else(|| metric.clone()),
        Measure::CountOf { object } => ontology
            .objects
            .iter()
            .find(|o| o.name == *object)
            .map(|o| {
                format!(
                    "Number of {}",
                    plural(&label_of(&o.label, &o.name).to_lowercase())
                )
            })
            .unwrap_or_else(|| object.clone()),
        Measure::Aggregate {
            attribute,
            aggregate,
        } => {
            let label = attribute_label(ontology, attribute).to_lowercase();
            match aggregate {
                Aggregate::Avg => format!("Average {label}"),
                Aggregate::Sum => format!("Total {label}"),
                Aggregate::Min => format!("Lowest {label}"),
                Aggregate::Max => format!("Highest {label}"),
                Aggregate::Count | Aggregate::CountDistinct => format!("Number of {label}"),
            }
        }
    }
}

pub fn attribute_label(ontology: &Ontology, reference: &AttributeRef) -> String {
    ontology
        .objects
        .iter()
        .find(|o| o.name == reference.object)
        .and_then(|o| o.attributes.iter().find(|a| a.name == reference.attribute))
        .map(|a| label_of(&a.label, &a.name))
        .unwrap_or_else(|| reference.attribute.clone())
}

fn describe_variant(variant: &crate::ontology::MetricVariant) -> String {
    if variant.description.is_empty() {
        variant.name.replace('_', " ")
    } else {
        let d = variant.description.trim_end_matches('.');
        let mut chars = d.chars();
        chars
            .next()
            .map(|c| c.to_lowercase().collect::<String>() + chars.as_str())
            .unwrap_or_default()
    }
}

pub fn plural(word: &str) -> String {
    if word.ends_with('s') {
        word.to_owned()
    } else if let Some(stem) = word.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{word}s")
    }
}

/// The name of the person "who" asks about: a mentioned object, else one that
/// reads like a person, joined to the measured object without fanning out.
fn person_attribute(ontology: &Ontology, base: &str, mentioned: &[usize]) -> Option<AttributeRef> {
    let paths = graph::Paths::from(ontology, base);
    let reachable = |object: &str| paths.distance(object).is_some_and(|(_, fans)| !fans);
    let is_person = |o: &crate::ontology::Object| {
        let words = format!(
            "{} {} {} {}",
            o.name,
            o.label,
            o.synonyms.join(" "),
            o.description
        )
        .to_lowercase();
        grammar::PERSON_WORDS.iter().any(|p| {
            words
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == *p || w == plural(p))
        })
    };
    let candidates = mentioned
        .iter()
        .map(|o| &ontology.objects[*o])
        .filter(|o| is_person(o) && reachable(&o.name))
        .chain(
            ontology
                .objects
                .iter()
                .filter(|o| is_person(o) && reachable(&o.name)),
        );
    for object in candidates {
        if let Some(a) = display_attribute(object) {
            return Some(AttributeRef::new(&object.name, a));
        }
    }
    None
}

/// The year to filter on: a year or season attribute of `anchor` or of an
/// object it looks up, else a date.
fn year_attribute(ontology: &Ontology, anchor: &str) -> Option<AttributeRef> {
    let mut candidates: Vec<(usize, u8, AttributeRef)> = Vec::new();
    let paths = graph::Paths::from(ontology, anchor);
    for object in &ontology.objects {
        let has_time = object
            .attributes
            .iter()
            .any(|a| a.role == AttributeRole::Time);
        let Some((distance, false)) = has_time.then(|| paths.distance(&object.name)).flatten()
        else {
            continue;
        };
        for attribute in &object.attributes {
            if attribute.role != AttributeRole::Time {
                continue;
            }
            let named_year = format!(
                "{} {} {}",
                attribute.name,
                attribute.label,
                attribute.synonyms.join(" ")
            )
            .to_lowercase();
            let plain_date = is_plain_date(attribute);
            let rank = match attribute.data_type {
                DataType::Integer
                    if named_year.contains("year") || named_year.contains("season") =>
                {
                    0
                }
                DataType::Date | DataType::Timestamp if plain_date => 1,
                DataType::Date | DataType::Timestamp => 2,
                _ => continue,
            };
            candidates.push((
                distance,
                rank,
                AttributeRef::new(&object.name, &attribute.name),
            ));
        }
    }
    candidates.sort_by_key(|c| (c.1, c.0));
    candidates.into_iter().next().map(|c| c.2)
}

/// The finishing position "second" or "P3" filters on: an attribute named
/// or called position of the measured or mentioned object, else of the
/// first object that has one.
fn position_attribute(
    ontology: &Ontology,
    base: Option<&str>,
    mentioned: &[usize],
) -> Option<AttributeRef> {
    let position_of = |object: &crate::ontology::Object| {
        let integer = |a: &&crate::ontology::Attribute| {
            a.data_type == DataType::Integer && a.role != AttributeRole::Identifier
        };
        object
            .attributes
            .iter()
            .filter(integer)
            .find(|a| a.name == "position")
            .or_else(|| {
                object.attributes.iter().filter(integer).find(|a| {
                    a.synonyms
                        .iter()
                        .any(|s| s == "position" || s == "finishing position")
                })
            })
            .map(|a| AttributeRef::new(&object.name, &a.name))
    };
    let preferred = base
        .into_iter()
        .map(str::to_owned)
        .chain(mentioned.iter().map(|o| ontology.objects[*o].name.clone()));
    for name in preferred {
        if let Some(found) = ontology
            .objects
            .iter()
            .find(|o| o.name == name)
            .and_then(position_of)
        {
            return Some(found);
        }
    }
    ontology.objects.iter().find_map(position_of)
}

/// The date the ontology calls plain "date" is the one the business dates
/// things by ("orders in 1995" means the order date).
fn is_plain_date(attribute: &crate::ontology::Attribute) -> bool {
    attribute.name == "date"
        || attribute.label.eq_ignore_ascii_case("date")
        || attribute
            .synonyms
            .iter()
            .any(|s| s.eq_ignore_ascii_case("date"))
}

/// The date a day or month filters on: a date of `anchor` or of an object
/// it looks up, the one called plain "date" first.
fn day_attribute(ontology: &Ontology, anchor: &str) -> Option<AttributeRef> {
    let paths = graph::Paths::from(ontology, anchor);
    let mut candidates: Vec<(u8, usize, AttributeRef)> = Vec::new();
    for object in &ontology.objects {
        let Some((distance, false)) = paths.distance(&object.name) else {
            continue;
        };
        for attribute in &object.attributes {
            if attribute.role != AttributeRole::Time
                || !matches!(attribute.data_type, DataType::Date | DataType::Timestamp)
            {
                continue;
            }
            candidates.push((
                u8::from(!is_plain_date(attribute)),
                distance,
                AttributeRef::new(&object.name, &attribute.name),
            ));
        }
    }
    candidates.sort_by_key(|c| (c.0, c.1));
    candidates.into_iter().next().map(|c| c.2)
}

fn date_condition(dates: &[(Op, DateRange)]) -> Condition {
    let text = |s: &str| Literal::Text(s.to_owned());
    match dates {
        [(Op::Since | Op::From, d)] => Condition::AtLeast(text(&d.first)),
        [(Op::After, d)] => Condition::After(text(&d.last)),
        [(Op::Before, d)] => Condition::Before(text(&d.first)),
        [(Op::Until | Op::To, d)] => Condition::AtMost(text(&d.last)),
        [
            (Op::Between | Op::From | Op::Since, a),
            (Op::And | Op::To | Op::Until, b),
        ] => Condition::Between(text(&a.first), text(&b.last)),
        [(_, d)] if d.first == d.last => Condition::OneOf(vec![text(&d.first)]),
        [(_, d), ..] => Condition::Between(text(&d.first), text(&d.last)),
        [] => Condition::OneOf(Vec::new()),
    }
}

/// A date attribute grouped by year; a year attribute as it is.
fn by_year_if_date(ontology: &Ontology, attribute: AttributeRef) -> AttributeRef {
    let is_date = ontology
        .objects
        .iter()
        .find(|o| o.name == attribute.object)
        .and_then(|o| o.attributes.iter().find(|a| a.name == attribute.attribute))
        .is_some_and(|a| matches!(a.data_type, DataType::Date | DataType::Timestamp));
    if is_date {
        attribute.by_year()
    } else {
        attribute
    }
}

/// The date "when" asks for.
fn date_attribute(ontology: &Ontology, anchor: &str) -> Option<AttributeRef> {
    let object = ontology.objects.iter().find(|o| o.name == anchor)?;
    object
        .attributes
        .iter()
        .find(|a| {
            a.role == AttributeRole::Time
                && matches!(a.data_type, DataType::Date | DataType::Timestamp)
        })
        .map(|a| AttributeRef::new(&object.name, &a.name))
}

fn year_condition(years: &[(Op, i64)]) -> Condition {
    let year = |y: i64| Literal::Integer(y);
    match years {
        [(Op::Since, y)] | [(Op::From, y)] => Condition::AtLeast(year(*y)),
        [(Op::After, y)] => Condition::After(year(*y)),
        [(Op::Before, y)] => Condition::Before(year(*y)),
        [(Op::Until, y)] | [(Op::To, y)] => Condition::AtMost(year(*y)),
        [
            (Op::Between | Op::From | Op::Since, a),
            (Op::And | Op::To | Op::Until, b),
        ] => Condition::Between(year(*a.min(b)), year(*a.max(b))),
        _ => {
            let mut list: Vec<i64> = years.iter().map(|(_, y)| *y).collect();
            list.sort();
            list.dedup();
            Condition::OneOf(list.into_iter().map(year).collect())
        }
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::{Planned, plan};
    use crate::engine::compile::compile;
    use crate::engine::lexicon::{AttributeValues, Lexicon};
    use crate::engine::plan::SemanticPlan;
    use crate::project::Dialect;

    fn f1() -> (crate::ontology::Ontology, Lexicon) {
        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/f1/ontology.yaml")).unwrap();
        let drivers = [
            "Max Verstappen",
            "Jos Verstappen",
            "Lewis Hamilton",
            "Sergio Pérez",
        ]
        .map(String::from);
        let teams = ["Ferrari", "Red Bull", "Mercedes"].map(String::from);
        let driver = ontology
            .objects
            .iter()
            .position(|o| o.name == "driver")
            .unwrap();
        let constructor = ontology
            .objects
            .iter()
            .position(|o| o.name == "constructor")
            .unwrap();
        let lexicon = Lexicon::build(
            &ontology,
            &[
                AttributeValues {
                    object: driver,
                    attribute: 1,
                    values: &drivers,
                },
                AttributeValues {
                    object: constructor,
                    attribute: 1,
                    values: &teams,
                },
            ],
        );
        (ontology, lexicon)
    }

    fn sql(question: &str, previous: Option<&SemanticPlan>) -> (String, SemanticPlan) {
        let (ontology, lexicon) = f1();
        match plan(&ontology, &lexicon, question, previous) {
            Planned::Plan(p) => (compile(&ontology, &p, Dialect::Postgres).unwrap().sql, p),
            Planned::NotAnswerable(reason) => panic!("{question}: {reason}"),
        }
    }

    #[test]
    fn the_seed_questions() {
        let (q1, _) = sql("Who won the most races in 2023?", None);
        assert_eq!(
            q1,
            "SELECT d.forename || ' ' || d.surname AS full_name, COUNT(*) AS wins \
             FROM public.results rr JOIN public.drivers d ON rr.driver_id = d.driver_id \
             JOIN public.races r ON rr.race_id = r.race_id \
             WHERE r.year = 2023 AND rr.position = 1 \
             GROUP BY d.forename || ' ' || d.surname, d.driver_id ORDER BY wins DESC"
        );
        let (q2, p2) = sql(
            "Compare total points scored by all drivers in 2022 vs 2023, including sprint results.",
            None,
        );
        assert!(
            q2.contains("UNION ALL") && q2.contains("IN (2022, 2023)"),
            "{q2}"
        );
        let texts: Vec<&str> = p2.assumptions.iter().map(|a| a.text.as_str()).collect();
        assert!(
            texts
                .iter()
                .any(|t| t.contains("rolled up across all drivers per season")),
            "{texts:?}"
        );
        let (q3, _) = sql("Now break it down by constructor for 2023", Some(&p2));
        assert!(
            q3.contains("c.name AS constructor_name") && q3.contains("r.year = 2023"),
            "{q3}"
        );
        assert!(q3.contains("UNION ALL"), "{q3}");
    }

    fn planned(question: &str) -> SemanticPlan {
        let (ontology, lexicon) = f1();
        match plan(&ontology, &lexicon, question, None) {
            Planned::Plan(p) => p,
            Planned::NotAnswerable(reason) => panic!("{question}: {reason}"),
        }
    }

    fn refused(question: &str) -> String {
        let (ontology, lexicon) = f1();
        match plan(&ontology, &lexicon, question, None) {
            Planned::Plan(p) => panic!("{question} was planned: {p:?}"),
            Planned::NotAnswerable(reason) => reason,
        }
    }

    #[test]
    fn filler_words_never_block_and_unknown_ones_are_listed() {
        let (q, plan) = sql(
            "please tell me how many different drivers are in the game",
            None,
        );
        assert_eq!(q, "SELECT COUNT(*) AS driver_count FROM public.drivers d");
        let texts: Vec<&str> = plan.assumptions.iter().map(|a| a.text.as_str()).collect();
        assert_eq!(texts, ["Not used from the question: \"game\""]);
        // What is asked for, or a name, must be grounded.
        assert!(refused("how many wins does Zanardi have").contains("zanardi"));
        assert!(refused("what is the average lap temperature").contains("temperature"));
        assert!(refused("how many wins did Ferrari have last year").contains("last year"));
    }

    #[test]
    fn positions_extremes_and_dates() {
        let (q, _) = sql("who finished second in 2021", None);
        assert!(
            q.contains("rr.position = 2") && q.contains("r.year = 2021"),
            "{q}"
        );
        let (q, _) = sql("the oldest driver", None);
        assert!(q.ends_with("ORDER BY date_of_birth ASC LIMIT 1"), "{q}");
        let (q, _) = sql("the 3 youngest drivers", None);
        assert!(q.ends_with("ORDER BY date_of_birth DESC LIMIT 3"), "{q}");
        for day in [
            "races on 29 November 2015",
            "races on 2015/11/29",
            "races on November 29, 2015",
        ] {
            let (q, _) = sql(day, None);
            assert!(q.contains("r.date = '2015-11-29'"), "{day}: {q}");
        }
        let (q, _) = sql("races in Feb 2016", None);
        assert!(
            q.contains("r.date BETWEEN '2016-02-01' AND '2016-02-29'"),
            "{q}"
        );
    }

    #[test]
    fn exclusions_apply_to_values_and_refuse_for_measures() {
        let (q, _) = sql("wins by constructor excluding Ferrari", None);
        assert!(q.contains("c.name NOT IN ('Ferrari')"), "{q}");
        assert!(refused("drivers who never won").contains("never won"));
    }

    #[test]
    fn a_default_variant_is_stated_not_asked() {
        let plan = planned("points by driver in 2023");
        assert!(plan.assumptions.iter().all(|a| !a.is_fork()), "{plan:?}");
        assert!(
            plan.assumptions
                .iter()
                .any(|a| a.text.contains("the default reading")),
            "{plan:?}"
        );
    }

    #[test]
    fn a_second_way_to_the_same_object_is_a_fork_unless_named() {
        let ontology =
            crate::ontology::from_yaml(include_str!("../../../examples/wholesale/ontology.yaml"))
                .unwrap();
        let lexicon = Lexicon::build(&ontology, &[]);
        let Planned::Plan(by_region) = plan(&ontology, &lexicon, "revenue by region", None) else {
            panic!("revenue by region is answerable")
        };
        let fork = by_region.assumptions.iter().find(|a| a.is_fork()).unwrap();
        assert_eq!(fork.options, ["supplier", "customer"]);
        // The verified questions join revenue to regions through customers.
        assert_eq!(fork.selected.as_deref(), Some("customer"));
        let sql = compile(&ontology, &by_region, Dialect::Sqlite).unwrap().sql;
        assert!(sql.contains("JOIN customer c"), "{sql}");
        let Planned::Plan(named) = plan(&ontology, &lexicon, "revenue by supplier region", None)
        else {
            panic!("revenue by supplier region is answerable")
        };
        assert!(named.assumptions.iter().all(|a| !a.is_fork()), "{named:?}");
        let sql = compile(&ontology, &named, Dialect::Sqlite).unwrap().sql;
        assert!(
            sql.contains("JOIN supplier s") && !sql.contains("customer"),
            "{sql}"
        );
    }

    #[test]
    fn unknown_words_are_named() {
        let (ontology, lexicon) = f1();
        let Planned::NotAnswerable(reason) = plan(
            &ontology,
            &lexicon,
            "What was the track temperature in 2023?",
            None,
        ) else {
            panic!("temperature is not in the ontology")
        };
        assert!(reason.contains("temperature"), "{reason}");
    }
}
