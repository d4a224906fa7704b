//! The operator words of business questions, which come from English rather
//! than from the ontology, and the words that carry no meaning of their own.

use crate::ontology::Grain;

/// What an operator phrase asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Count,
    Sum,
    Average,
    Most,
    Least,
    /// "highest", "lowest": a superlative of a magnitude. Before a number
    /// of each row ("the highest top speed") it picks the row with the
    /// extreme, where "most" adds the rows up; elsewhere it is "most"
    /// ("least").
    Peak(bool),
    Top,
    /// "bottom 5": the fewest first, then a limit.
    Bottom,
    /// "them", "those": what the chat's last answer was about.
    Back,
    /// "that team", "the same customer": what the chat's last answer was
    /// about, and, where it led with one of these objects (the index), that
    /// one.
    That(usize),
    /// "that brand's parts": the value of this attribute (object, attribute)
    /// the chat's last answer led with.
    ThatValue(usize, usize),
    /// "which of those", "each of them": some of the very rows the chat's
    /// last answer showed.
    Among,
    /// "he", "his", "there": the one thing the chat's last answer led with;
    /// `person` for "he", "she" and their forms, which never mean a set.
    Refer {
        person: bool,
    },
    /// "that year", "the same season": the chat's time, kept even where
    /// the question is otherwise a new one.
    SameTime,
    /// "of all time", "in his career": none of the chat's times or scopes,
    /// only the thing it is about.
    AllTime,
    /// Before the negation "never": what the things never did ("never
    /// driven for Ferrari"), not which of their rows to leave out ("other
    /// than Ferrari").
    Never,
    /// "will", "forecast": the question asks what is still to happen.
    Future,
    GroupBy,
    All,
    Since,
    After,
    Before,
    Until,
    Between,
    From,
    To,
    And,
    Versus,
    Who,
    Which,
    When,
    Where,
    /// "year" after a grouping word: group a date by year.
    Year,
    /// "month" after a grouping word: group a date by year and month.
    Month,
    /// "quarter", "week", "day" after a grouping word: group a date by it.
    Period(Grain),
    /// "quarterly", "weekly", "daily": grouped by that period, with no
    /// grouping word needed.
    Every(Grain),
    /// "growth", "change", "grew": how much a measure moved between periods.
    Growth,
    /// "year over year", "compared to last month": a measure against
    /// itself one period earlier.
    OverPrevious(Grain),
    /// "running total", "cumulative": added up period after period; "year
    /// to date" starts again each year.
    Running(Option<Grain>),
    Only,
    Instead,
    /// "status breakdown", "how often": how many rows each value has,
    /// where nothing else is measured.
    Breakdown,
    /// "add how many wins each had", "show their poles as well": a
    /// follow-up's measure beside the last answer's, not in its place.
    Adding,
    Negation,
    /// "ever", "any", "at all" after a negation: what did not happen, at no
    /// time ("drivers who raced in 2025 but never finished on the podium in
    /// any race"). Read from the words, after a negation only.
    Ever,
    /// "in descending order", "alphabetically": how a list is sorted.
    Descending,
    Ascending,
    /// "oldest first", "most recent first": sorted by time, latest first
    /// when true, whatever is measured.
    InTimeOrder(bool),
    /// "over 9000", "less than 5": a number compared with the quantity just
    /// named.
    /// "drivers who drove for both Ferrari and McLaren": every one of the
    /// values named, not any.
    Both,
    Above,
    Below,
    /// "at least 50 wins", "no fewer than 3".
    AtLeast,
    /// "at most 2", "no more than 10".
    AtMost,
    /// "but": a condition that holds, then one that does not ("raced in
    /// 2024 but never made the podium").
    Contrast,
    /// "per": groups like "by", and after "average" says what the average
    /// is taken over ("average points per race").
    Per,
    /// "what percentage of", "what share of", "podium rate": a part of a
    /// whole, as a percentage.
    Share,
    /// "between them", "in total": one figure for all the things named,
    /// not one per thing.
    Together,
    /// "with a recorded fastest lap speed": the attribute after it has a
    /// value.
    Recorded,
    /// "together with their status", "along with": what follows is shown
    /// as well, after whatever came between.
    AlongWith,
    /// "some kind of brass": the value after it names a kind of things,
    /// every value that ends with it, not one of them.
    KindOf,
    /// "Of the line items shipped by AIR, what percentage …": an opening
    /// "of the" says what all that follows is about.
    Scope,
    /// "finished in the top 3": the places up to the number after it, not
    /// the first rows of a ranking.
    TopPlaces,
    /// "finished outside the top 10": the places after the number after it.
    OutsideTopPlaces,
}

impl Op {
    /// Which way a superlative ranks: `Some(true)` for "most", "highest",
    /// "slowest"; `Some(false)` for "least", "lowest", "fastest"; `None`
    /// for any other operator.
    pub fn superlative(self) -> Option<bool> {
        match self {
            Op::Most | Op::Peak(true) => Some(true),
            Op::Least | Op::Peak(false) => Some(false),
            _ => None,
        }
    }
}

/// Period over period. "Compared to last year" is read before "last year"
/// could be a range of dates: the comparison needs no clock.
const GROWTH_PHRASES: &[(&str, Op)] = &[
    ("growth", Op::Growth),
    ("grew", Op::Growth),
    ("grown", Op::Growth),
    ("grow", Op::Growth),
    ("grows", Op::Growth),
    ("change", Op::Growth),
    ("changed", Op::Growth),
    // Known as it is spelled, so that it is not corrected to "compare"
    // before "compared to last year" is read.
    ("compared", Op::Versus),
    ("year over year", Op::OverPrevious(Grain::Year)),
    ("year on year", Op::OverPrevious(Grain::Year)),
    ("yoy", Op::OverPrevious(Grain::Year)),
    ("compared to last year", Op::OverPrevious(Grain::Year)),
    ("compared with last year", Op::OverPrevious(Grain::Year)),
    (
        "compared to the previous year",
        Op::OverPrevious(Grain::Year),
    ),
    ("compared to the year before", Op::OverPrevious(Grain::Year)),
    ("vs last year", Op::OverPrevious(Grain::Year)),
    ("versus last year", Op::OverPrevious(Grain::Year)),
    ("vs the previous year", Op::OverPrevious(Grain::Year)),
    ("from the previous year", Op::OverPrevious(Grain::Year)),
    ("from the year before", Op::OverPrevious(Grain::Year)),
    ("quarter over quarter", Op::OverPrevious(Grain::Quarter)),
    ("quarter on quarter", Op::OverPrevious(Grain::Quarter)),
    ("qoq", Op::OverPrevious(Grain::Quarter)),
    ("compared to last quarter", Op::OverPrevious(Grain::Quarter)),
    (
        "compared to the previous quarter",
        Op::OverPrevious(Grain::Quarter),
    ),
    ("vs the previous quarter", Op::OverPrevious(Grain::Quarter)),
    ("month over month", Op::OverPrevious(Grain::Month)),
    ("month on month", Op::OverPrevious(Grain::Month)),
    ("mom", Op::OverPrevious(Grain::Month)),
    ("compared to last month", Op::OverPrevious(Grain::Month)),
    (
        "compared to the previous month",
        Op::OverPrevious(Grain::Month),
    ),
    ("vs the previous month", Op::OverPrevious(Grain::Month)),
    ("vs last month", Op::OverPrevious(Grain::Month)),
    ("week over week", Op::OverPrevious(Grain::Week)),
    ("compared to last week", Op::OverPrevious(Grain::Week)),
    (
        "compared to the previous week",
        Op::OverPrevious(Grain::Week),
    ),
    ("day over day", Op::OverPrevious(Grain::Day)),
    // The options of the fork a growth by month without a period is.
    (
        "the same month a year before",
        Op::OverPrevious(Grain::Year),
    ),
    ("same month last year", Op::OverPrevious(Grain::Year)),
    (
        "the same quarter a year before",
        Op::OverPrevious(Grain::Year),
    ),
    ("same quarter last year", Op::OverPrevious(Grain::Year)),
    ("the same week a year before", Op::OverPrevious(Grain::Year)),
    ("the same day a year before", Op::OverPrevious(Grain::Year)),
    ("the month before", Op::OverPrevious(Grain::Month)),
    ("the quarter before", Op::OverPrevious(Grain::Quarter)),
    ("the week before", Op::OverPrevious(Grain::Week)),
    ("the day before", Op::OverPrevious(Grain::Day)),
    ("running total", Op::Running(None)),
    ("running sum", Op::Running(None)),
    ("cumulative", Op::Running(None)),
    ("cumulatively", Op::Running(None)),
    ("accumulated", Op::Running(None)),
    ("year to date", Op::Running(Some(Grain::Year))),
    ("ytd", Op::Running(Some(Grain::Year))),
    ("quarter to date", Op::Running(Some(Grain::Quarter))),
    ("qtd", Op::Running(Some(Grain::Quarter))),
    ("month to date", Op::Running(Some(Grain::Month))),
    ("mtd", Op::Running(Some(Grain::Month))),
];

/// Phrases in plain (folded, unstemmed) words, longest first where they overlap.
const PHRASES: &[(&str, Op)] = &[
    ("some kind of", Op::KindOf),
    ("some sort of", Op::KindOf),
    ("some type of", Op::KindOf),
    ("any kind of", Op::KindOf),
    ("any sort of", Op::KindOf),
    ("any type of", Op::KindOf),
    ("all kinds of", Op::KindOf),
    ("a kind of", Op::KindOf),
    // "type ending in BRASS": every value that ends with the word.
    ("ending in", Op::KindOf),
    ("ending with", Op::KindOf),
    ("ends in", Op::KindOf),
    ("ends with", Op::KindOf),
    ("how many", Op::Count),
    // "how much money did we give away in discounts": "money" only says
    // the amount is one, which the measure named after it settles.
    ("how much money", Op::Sum),
    ("how much", Op::Sum),
    ("number of", Op::Count),
    ("no of", Op::Count),
    ("count of", Op::Count),
    ("count", Op::Count),
    ("total", Op::Sum),
    ("sum of", Op::Sum),
    ("sum", Op::Sum),
    ("combined", Op::Sum),
    ("in the top", Op::TopPlaces),
    ("outside the top", Op::OutsideTopPlaces),
    ("outside of the top", Op::OutsideTopPlaces),
    ("inside the top", Op::TopPlaces),
    ("within the top", Op::TopPlaces),
    ("in top", Op::TopPlaces),
    ("together with", Op::AlongWith),
    ("along with", Op::AlongWith),
    ("alongside", Op::AlongWith),
    ("altogether", Op::Together),
    ("in total", Op::Together),
    ("between them", Op::Together),
    ("between the two of them", Op::Together),
    ("between the three of them", Op::Together),
    ("collectively", Op::Together),
    ("percentage", Op::Share),
    ("percent", Op::Share),
    ("share", Op::Share),
    ("proportion", Op::Share),
    ("fraction", Op::Share),
    ("rate", Op::Share),
    ("on average", Op::Average),
    ("average", Op::Average),
    ("avg", Op::Average),
    ("mean", Op::Average),
    ("most often", Op::Most),
    // "more often than 10 times" is a threshold; "which of the two started
    // from pole more often" ranks.
    ("more often than", Op::Above),
    ("less often than", Op::Below),
    ("more often", Op::Most),
    ("more frequently", Op::Most),
    ("less often", Op::Least),
    ("less frequently", Op::Least),
    // "the most common status": the value most rows hold.
    ("the most common", Op::Most),
    ("most common", Op::Most),
    ("the most frequent", Op::Most),
    ("most frequent", Op::Most),
    ("the least common", Op::Least),
    ("least common", Op::Least),
    ("the least frequent", Op::Least),
    ("least frequent", Op::Least),
    ("the most times", Op::Most),
    // "which citizenship do the vast majority of drivers hold".
    ("the vast majority of", Op::Most),
    ("the majority of", Op::Most),
    ("most times", Op::Most),
    ("most frequently", Op::Most),
    ("the fewest times", Op::Least),
    ("fewest times", Op::Least),
    ("least often", Op::Least),
    ("the most", Op::Most),
    ("most", Op::Most),
    ("highest", Op::Peak(true)),
    ("best", Op::Most),
    ("largest", Op::Peak(true)),
    ("biggest", Op::Peak(true)),
    ("greatest", Op::Peak(true)),
    ("maximum", Op::Peak(true)),
    ("max", Op::Peak(true)),
    ("more", Op::Most),
    ("leading", Op::Most),
    ("the least", Op::Least),
    ("least", Op::Least),
    ("fewest", Op::Least),
    ("lowest", Op::Peak(false)),
    ("worst", Op::Least),
    ("smallest", Op::Peak(false)),
    ("minimum", Op::Peak(false)),
    ("min", Op::Peak(false)),
    ("fewer", Op::Least),
    // Of a time ("the quickest pit stop"), the least is the best.
    ("fastest", Op::Peak(false)),
    ("quickest", Op::Peak(false)),
    ("slowest", Op::Peak(true)),
    ("longest", Op::Peak(true)),
    ("shortest", Op::Peak(false)),
    // Of a thing with a price ("the most expensive order"), its price.
    ("the most expensive", Op::Peak(true)),
    ("most expensive", Op::Peak(true)),
    ("the least expensive", Op::Peak(false)),
    ("priciest", Op::Peak(true)),
    ("least expensive", Op::Peak(false)),
    ("cheapest", Op::Peak(false)),
    ("top", Op::Top),
    ("bottom", Op::Bottom),
    ("them", Op::Back),
    ("those", Op::Back),
    ("these", Op::Back),
    // "who won the ones held since 2021": those the last answer counted.
    ("the ones", Op::Back),
    ("how many times", Op::Count),
    ("broken down by", Op::GroupBy),
    ("break it down by", Op::GroupBy),
    ("break down by", Op::GroupBy),
    ("breakdown by", Op::GroupBy),
    ("split by", Op::GroupBy),
    // "how were those wins split between their drivers".
    ("split between", Op::GroupBy),
    ("split among", Op::GroupBy),
    ("divided between", Op::GroupBy),
    ("divided among", Op::GroupBy),
    ("shared between", Op::GroupBy),
    ("grouped by", Op::GroupBy),
    ("group by", Op::GroupBy),
    ("group it by", Op::GroupBy),
    ("for each", Op::GroupBy),
    ("for every", Op::GroupBy),
    ("by", Op::GroupBy),
    ("per", Op::Per),
    ("each", Op::GroupBy),
    ("across", Op::GroupBy),
    ("all", Op::All),
    ("both", Op::Both),
    ("every", Op::GroupBy),
    ("since", Op::Since),
    ("from", Op::From),
    ("after", Op::After),
    ("before", Op::Before),
    ("prior to", Op::Before),
    ("later than", Op::After),
    ("earlier than", Op::Before),
    ("sooner than", Op::Before),
    ("until", Op::Until),
    ("till", Op::Until),
    ("up to", Op::Until),
    ("through", Op::To),
    ("between", Op::Between),
    ("to", Op::To),
    ("and", Op::And),
    ("vs", Op::Versus),
    ("v", Op::Versus),
    ("versus", Op::Versus),
    ("compared to", Op::Versus),
    ("compared with", Op::Versus),
    ("compare", Op::Versus),
    ("against", Op::Versus),
    ("or", Op::Versus),
    ("who", Op::Who),
    ("whom", Op::Who),
    // "which guy won the 2012 singapore gp": a person, whoever the
    // ontology's people are.
    ("which guy", Op::Who),
    ("what guy", Op::Who),
    ("whose", Op::Who),
    ("which", Op::Which),
    ("what", Op::Which),
    ("list", Op::Which),
    ("show", Op::Which),
    // "Give the driver, the race and the stop duration": what to show.
    ("give", Op::Which),
    ("display", Op::Which),
    ("name", Op::Which),
    ("names", Op::Which),
    // "and how long did it take": the duration asked, never a longitude.
    ("how long", Op::Which),
    ("when", Op::When),
    ("where", Op::Where),
    ("year", Op::Year),
    ("years", Op::Year),
    ("yearly", Op::Every(Grain::Year)),
    ("annually", Op::Every(Grain::Year)),
    ("annual", Op::Every(Grain::Year)),
    ("month", Op::Month),
    ("months", Op::Month),
    ("monthly", Op::Every(Grain::Month)),
    ("quarter", Op::Period(Grain::Quarter)),
    ("quarters", Op::Period(Grain::Quarter)),
    ("week", Op::Period(Grain::Week)),
    ("weeks", Op::Period(Grain::Week)),
    ("day", Op::Period(Grain::Day)),
    ("days", Op::Period(Grain::Day)),
    ("quarterly", Op::Every(Grain::Quarter)),
    ("weekly", Op::Every(Grain::Week)),
    ("daily", Op::Every(Grain::Day)),
    ("week by week", Op::Every(Grain::Week)),
    ("day by day", Op::Every(Grain::Day)),
    ("more than", Op::Above),
    ("greater than", Op::Above),
    ("higher than", Op::Above),
    ("bigger than", Op::Above),
    ("larger than", Op::Above),
    ("longer than", Op::Above),
    ("heavier than", Op::Above),
    ("more expensive than", Op::Above),
    ("in excess of", Op::Above),
    ("exceeding", Op::Above),
    ("above", Op::Above),
    ("over", Op::Above),
    // "born on or after 1 January 2000": the day itself too.
    ("on or after", Op::Since),
    ("on or before", Op::Until),
    ("at least", Op::AtLeast),
    ("no fewer than", Op::AtLeast),
    ("no less than", Op::AtLeast),
    ("not less than", Op::AtLeast),
    ("a minimum of", Op::AtLeast),
    ("at most", Op::AtMost),
    ("no more than", Op::AtMost),
    ("not more than", Op::AtMost),
    ("a maximum of", Op::AtMost),
    ("less than", Op::Below),
    ("lower than", Op::Below),
    ("smaller than", Op::Below),
    ("shorter than", Op::Below),
    ("lighter than", Op::Below),
    ("cheaper than", Op::Below),
    ("fewer than", Op::Below),
    ("below", Op::Below),
    ("under", Op::Below),
    ("only", Op::Only),
    // "only counting parts in size 50": the rows kept, not a count.
    ("only counting", Op::Only),
    ("but", Op::Contrast),
    // "teams that took part in 2024 and failed to win": who took part
    // holds, then what they did not do, in the same time.
    ("took part", Op::Contrast),
    ("take part", Op::Contrast),
    ("taken part", Op::Contrast),
    ("taking part", Op::Contrast),
    ("just", Op::Only),
    ("instead", Op::Instead),
    ("breakdown", Op::Breakdown),
    ("distribution", Op::Breakdown),
    ("how often", Op::Breakdown),
    ("add", Op::Adding),
    ("also add", Op::Adding),
    ("also show", Op::Adding),
    ("also include", Op::Adding),
    ("as well", Op::Adding),
    ("not", Op::Negation),
    // "non-British": the hyphen splits the word.
    ("non", Op::Negation),
    ("excluding", Op::Negation),
    ("except", Op::Negation),
    ("without", Op::Negation),
    // "drivers who have no code".
    ("have no", Op::Negation),
    ("has no", Op::Negation),
    ("with no", Op::Negation),
    ("not counting", Op::Negation),
    ("not including", Op::Negation),
    ("never", Op::Negation),
    ("outside", Op::Negation),
    ("outside of", Op::Negation),
    ("other than", Op::Negation),
    ("apart from", Op::Negation),
    ("exclude", Op::Negation),
    ("excluded", Op::Negation),
    ("leaving out", Op::Negation),
    ("leave out", Op::Negation),
    ("left out", Op::Negation),
    ("ignoring", Op::Negation),
    ("aside from", Op::Negation),
    ("besides", Op::Negation),
    ("barring", Op::Negation),
    ("failed to", Op::Negation),
    ("fail to", Op::Negation),
    ("failing to", Op::Negation),
    ("yet to", Op::Negation),
    ("highest first", Op::Descending),
    ("largest first", Op::Descending),
    ("biggest first", Op::Descending),
    ("most first", Op::Descending),
    ("slowest first", Op::Descending),
    ("longest first", Op::Descending),
    // "late deliveries per ship mode, worst first": asked of what goes
    // wrong (delays, returns, retirements), where the worst is the most.
    ("worst first", Op::Descending),
    ("oldest first", Op::InTimeOrder(false)),
    ("earliest first", Op::InTimeOrder(false)),
    ("newest first", Op::InTimeOrder(true)),
    ("latest first", Op::InTimeOrder(true)),
    ("youngest first", Op::InTimeOrder(true)),
    ("most recent first", Op::InTimeOrder(true)),
    ("in chronological order", Op::InTimeOrder(false)),
    ("chronologically", Op::InTimeOrder(false)),
    ("in reverse chronological order", Op::InTimeOrder(true)),
    ("reverse chronological", Op::InTimeOrder(true)),
    ("in date order", Op::InTimeOrder(false)),
    ("in calendar order", Op::InTimeOrder(false)),
    ("in time order", Op::InTimeOrder(false)),
    ("by date order", Op::InTimeOrder(false)),
    ("quickest first", Op::Ascending),
    ("most negative", Op::Ascending),
    ("most negative first", Op::Ascending),
    ("fastest first", Op::Ascending),
    ("shortest first", Op::Ascending),
    ("cheapest first", Op::Ascending),
    ("lowest first", Op::Ascending),
    ("smallest first", Op::Ascending),
    ("fewest first", Op::Ascending),
    ("least first", Op::Ascending),
    // "ranked from most to least": the order, not two superlatives.
    ("most to least", Op::Descending),
    ("most to fewest", Op::Descending),
    ("highest to lowest", Op::Descending),
    ("high to low", Op::Descending),
    ("largest to smallest", Op::Descending),
    ("biggest to smallest", Op::Descending),
    ("least to most", Op::Ascending),
    ("fewest to most", Op::Ascending),
    ("lowest to highest", Op::Ascending),
    ("low to high", Op::Ascending),
    ("smallest to largest", Op::Ascending),
    ("smallest to biggest", Op::Ascending),
    ("oldest to newest", Op::InTimeOrder(false)),
    ("earliest to latest", Op::InTimeOrder(false)),
    ("newest to oldest", Op::InTimeOrder(true)),
    ("youngest to oldest", Op::InTimeOrder(true)),
    ("oldest to youngest", Op::InTimeOrder(false)),
    ("latest to earliest", Op::InTimeOrder(true)),
    ("recorded", Op::Recorded),
    // "which drivers made it through to Q3": those with a Q3 time.
    ("made it to", Op::Recorded),
    ("made it into", Op::Recorded),
    ("made it through to", Op::Recorded),
    ("make it to", Op::Recorded),
    ("make it into", Op::Recorded),
    ("got through to", Op::Recorded),
    ("advanced to", Op::Recorded),
    ("reached", Op::Recorded),
    // "in order of qualifying position": smallest first, as positions go.
    ("in order of", Op::Ascending),
    // "in descending order of account balance": the order, not the orders.
    ("in descending order of", Op::Descending),
    ("descending order of", Op::Descending),
    ("in descending order", Op::Descending),
    ("descending order", Op::Descending),
    ("in ascending order of", Op::Ascending),
    ("ascending order of", Op::Ascending),
    ("in ascending order", Op::Ascending),
    ("ascending order", Op::Ascending),
    ("descending", Op::Descending),
    ("desc", Op::Descending),
    ("reverse", Op::Descending),
    ("ascending", Op::Ascending),
    ("asc", Op::Ascending),
    ("alphabetical", Op::Ascending),
    ("alphabetically", Op::Ascending),
];

/// Words that carry no meaning for the plan.
const STOP_WORDS: &[&str] = &[
    // "which part type appears on the most line items": being counted.
    "appear",
    "appears",
    "appeared",
    "appearing",
    "brought",
    "bring",
    "brings",
    "bringing",
    "generated",
    "generate",
    "generates",
    "generating",
    "earns",
    "contributes",
    "contributed",
    "produces",
    "spent",
    "spend",
    "bought",
    "buy",
    "purchased",
    "had",
    "having",
    "host",
    "hosted",
    "hosts",
    "hold",
    "holds",
    "staged",
    "raced",
    "drove",
    "drive",
    "drives",
    "driving",
    "driven",
    "compete",
    "competed",
    "participated",
    "entered",
    "score",
    "won't",
    "a",
    "about",
    // "thanks in advance": politeness, not a place.
    "advance",
    // "right now": the present the data already is.
    "right",
    "also",
    "am",
    "an",
    "any",
    "anything",
    "something",
    // "the highest speed anyone recorded": whoever it was, which the rows
    // already are.
    "anyone",
    "anybody",
    "everyone",
    "everybody",
    // "which supplier offers part 100": the supplier's part supply.
    "offer",
    "offers",
    "offered",
    "offering",
    "are",
    // Typed for "are" and "you": "how many suppliers r based in germany".
    "r",
    // "the slowest single stop": one of the rows, which any row is.
    "single",
    "u",
    "as",
    "at",
    "be",
    "been",
    "being",
    "can",
    "could",
    "did",
    "do",
    "does",
    "during",
    "earn",
    "earned",
    "for",
    "get",
    "got",
    "happen",
    "happened",
    "has",
    "have",
    "held",
    "here",
    "i",
    "in",
    "into",
    "is",
    "it",
    "its",
    "let",
    "me",
    "my",
    "now",
    "of",
    "ok",
    "okay",
    "on",
    "our",
    "over",
    "overall",
    "place",
    "please",
    "run",
    "s",
    "same",
    "scored",
    "season's",
    "so",
    "take",
    "taken",
    "tell",
    "than",
    "thanks",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "took",
    "us",
    "was",
    "we",
    "were",
    "what's",
    "with",
    "would",
    "you",
    "your",
    "again",
    // "how much did we give away in discounts": the verb's particle.
    "away",
    "far",
    "record",
    "achieve",
    "achieved",
    // "who set the fastest lap": the verb of a record, not what it is.
    "set",
    "sets",
    "setting",
    "make",
    "made",
    "scoring",
    "data",
    "ever",
    // "the Red Bull cars", "did a car retire": the team or the entry
    // already says whose; "an engine failure" is the status "Engine".
    "car",
    "cars",
    "failure",
    "failures",
    // "the 3-letter driver code": how a code is written, not which.
    "letter",
    "letters",
    // The span of a whole career is no time filter.
    "career",
    "careers",
    // Verbs that say how something came about, not what is measured.
    "sold",
    "sell",
    "sells",
    "paid",
    "sent",
    "built",
    "led",
    "kept",
    "gave",
    "chose",
    "time",
    "times",
    "how",
    "much",
    "many",
    "know",
    "want",
    "see",
    "like",
    "find",
    "shows",
    "need",
    "kind",
    "type",
    "types",
    "value",
    "values",
    // Pronouns and determiners.
    "he",
    "she",
    "his",
    "her",
    "hers",
    "him",
    "one",
    "ones",
    "some",
    "such",
    "theirs",
    "ours",
    "yours",
    "mine",
    "myself",
    "themselves",
    "whichever",
    "whatever",
    "either",
    "neither",
    "own",
    "t",
    "d",
    "ll",
    "re",
    "ve",
    "m",
    // Politeness and talk around the question.
    "hi",
    "hello",
    "hey",
    "kindly",
    "thank",
    "thx",
    "pls",
    "plz",
    "should",
    "might",
    "may",
    "must",
    "will",
    "shall",
    "wonder",
    "wondering",
    "curious",
    "interested",
    "return",
    "retrieve",
    "provide",
    "provided",
    "fetch",
    "gimme",
    "look",
    "up",
    "down",
    // "break that down by region".
    "break",
    "once",
    "out",
    "off",
    "quick",
    "quickly",
    "exactly",
    "exact",
    "precisely",
    "roughly",
    "approximately",
    "actually",
    "really",
    "very",
    // Commands around what is asked: "indicate his finish time".
    "indicate",
    "mention",
    "specify",
    "identify",
    "calculate",
    "compute",
    "determine",
    "describe",
    "enumerate",
    "currently",
    "yet",
    "still",
    "already",
    "even",
    "theres",
    "id",
    "im",
    "lets",
    "question",
    "info",
    "information",
    "details",
    "detail",
    // Adjectives that do not change what is counted.
    "different",
    "distinct",
    "unique",
    "individual",
    "separate",
    "various",
    "respective",
    "specific",
    "particular",
    "given",
    "certain",
    "entire",
    "whole",
    "full",
    "complete",
    "official",
    "actual",
    "respectively",
    // Verbs of taking part, which the relationships already say.
    "part",
    "participate",
    "participating",
    "participation",
    "involved",
    "involve",
    "involving",
    "feature",
    "featured",
    "featuring",
    "appear",
    "appeared",
    "based",
    // "base it on where the customer is": how to read, which the words
    // after it say.
    "base",
    "located",
    "situated",
    "inclusive",
    "sit",
    "sits",
    "lie",
    "lies",
    "come",
    "comes",
    "came",
    "belong",
    "belongs",
    "belonged",
    "associated",
    "related",
    "belonging",
    "go",
    "went",
    "gone",
    "occur",
    "occurred",
    "finish",
    "finished",
    "finishing",
    "end",
    "ended",
    "ending",
    "contain",
    "contains",
    "include",
    "includes",
    "included",
    "use",
    "used",
    "using",
    "register",
    "registered",
    "listed",
    "known",
    "called",
    "named",
    "say",
    "said",
    "according",
    "respect",
    "regarding",
    "concerning",
    "among",
    "amongst",
    "within",
    "whilst",
    "while",
    "order",
    "ordered",
    "sort",
    "sorted",
    "rank",
    "ranked",
    "arranged",
    "via",
    "onto",
    "upon",
    "off",
    "along",
    "together",
    "if",
    "whether",
    "because",
    "due",
    "owing",
    // "the points haul", "win tally", "revenue figures": words for a
    // measure's value, which the measure's own word already says.
    "haul",
    "tally",
    "tallies",
    "figure",
    "figures",
    "stats",
    "statistics",
    "overview",
    "summary",
];

pub fn is_stop_word(plain: &str) -> bool {
    STOP_WORDS.contains(&plain)
}

/// The longest operator phrase at the start of `words`: its length and meaning.
pub fn operator_at(words: &[&str]) -> Option<(usize, Op)> {
    PHRASES
        .iter()
        .chain(GROWTH_PHRASES)
        .filter_map(|(phrase, op)| {
            let parts: Vec<&str> = phrase.split(' ').collect();
            (words.len() >= parts.len() && words[..parts.len()] == parts[..])
                .then_some((parts.len(), *op))
        })
        .max_by_key(|(len, _)| *len)
}

/// "leaving" of "leaving out": a word of an operator phrase is spelled as
/// meant, never a typo of an operator word ("leading").
pub fn in_operator_phrase(plain: &str) -> bool {
    PHRASES
        .iter()
        .chain(GROWTH_PHRASES)
        .any(|(phrase, _)| phrase.split(' ').any(|word| word == plain))
}

/// "three" in "top three".
pub fn small_number(plain: &str) -> Option<i64> {
    const NUMBERS: &[&str] = &[
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    NUMBERS.iter().position(|n| *n == plain).map(|n| n as i64)
}

/// Phrases that say how much of the chat's scope a follow-up keeps, with
/// how many words they take: "that year" keeps its time (never a grouping
/// by year), "of all time" keeps only the thing it is about.
pub fn chat_scope_phrase(words: &[&str]) -> Option<(usize, Op)> {
    const PHRASES: &[(&[&str], Op)] = &[
        (&["of", "all", "time"], Op::AllTime),
        (&["all", "time"], Op::AllTime),
        (&["in", "history"], Op::AllTime),
        (&["career"], Op::AllTime),
        (&["careers"], Op::AllTime),
        (&["that", "year"], Op::SameTime),
        (&["that", "season"], Op::SameTime),
        (&["that", "same", "year"], Op::SameTime),
        (&["that", "same", "season"], Op::SameTime),
        (&["the", "same", "year"], Op::SameTime),
        (&["the", "same", "season"], Op::SameTime),
        (&["that", "month"], Op::SameTime),
        (&["that", "quarter"], Op::SameTime),
        (&["that", "day"], Op::SameTime),
        (&["that", "period"], Op::SameTime),
        (&["the", "same", "period"], Op::SameTime),
    ];
    PHRASES
        .iter()
        .find(|(phrase, _)| words.starts_with(phrase))
        .map(|(phrase, op)| (phrase.len(), *op))
}

/// Units a number is shown in ("in seconds", "in dollars").
pub fn is_unit(plain: &str) -> bool {
    const UNITS: &[&str] = &[
        "seconds",
        "second",
        "milliseconds",
        "minutes",
        "hours",
        "days",
        "dollars",
        "usd",
        "euros",
        "eur",
        "kmh",
        "kph",
        "mph",
        "km",
        "kilometres",
        "kilometers",
        "metres",
        "meters",
    ];
    UNITS.contains(&plain)
}

/// Shorthand people type, spelled out before matching.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("avg", "average"),
    ("num", "number"),
    ("nr", "number"),
    ("qty", "quantity"),
    ("pts", "points"),
    ("pt", "point"),
    ("diff", "different"),
    ("acct", "account"),
    ("bal", "balance"),
    ("secs", "seconds"),
    ("sec", "seconds"),
    ("mins", "minutes"),
    ("hrs", "hours"),
    ("amt", "amount"),
    ("qtr", "quarter"),
    ("qtrs", "quarters"),
    ("pos", "position"),
    ("thru", "through"),
    ("yr", "year"),
    ("yrs", "years"),
    ("tot", "total"),
    ("nb", "number"),
    ("w", "with"),
    ("ms", "milliseconds"),
    ("bday", "birthday"),
    ("bdays", "birthdays"),
    // Function words as people mistype them: too short for the one-typo
    // match, which would take "wer" for any three-letter word.
    ("wer", "were"),
    ("wre", "were"),
    ("teh", "the"),
    ("hte", "the"),
    ("waht", "what"),
    ("wat", "what"),
    ("whta", "what"),
    ("hwo", "how"),
    ("whcih", "which"),
    ("wich", "which"),
    ("thier", "their"),
    ("fo", "of"),
    ("adn", "and"),
    ("nad", "and"),
    ("pls", "please"),
    // "whats the balance": "what's" without its apostrophe.
    ("whats", "what"),
    ("whos", "who"),
    ("wheres", "where"),
    ("plz", "please"),
];

pub fn expand_abbreviation(plain: &str) -> Option<&'static str> {
    ABBREVIATIONS
        .iter()
        .find(|(short, _)| *short == plain)
        .map(|(_, long)| *long)
}

/// An operator word one typo away from `plain` ("nmber", "avrage"), for
/// words of five letters or more.
pub fn correct_operator_word(plain: &str) -> Option<&'static str> {
    if plain.chars().count() < 5 {
        return None;
    }
    // Long stop words too: "diffrent" is "different".
    PHRASES
        .iter()
        .flat_map(|(phrase, _)| phrase.split(' '))
        .filter(|word| word.len() >= 5)
        .chain(STOP_WORDS.iter().copied().filter(|word| word.len() >= 7))
        // "yougest" is "youngest".
        .chain(
            EXTREMES
                .iter()
                .filter(|(_, _, needs_object, _)| !needs_object)
                .map(|(word, ..)| *word),
        )
        .find(|word| crate::engine::lexicon::one_edit_apart(word, plain))
}

/// Words that make an object a person, whom "who" asks about.
pub const PERSON_WORDS: &[&str] = &[
    "driver",
    "racer",
    "pilot",
    "customer",
    "client",
    "person",
    "people",
    "employee",
    "user",
    "player",
    "member",
    "athlete",
    "author",
    "buyer",
    "seller",
    "supplier",
    "vendor",
    "manager",
    "agent",
    "salesperson",
    "patient",
    "student",
    "teacher",
    "owner",
    "rep",
    "staff",
];

/// Words naming a body of people ("who won the constructors'
/// championship": a team), which "who" asks for where no person is in
/// reach.
pub const ORGANISATION_WORDS: &[&str] = &[
    "team",
    "company",
    "organisation",
    "organization",
    "firm",
    "club",
    "constructor",
    "manufacturer",
    "business",
];

/// The places written as words, first to tenth: read in questions, and
/// written in answers ("the second most wins").
pub const ORDINAL_WORDS: [&str; 10] = [
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
];

/// A place said in digits: "1st", "2nd", "12th", the form [`ordinal`]
/// reads back.
pub fn numbered_ordinal(n: i64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// "second", "2nd", "P2": a finishing position.
pub fn ordinal(plain: &str) -> Option<i64> {
    if let Some(n) = ORDINAL_WORDS.iter().position(|w| *w == plain) {
        return Some(n as i64 + 1);
    }
    // "who topped qualifying": was first in it.
    if plain == "topped" {
        return Some(1);
    }
    let numeric = |digits: &str| {
        (!digits.is_empty() && digits.len() <= 3 && digits.chars().all(|c| c.is_ascii_digit()))
            .then(|| digits.parse::<i64>().ok())
            .flatten()
    };
    if let Some(digits) = plain.strip_prefix('p') {
        return numeric(digits).filter(|n| (1..=40).contains(n));
    }
    ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|suffix| plain.strip_suffix(suffix))
        .and_then(numeric)
        .filter(|n| (1..=100).contains(n))
}

/// "oldest", "the first race": the earliest or latest by a date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extreme {
    pub latest: bool,
    /// "youngest", "older": of a person's age, which is also a date.
    pub of_age: bool,
    /// "first", "last" mean this only before a thing ("the first race");
    /// otherwise they are a position or a relative date.
    pub needs_object: bool,
}

/// "held", "won", "raced": "first" before such a word is the earliest time
/// it happened ("first held"), not first place.
pub fn is_past_participle(plain: &str) -> bool {
    const IRREGULAR: &[&str] = &[
        "won", "held", "run", "ran", "drove", "driven", "took", "taken", "began", "begun", "made",
        "built", "sold", "bought", "met", "became", "seen", "went", "gone",
    ];
    IRREGULAR.contains(&plain) || (plain.len() > 4 && plain.ends_with("ed") && plain != "need")
}

/// "what will revenue be", "forecast", "predict": a question about what
/// has not happened, which data about what has cannot answer.
pub fn asks_future(plain: &str) -> bool {
    matches!(
        plain,
        "will"
            | "forecast"
            | "forecasts"
            | "forecasted"
            | "predict"
            | "predicted"
            | "prediction"
            | "predictions"
            | "projected"
            | "projection"
            | "projections"
            | "expect"
            | "anticipate"
    )
}

/// The words of an extreme: latest (true) or earliest, whether the word
/// means one only before a thing ("the first race"), and whether it is of
/// a person's age.
const EXTREMES: &[(&str, bool, bool, bool)] = &[
    ("oldest", false, false, true),
    ("earliest", false, false, false),
    ("eldest", false, false, true),
    ("youngest", true, false, true),
    // "which driver is older, Rosberg or Hamilton": the extreme of two.
    ("older", false, false, true),
    ("younger", true, false, true),
    ("latest", true, false, false),
    ("newest", true, false, false),
    ("recent", true, false, false),
    ("first", false, true, false),
    ("last", true, true, false),
    ("final", true, true, false),
    // "the opening race of the season", "the closing round".
    ("opening", false, true, false),
    ("closing", true, true, false),
];

pub fn extreme(plain: &str) -> Option<Extreme> {
    EXTREMES
        .iter()
        .find(|(word, ..)| *word == plain)
        .map(|&(_, latest, needs_object, of_age)| Extreme {
            latest,
            needs_object,
            of_age,
        })
}

/// "January", "Nov", "sept": a month's number. "may" and "march" are also
/// words, so callers take a month only next to a number.
pub fn month(plain: &str) -> Option<u32> {
    const MONTHS: &[&str] = &[
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    if plain.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| *m == plain || (plain.len() <= 4 && m.starts_with(plain)))
        .map(|i| i as u32 + 1)
}

/// "drivers", "brands", not "class": a word that reads as a plural.
pub fn looks_plural(word: &str) -> bool {
    word.ends_with('s') && !word.ends_with("ss")
}

/// `text` with "they" and "them" read as one person, "he" and "him", and
/// where `possessive` "their" as "his": the pronouns of a question about
/// one thing the chat or the question itself has named. Punctuation
/// around a word stays.
pub fn as_one_person(text: &str, possessive: bool) -> String {
    let not_word = |c: char| !c.is_alphanumeric();
    text.split(' ')
        .map(|token| {
            let lead = token.len() - token.trim_start_matches(not_word).len();
            let word = token[lead..].trim_end_matches(not_word);
            let one = match word.to_lowercase().as_str() {
                "they" => "he",
                "them" => "him",
                "their" | "theirs" if possessive => "his",
                _ => return token.to_owned(),
            };
            format!("{}{one}{}", &token[..lead], &token[lead + word.len()..])
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// "shipped minus returned": a word that spells out arithmetic, which
/// explains how a measure is made rather than asking for one.
pub fn is_spelled_operator(plain: &str) -> bool {
    matches!(plain, "minus" | "plus" | "less" | "divided" | "times")
}

/// Phrases that read as words of the ontology but only say "everything":
/// "took place" is not the position called "place", "of all time" not a
/// race's start time. Their length in words.
pub fn filler_phrase(words: &[&str]) -> Option<usize> {
    const PHRASES: &[&[&str]] = &[
        &["took", "place"],
        &["take", "place"],
        &["takes", "place"],
        &["taking", "place"],
        &["taken", "place"],
        &["in", "place"],
        &["in", "the", "data"],
        &["in", "the", "database"],
        // "what about Brazilian ones", "how about 2022": a follow-up that
        // changes what it names; "what" asks for nothing new.
        &["what", "about"],
        &["how", "about"],
        // "won at least one race": the rows a measure counts exist.
        &["at", "least", "one"],
        &["at", "least", "once"],
        &["one", "or", "more"],
        // "how much of that came back as returns": being returned, which
        // the thing named says.
        &["came", "back"],
        &["come", "back"],
        &["comes", "back"],
        &["coming", "back"],
        &["sent", "back"],
        &["brought", "back"],
        // "which driver won the most races each season? Show ties if there
        // are any": a ranking within groups keeps its ties, and an answer
        // names a tie as one.
        &["show", "ties", "if", "there", "are", "any"],
        &["if", "there", "are", "any"],
    ];
    // "since the start of 1997" is since 1997.
    const BEFORE_A_YEAR: &[&[&str]] = &[
        &["the", "start", "of"],
        &["the", "beginning", "of"],
        &["start", "of"],
        &["beginning", "of"],
    ];
    let before_year = BEFORE_A_YEAR.iter().find(|phrase| {
        words.starts_with(phrase)
            && words
                .get(phrase.len())
                .is_some_and(|year| year.len() == 4 && year.parse::<u16>().is_ok())
    });
    PHRASES
        .iter()
        .chain(before_year)
        .find(|phrase| words.starts_with(phrase))
        .map(|phrase| phrase.len())
}

/// Words English uses for one moment in a thing's life. A date the ontology
/// names with one of them ("receipt date", "received") is also meant by the
/// others ("arrived", "delivered"), wherever they name nothing else.
pub const DATE_WORDS: &[&[&str]] = &[
    &[
        "arrived",
        "arrival",
        "received",
        "receipt",
        "delivered",
        "delivery",
    ],
    &["shipped", "shipping", "dispatched", "dispatch"],
    &["committed", "commit", "promised"],
    &["born", "birth", "birthday"],
];

/// "or more", "or further back": after a number, the words that make it a
/// bound, as the number of words and the comparison. "Or higher" and "or
/// lower" are left out: of a position, higher is the smaller number.
pub fn open_bound(words: &[&str]) -> Option<(usize, Op)> {
    match words {
        ["or", "further", "back", ..] => Some((3, Op::AtLeast)),
        [
            "or",
            "more" | "above" | "greater" | "over" | "worse" | "later" | "longer",
            ..,
        ] => Some((2, Op::AtLeast)),
        [
            "or",
            "less" | "fewer" | "below" | "under" | "better" | "earlier" | "shorter",
            ..,
        ] => Some((2, Op::AtMost)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::as_one_person;

    #[test]
    fn one_person_keeps_the_punctuation_and_their_only_when_asked() {
        assert_eq!(
            as_one_person("did they win, and (them) their team?", false),
            "did he win, and (him) their team?"
        );
        assert_eq!(
            as_one_person("What's THEIR nationality?", true),
            "What's his nationality?"
        );
        assert_eq!(as_one_person("they're there", true), "they're there");
    }
}
