//! The operator words of business questions, which come from English rather
//! than from the ontology, and the words that carry no meaning of their own.

/// What an operator phrase asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Count,
    Sum,
    Average,
    Most,
    Least,
    Top,
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
    Only,
    Instead,
    Negation,
}

/// Phrases in plain (folded, unstemmed) words, longest first where they overlap.
const PHRASES: &[(&str, Op)] = &[
    ("how many", Op::Count),
    ("how much", Op::Sum),
    ("number of", Op::Count),
    ("no of", Op::Count),
    ("count of", Op::Count),
    ("count", Op::Count),
    ("total", Op::Sum),
    ("sum of", Op::Sum),
    ("sum", Op::Sum),
    ("combined", Op::Sum),
    ("altogether", Op::Sum),
    ("in total", Op::Sum),
    ("on average", Op::Average),
    ("average", Op::Average),
    ("avg", Op::Average),
    ("mean", Op::Average),
    ("the most", Op::Most),
    ("most", Op::Most),
    ("highest", Op::Most),
    ("best", Op::Most),
    ("largest", Op::Most),
    ("biggest", Op::Most),
    ("greatest", Op::Most),
    ("maximum", Op::Most),
    ("max", Op::Most),
    ("more", Op::Most),
    ("leading", Op::Most),
    ("the least", Op::Least),
    ("least", Op::Least),
    ("fewest", Op::Least),
    ("lowest", Op::Least),
    ("worst", Op::Least),
    ("smallest", Op::Least),
    ("minimum", Op::Least),
    ("min", Op::Least),
    ("fewer", Op::Least),
    ("top", Op::Top),
    ("broken down by", Op::GroupBy),
    ("break it down by", Op::GroupBy),
    ("break down by", Op::GroupBy),
    ("breakdown by", Op::GroupBy),
    ("split by", Op::GroupBy),
    ("grouped by", Op::GroupBy),
    ("group by", Op::GroupBy),
    ("group it by", Op::GroupBy),
    ("for each", Op::GroupBy),
    ("for every", Op::GroupBy),
    ("by", Op::GroupBy),
    ("per", Op::GroupBy),
    ("each", Op::GroupBy),
    ("across", Op::GroupBy),
    ("all", Op::All),
    ("every", Op::All),
    ("since", Op::Since),
    ("from", Op::From),
    ("after", Op::After),
    ("before", Op::Before),
    ("prior to", Op::Before),
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
    ("whose", Op::Who),
    ("which", Op::Which),
    ("what", Op::Which),
    ("list", Op::Which),
    ("show", Op::Which),
    ("name", Op::Which),
    ("when", Op::When),
    ("only", Op::Only),
    ("just", Op::Only),
    ("instead", Op::Instead),
    ("not", Op::Negation),
    ("excluding", Op::Negation),
    ("except", Op::Negation),
    ("without", Op::Negation),
    ("never", Op::Negation),
];

/// Words that carry no meaning for the plan.
const STOP_WORDS: &[&str] = &[
    "a", "about", "also", "am", "an", "any", "are", "as", "at", "be", "been", "being", "can",
    "could", "did", "do", "does", "during", "earn", "earned", "for", "get", "give", "got", "had",
    "happen", "happened", "has", "have", "held", "here", "i", "in", "into", "is", "it", "its",
    "let", "me", "my", "now", "of", "ok", "okay", "on", "our", "over", "overall", "place",
    "please", "run", "s", "same", "scored", "season's", "so", "take", "taken", "tell", "than",
    "thanks", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "took", "us", "was", "we", "were", "what's", "whats", "where", "with", "would", "you", "your",
    "again", "there", "did", "were", "far", "so", "happened", "record", "recorded", "achieve",
    "achieved", "make", "made", "scoring", "data", "ever", "time", "times", "total", "year",
    "years", "how", "much", "many", "know", "want", "see", "like", "find", "shows", "give", "need",
    "does", "of", "which", "kind", "type", "types", "value", "values",
];

pub fn is_stop_word(plain: &str) -> bool {
    STOP_WORDS.contains(&plain)
}

/// The longest operator phrase at the start of `words`: its length and meaning.
pub fn operator_at(words: &[&str]) -> Option<(usize, Op)> {
    PHRASES
        .iter()
        .filter_map(|(phrase, op)| {
            let parts: Vec<&str> = phrase.split(' ').collect();
            (words.len() >= parts.len() && words[..parts.len()] == parts[..])
                .then_some((parts.len(), *op))
        })
        .max_by_key(|(len, _)| *len)
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
