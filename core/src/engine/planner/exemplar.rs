//! Verified questions as exemplars. A question that reads like one of the
//! ontology's verified questions up to its literal values ("What was total
//! revenue in 1997?" against "... in 1995?") reuses the verified SQL, with
//! the new values put into the parsed tree, never into its text.
//!
//! Two questions read alike when their pieces (what the planner reads:
//! operators, concepts, numbers; stop words aside) agree one for one, except
//! where both name a year, or both name a value of the same attribute.

use super::words::{Piece, read};
use crate::engine::lexicon::{Concept, Lexicon};
use crate::ontology::VerifiedQuestion;
use crate::project::Dialect;
use crate::sql;
use sqlparser::ast::{Expr, Query, Value, visit_expressions_mut};
use std::ops::ControlFlow;

/// A verified question the question follows, and its SQL with the
/// question's values in place of the verified ones.
#[derive(Clone, Debug, PartialEq)]
pub struct Followed {
    pub question: String,
    pub query: Query,
    /// "1997 for 1995": what was put in place of what.
    pub substitutions: Vec<(String, String)>,
}

/// One literal the question changes.
#[derive(Clone, Debug, PartialEq)]
enum Slot {
    Year { from: i64, to: i64 },
    Text { from: String, to: String },
}

/// A verified question read once per version: its pieces and parsed SQL.
struct Exemplar {
    question: String,
    pieces: Vec<Piece>,
    query: Query,
}

/// The verified questions of one version, read and parsed once, so that a
/// question the planner refuses costs a comparison per exemplar, not a read.
#[derive(Default)]
pub struct Exemplars(Vec<Exemplar>);

impl Exemplars {
    /// The verified questions whose SQL parses in `dialect`.
    pub fn build(lexicon: &Lexicon, dialect: Dialect, verified: &[VerifiedQuestion]) -> Self {
        Self(
            verified
                .iter()
                .filter_map(|v| {
                    Some(Exemplar {
                        question: v.question.clone(),
                        pieces: meaningful(read(lexicon, &v.question, None)),
                        query: sql::parse_select(dialect, &v.sql).ok()?,
                    })
                })
                .collect(),
        )
    }

    /// The first verified question `question` follows, with its SQL adapted.
    pub fn follow(&self, lexicon: &Lexicon, question: &str) -> Option<Followed> {
        let asked = meaningful(read(lexicon, question, None));
        self.0.iter().find_map(|exemplar| {
            let slots = align(&exemplar.pieces, &asked)?;
            let mut query = exemplar.query.clone();
            for slot in &slots {
                if !substitute(&mut query, slot) {
                    // The SQL does not carry the value the question changes:
                    // it cannot be adapted, only guessed at.
                    return None;
                }
            }
            Some(Followed {
                question: exemplar.question.clone(),
                query,
                substitutions: slots
                    .iter()
                    .map(|slot| match slot {
                        Slot::Year { from, to } => (to.to_string(), from.to_string()),
                        Slot::Text { from, to } => (to.clone(), from.clone()),
                    })
                    .collect(),
            })
        })
    }
}

/// What a reading says, without the notes on how it read phrases.
fn meaningful(pieces: Vec<Piece>) -> Vec<Piece> {
    pieces
        .into_iter()
        .filter(|p| !matches!(p, Piece::Note(_)))
        .collect()
}

/// The literals that differ between two readings alike in everything else.
fn align(exemplar: &[Piece], asked: &[Piece]) -> Option<Vec<Slot>> {
    if exemplar.len() != asked.len() {
        return None;
    }
    let mut slots = Vec::new();
    for (was, is) in exemplar.iter().zip(asked) {
        match (was, is) {
            (Piece::Number(a), Piece::Number(b)) if a == b => {}
            (Piece::Number(a), Piece::Number(b)) if is_year(*a) && is_year(*b) => {
                slots.push(Slot::Year { from: *a, to: *b });
            }
            (
                Piece::Concept {
                    entries: a,
                    scoped: sa,
                    ..
                },
                Piece::Concept {
                    entries: b,
                    scoped: sb,
                    ..
                },
            ) if sa == sb => {
                if a == b {
                    continue;
                }
                slots.push(same_attribute_values(a, b)?);
            }
            (was, is) if same_piece(was, is) => {}
            _ => return None,
        }
    }
    Some(slots)
}

/// Two values of one attribute: the exemplar's value and the question's.
fn same_attribute_values(
    exemplar: &[crate::engine::lexicon::Entry],
    asked: &[crate::engine::lexicon::Entry],
) -> Option<Slot> {
    exemplar.iter().find_map(|was| {
        let Concept::Value {
            object,
            attribute,
            value: from,
        } = &was.concept
        else {
            return None;
        };
        asked.iter().find_map(|is| match &is.concept {
            Concept::Value {
                object: o,
                attribute: a,
                value: to,
            } if o == object && a == attribute => Some(Slot::Text {
                from: from.clone(),
                to: to.clone(),
            }),
            _ => None,
        })
    })
}

fn same_piece(a: &Piece, b: &Piece) -> bool {
    match (a, b) {
        (Piece::Op(x), Piece::Op(y)) => x == y,
        (Piece::Ordinal(x), Piece::Ordinal(y)) => x == y,
        (Piece::Extreme { latest: x, .. }, Piece::Extreme { latest: y, .. }) => x == y,
        (Piece::Key { object: o, key: k }, Piece::Key { object: p, key: l }) => o == p && k == l,
        (Piece::Agent { metric: m, .. }, Piece::Agent { metric: n, .. }) => m == n,
        // Words the ontology does not know match only themselves.
        (Piece::Unknown { word: x, .. }, Piece::Unknown { word: y, .. }) => x == y,
        _ => false,
    }
}

fn is_year(n: i64) -> bool {
    (1900..=2100).contains(&n)
}

/// Puts the slot's new value in place of every literal that carries the old
/// one; whether any did. A year is also the start of the day literals of its
/// range ('1995-01-01' up to '1996-01-01').
fn substitute(query: &mut Query, slot: &Slot) -> bool {
    let mut replaced = false;
    let _ = visit_expressions_mut(query, |expr| {
        if let Expr::Value(value) = expr
            && let Some(new) = replaced_value(&value.value, slot)
        {
            value.value = new;
            replaced = true;
        }
        ControlFlow::<()>::Continue(())
    });
    replaced
}

fn replaced_value(value: &Value, slot: &Slot) -> Option<Value> {
    match (value, slot) {
        (Value::Number(n, long), Slot::Year { from, to }) if n.parse::<i64>().ok()? == *from => {
            Some(Value::Number(to.to_string(), *long))
        }
        (Value::SingleQuotedString(text), Slot::Year { from, to }) => {
            // The day literals of the year, and the first day after it.
            let shifted = |year: i64, by: i64| {
                text.strip_prefix(&format!("{year}-"))
                    .map(|rest| format!("{}-{rest}", year + by))
            };
            shifted(*from, to - from)
                .or_else(|| shifted(from + 1, to - from))
                .map(Value::SingleQuotedString)
        }
        (Value::SingleQuotedString(text), Slot::Text { from, to }) if text == from => {
            Some(Value::SingleQuotedString(to.clone()))
        }
        _ => None,
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::{Exemplars, Followed};
    use crate::engine::lexicon::Lexicon;
    use crate::ontology::VerifiedQuestion;
    use crate::project::Dialect;

    fn follow(
        lexicon: &Lexicon,
        dialect: Dialect,
        verified: &[VerifiedQuestion],
        question: &str,
    ) -> Option<Followed> {
        Exemplars::build(lexicon, dialect, verified).follow(lexicon, question)
    }

    fn wholesale() -> (crate::ontology::Ontology, Lexicon) {
        let ontology = crate::ontology::from_yaml(include_str!(
            "../../../../examples/wholesale/ontology.yaml"
        ))
        .unwrap();
        let lexicon = Lexicon::build(&ontology, &[]);
        (ontology, lexicon)
    }

    #[test]
    fn a_year_changes_in_the_tree_and_in_its_day_literals() {
        let (ontology, lexicon) = wholesale();
        let followed = follow(
            &lexicon,
            Dialect::Sqlite,
            &ontology.verified_questions,
            "what was the total revenue in 1997",
        )
        .unwrap();
        assert_eq!(followed.question, "What was total revenue in 1995?");
        let sql = followed.query.to_string();
        assert!(
            sql.contains("'1997-01-01'") && sql.contains("'1998-01-01'") && !sql.contains("1995"),
            "{sql}"
        );
        assert_eq!(
            followed.substitutions,
            [("1997".to_owned(), "1995".to_owned())]
        );
    }

    #[test]
    fn a_question_that_reads_otherwise_or_a_value_the_sql_lacks_follows_nothing() {
        let (ontology, lexicon) = wholesale();
        let verified = &ontology.verified_questions;
        assert!(
            follow(
                &lexicon,
                Dialect::Sqlite,
                verified,
                "what was the average discount in 1997"
            )
            .is_none()
        );
        // A year the verified SQL does not hold cannot be put in.
        let undated = [VerifiedQuestion {
            question: "What was total revenue in 1995?".to_owned(),
            sql: "SELECT SUM(l_extendedprice) FROM lineitem".to_owned(),
            description: String::new(),
        }];
        assert!(
            follow(
                &lexicon,
                Dialect::Sqlite,
                &undated,
                "What was total revenue in 1997?"
            )
            .is_none()
        );
        // A value typed where the exemplar has one is put in as a literal,
        // quoted by the printer, however it is spelled.
        let by_nation = [VerifiedQuestion {
            question: "revenue from customers in FRANCE".to_owned(),
            sql: "SELECT SUM(l.l_extendedprice) FROM lineitem l JOIN orders o ON o.o_orderkey = l.l_orderkey \
                  JOIN customer c ON c.c_custkey = o.o_custkey JOIN nation n ON n.n_nationkey = c.c_nationkey \
                  WHERE n.n_name = 'FRANCE'"
                .to_owned(),
            description: String::new(),
        }];
        let nations = ["FRANCE", "GERMANY", "CÔTE D'IVOIRE"].map(String::from);
        let nation = ontology
            .objects
            .iter()
            .position(|o| o.name == "nation")
            .unwrap();
        let name = ontology.objects[nation]
            .attributes
            .iter()
            .position(|a| a.name == "nation_name")
            .unwrap();
        let lexicon = Lexicon::build(
            &ontology,
            &[crate::engine::lexicon::AttributeValues {
                object: nation,
                attribute: name,
                values: &nations,
            }],
        );
        let germany = follow(
            &lexicon,
            Dialect::Sqlite,
            &by_nation,
            "revenue from customers in Germany",
        )
        .unwrap();
        assert!(
            germany
                .query
                .to_string()
                .ends_with("WHERE n.n_name = 'GERMANY'")
        );
        let quoted = follow(
            &lexicon,
            Dialect::Sqlite,
            &by_nation,
            "revenue from customers in Côte d'Ivoire",
        )
        .unwrap();
        assert!(
            quoted
                .query
                .to_string()
                .ends_with("WHERE n.n_name = 'CÔTE D''IVOIRE'")
        );
    }
}
