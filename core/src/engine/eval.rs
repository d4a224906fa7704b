//! Evaluation: a set of questions with gold SQL or an expected status, run
//! through the engine and scored as BIRD scores execution accuracy: the
//! engine's rows against the gold query's rows, order only where asked.

use crate::engine::response::{AskResponse, AskStatus};
use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// A question file: `questions:` then one item per question or chat.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionSet {
    pub questions: Vec<EvalItem>,
}

/// One single-turn question, or a chat of several turns.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalItem {
    /// The shape it tests: count, top-n, grouping, time-range, comparison,
    /// lookup, follow-up, not-answerable, fork ...
    pub category: String,
    #[serde(default)]
    pub question: Option<String>,
    #[serde(flatten)]
    pub expectation: Expectation,
    /// Turns of a chat, each with its own expectation; the last one scores.
    #[serde(default)]
    pub turns: Vec<EvalTurn>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalTurn {
    pub question: Option<String>,
    /// Approve the plan the previous turn left pending.
    #[serde(default)]
    pub execute: bool,
    #[serde(flatten)]
    pub expectation: Expectation,
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct Expectation {
    /// Gold SQL whose rows the answer must match.
    #[serde(default)]
    pub sql: Option<String>,
    /// The status expected instead of (or, with `approve`, before) rows.
    #[serde(default)]
    pub expect: Option<AskStatus>,
    /// The question is a fork: expect a plan first, approve it, then compare.
    #[serde(default)]
    pub approve: bool,
    /// Row order matters (the question asks for a ranking).
    #[serde(default)]
    pub ordered: bool,
}

/// How an answer matched its gold rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matched {
    /// Row for row, as BIRD scores.
    Rows,
    /// The answer is a ranking and its first place is the gold: "who won the
    /// most races" is answered with the ranking, leader first (the product
    /// pages' own example), where gold written with `LIMIT 1` holds the
    /// leader alone.
    Leaders,
}

/// How one question went.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub category: String,
    pub question: String,
    pub correct: bool,
    /// Correct only as a ranking led by the gold rows; a strict, BIRD-style
    /// score counts these as wrong.
    pub by_leaders: bool,
    /// What differed, for the report.
    pub detail: String,
}

/// Accuracy per category and overall.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub outcomes: Vec<Outcome>,
}

impl Report {
    pub fn by_category(&self) -> BTreeMap<&str, (usize, usize)> {
        let mut table: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for outcome in &self.outcomes {
            let entry = table.entry(outcome.category.as_str()).or_default();
            entry.1 += 1;
            if outcome.correct {
                entry.0 += 1;
            }
        }
        table
    }

    pub fn accuracy(&self) -> f64 {
        if self.outcomes.is_empty() {
            return 0.0;
        }
        self.outcomes.iter().filter(|o| o.correct).count() as f64 / self.outcomes.len() as f64
    }

    /// The table people read: one line per category, then the total.
    pub fn table(&self) -> String {
        let mut out = format!("{:<16} {:>9} {:>9}\n", "category", "correct", "accuracy");
        for (category, (correct, total)) in self.by_category() {
            out.push_str(&format!(
                "{category:<16} {:>9} {:>8.1}%\n",
                format!("{correct}/{total}"),
                100.0 * correct as f64 / total as f64
            ));
        }
        let correct = self.outcomes.iter().filter(|o| o.correct).count();
        let total = self.outcomes.len();
        out.push_str(&format!(
            "{:<16} {:>9} {:>8.1}%\n",
            "all",
            format!("{correct}/{total}"),
            100.0 * self.accuracy()
        ));
        let strict = correct - self.outcomes.iter().filter(|o| o.by_leaders).count();
        out.push_str(&format!(
            "{:<16} {:>9} {:>8.1}%   (a ranking led by the gold rows counted wrong)\n",
            "strict",
            format!("{strict}/{total}"),
            100.0 * strict as f64 / total.max(1) as f64
        ));
        out
    }
}

/// A cell as compared: numbers rounded to 1e-6 so 860 and 860.0 agree.
fn cell(value: &Json) -> String {
    match value {
        Json::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            let rounded = (x * 1e6).round() / 1e6;
            format!("{rounded}")
        }
        Json::String(s) => s.clone(),
        Json::Null => "NULL".to_owned(),
        other => other.to_string(),
    }
}

fn row_cells(row: &[Json]) -> Vec<String> {
    let mut cells: Vec<String> = row.iter().map(cell).collect();
    cells.sort();
    cells
}

fn numbers(cells: &[String]) -> Vec<String> {
    cells
        .iter()
        .filter(|c| c.parse::<f64>().is_ok())
        .cloned()
        .collect()
}

/// Whether every cell of `gold` is among `got`'s (extra columns such as the
/// counted measure behind a "who" answer are allowed). A name may be split
/// differently: gold's "Max" and "Verstappen" together are the engine's
/// "Max Verstappen", but "Max" alone is not.
fn covers(got: &[String], gold: &[String]) -> bool {
    let mut remaining = got.to_vec();
    let mut unmatched: Vec<&String> = Vec::new();
    for g in gold {
        match remaining.iter().position(|x| agrees(x, g)) {
            Some(i) => {
                remaining.swap_remove(i);
            }
            None if g.parse::<f64>().is_err() => unmatched.push(g),
            None => return false,
        }
    }
    for whole in remaining.iter().filter(|x| x.contains(' ')) {
        let mut words: Vec<&str> = whole.split(' ').collect();
        words.sort_unstable();
        let parts: Vec<&String> = unmatched
            .iter()
            .copied()
            .filter(|g| g.split(' ').all(|w| words.contains(&w)))
            .collect();
        let mut joined: Vec<&str> = parts.iter().flat_map(|g| g.split(' ')).collect();
        joined.sort_unstable();
        if !parts.is_empty() && joined == words {
            unmatched.retain(|g| !parts.contains(g));
        }
    }
    unmatched.is_empty()
}

/// Whether the engine's cell is the gold one, to the precision gold gives:
/// gold that rounds a share to "90.48" agrees with 90.476190.
fn agrees(got: &str, gold: &str) -> bool {
    if got == gold {
        return true;
    }
    let places = match gold.split_once('.') {
        Some((_, fraction)) if (1..=4).contains(&fraction.len()) => fraction.len() as i32,
        _ => return false,
    };
    match (got.parse::<f64>(), gold.parse::<f64>()) {
        (Ok(got), Ok(gold)) => {
            let scale = 10f64.powi(places);
            (got * scale).round() == (gold * scale).round()
        }
        _ => false,
    }
}

/// Compares the engine's rows with the gold rows, BIRD-style.
pub fn same_results(
    got: &[Vec<Json>],
    got_total: u64,
    gold: &[Vec<Json>],
    ordered: bool,
) -> Result<(), String> {
    if got_total as usize != gold.len() {
        return Err(format!("{} rows, expected {}", got_total, gold.len()));
    }
    let got: Vec<Vec<String>> = got.iter().map(|r| row_cells(r)).collect();
    let gold: Vec<Vec<String>> = gold.iter().take(got.len()).map(|r| row_cells(r)).collect();
    if ordered {
        // Rows tied on what they are ordered by may come in any order, so
        // position by position only the numbers must agree; the rows
        // themselves are then compared as a set.
        for (i, (g, e)) in got.iter().zip(&gold).enumerate() {
            if numbers(g) != numbers(e) && !covers(&numbers(g), &numbers(e)) {
                return Err(format!("row {} is {g:?}, expected {e:?}", i + 1));
            }
        }
    }
    let mut gold = gold;
    let mut got = got;
    if ordered && (got_total as usize) > got.len() {
        // Cut off at the row cap: rows tied with the last one shown may be
        // any of the tied rows.
        if let Some(last) = got.last().map(|row| numbers(row)) {
            got.retain(|row| numbers(row) != last);
            gold.retain(|row| numbers(row) != last);
        }
    }
    let mut unmatched: Vec<&Vec<String>> = got.iter().collect();
    for expected in &gold {
        match unmatched.iter().position(|g| covers(g, expected)) {
            Some(i) => {
                unmatched.swap_remove(i);
            }
            None => return Err(format!("no row matches {expected:?}")),
        }
    }
    Ok(())
}

/// Whether `got`, ranked by its last number, is led by exactly the `gold`
/// rows: the rows tied for first place are the gold rows, or, where gold
/// broke a tie with `LIMIT 1`, include its one row. A ranking that is not
/// sorted, that is all one place, or whose rows carry no number is not
/// judged this way.
pub fn led_by(got: &[Vec<Json>], got_total: u64, gold: &[Vec<Json>]) -> bool {
    let measure = |row: &[Json]| row.iter().rev().find_map(magnitude);
    let Some(measures) = got.iter().map(|r| measure(r)).collect::<Option<Vec<f64>>>() else {
        return false;
    };
    let sorted =
        measures.windows(2).all(|w| w[0] >= w[1]) || measures.windows(2).all(|w| w[0] <= w[1]);
    let leaders = measures.iter().take_while(|m| **m == measures[0]).count();
    if gold.is_empty() || !sorted || leaders as u64 >= got_total || leaders < gold.len() {
        return false;
    }
    if gold.len() != leaders && gold.len() != 1 {
        return false;
    }
    let mut unmatched: Vec<Vec<String>> = got[..leaders].iter().map(|r| row_cells(r)).collect();
    gold.iter().map(|r| row_cells(r)).all(|expected| {
        match unmatched.iter().position(|g| covers(g, &expected)) {
            Some(i) => {
                unmatched.swap_remove(i);
                true
            }
            None => false,
        }
    })
}

/// A number, or a time written as text ("1:16.666", "13:10:00") in seconds:
/// a ranking by lap time is led by the fastest.
fn magnitude(cell: &Json) -> Option<f64> {
    if let Some(number) = cell.as_f64() {
        return Some(number);
    }
    let text = cell.as_str()?;
    if !text.contains(':') {
        return None;
    }
    text.split(':').try_fold(0.0, |seconds, part| {
        Some(seconds * 60.0 + part.parse::<f64>().ok()?)
    })
}

/// Checks one response against its expectation, given the gold rows.
pub fn judge(
    response: &AskResponse,
    expectation: &Expectation,
    gold: Option<&[Vec<Json>]>,
) -> Result<Matched, String> {
    if let Some(gold) = gold {
        if response.status != AskStatus::Answered {
            return Err(format!(
                "status {}, expected answered: {}",
                response.status.as_str(),
                response.error.as_deref().unwrap_or(&response.answer)
            ));
        }
        let Some(results) = &response.results else {
            return Err("no results".to_owned());
        };
        return match same_results(&results.rows, results.total_rows, gold, expectation.ordered) {
            Ok(()) => Ok(Matched::Rows),
            Err(_) if led_by(&results.rows, results.total_rows, gold) => Ok(Matched::Leaders),
            Err(differs) => Err(differs),
        };
    }
    match expectation.expect {
        Some(status) if status == response.status => Ok(Matched::Rows),
        Some(status) => Err(format!(
            "status {}, expected {}: {}",
            response.status.as_str(),
            status.as_str(),
            response.answer
        )),
        None => Ok(Matched::Rows),
    }
}

#[cfg(test)]
mod tests {
    use super::{led_by, same_results};
    use serde_json::json;

    fn rows(value: serde_json::Value) -> Vec<Vec<serde_json::Value>> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_name_split_in_two_columns_is_the_same_name() {
        let got = rows(json!([["Max Verstappen", 19]]));
        let split = |first: &str, last: &str| rows(json!([[first, last, 19]]));
        assert!(same_results(&got, 1, &split("Max", "Verstappen"), false).is_ok());
        assert!(same_results(&got, 1, &split("Verstappen", "Max"), false).is_ok());
        // Part of the name is not the name, and another name is not it.
        assert!(same_results(&got, 1, &rows(json!([["Max", 19]])), false).is_err());
        assert!(same_results(&got, 1, &split("Jos", "Verstappen"), false).is_err());
    }

    #[test]
    fn results_compare_as_bird_does() {
        let got = rows(json!([["Max Verstappen", 19], ["Sergio Pérez", 2.0]]));
        assert!(
            same_results(
                &got,
                2,
                &rows(json!([["Sergio Pérez", 2], ["Max Verstappen", 19]])),
                false
            )
            .is_ok()
        );
        assert!(
            same_results(
                &got,
                2,
                &rows(json!([["Sergio Pérez", 2], ["Max Verstappen", 19]])),
                true
            )
            .is_err()
        );
        // Ties may come in either order.
        let tied = rows(json!([["Carlos Sainz", 1], ["Sergio Pérez", 1]]));
        assert!(
            same_results(
                &tied,
                2,
                &rows(json!([["Sergio Pérez", 1], ["Carlos Sainz", 1]])),
                true
            )
            .is_ok()
        );
        // Extra columns are fine; a missing or different value is not.
        assert!(
            same_results(
                &got,
                2,
                &rows(json!([["Max Verstappen"], ["Sergio Pérez"]])),
                true
            )
            .is_ok()
        );
        assert!(
            same_results(
                &got,
                2,
                &rows(json!([["Max Verstappen", 18], ["Sergio Pérez", 2]])),
                false
            )
            .is_err()
        );
        assert!(same_results(&got, 2, &rows(json!([["Max Verstappen", 19]])), false).is_err());
    }

    #[test]
    fn gold_rounded_to_a_few_places_agrees_with_the_unrounded_number() {
        let got = rows(json!([["Mercedes", 90.476_190_476]]));
        assert!(same_results(&got, 1, &rows(json!([["Mercedes", 90.48]])), false).is_ok());
        assert!(same_results(&got, 1, &rows(json!([["Mercedes", 90.5]])), false).is_ok());
        // Another number, or a whole number that the answer is not.
        assert!(same_results(&got, 1, &rows(json!([["Mercedes", 90.47]])), false).is_err());
        assert!(same_results(&got, 1, &rows(json!([["Mercedes", 90]])), false).is_err());
    }

    #[test]
    fn a_ranking_by_lap_time_is_led_by_the_fastest() {
        let got = rows(json!([["Vettel", "1:16.666"], ["Verstappen", "1:16.940"]]));
        assert!(led_by(&got, 2, &rows(json!([["Vettel"]]))));
        assert!(!led_by(&got, 2, &rows(json!([["Verstappen"]]))));
    }

    #[test]
    fn a_ranking_is_judged_by_its_leaders_only_when_they_are_the_gold() {
        let ranking = rows(json!([
            ["Max Verstappen", 19],
            ["Sergio Pérez", 2],
            ["Carlos Sainz", 1]
        ]));
        let leader = rows(json!([["Max Verstappen", 19]]));
        assert!(led_by(&ranking, 3, &leader));
        // The wrong leader, or a ranking read the wrong way round.
        assert!(!led_by(&ranking, 3, &rows(json!([["Sergio Pérez", 2]]))));
        let reversed: Vec<_> = ranking.iter().rev().cloned().collect();
        assert!(!led_by(&reversed, 3, &leader));
        // "Top 2" asked and the limit dropped: the gold is two places, the
        // ranking's first place one row.
        let top_two = rows(json!([["Max Verstappen", 19], ["Sergio Pérez", 2]]));
        assert!(!led_by(&ranking, 3, &top_two));
        // Rows in no order, or with nothing that ranks them.
        let unsorted = rows(json!([
            ["Max Verstappen", 19],
            ["Carlos Sainz", 1],
            ["Sergio Pérez", 2]
        ]));
        assert!(!led_by(&unsorted, 3, &leader));
        let names = rows(json!([["Max Verstappen"], ["Sergio Pérez"]]));
        assert!(!led_by(&names, 2, &rows(json!([["Max Verstappen"]]))));
        // A tie for first: all tied rows are the gold, or gold broke the tie.
        let tied = rows(json!([["IRAN", 72], ["MOROCCO", 72], ["CANADA", 69]]));
        assert!(led_by(
            &tied,
            3,
            &rows(json!([["MOROCCO", 72], ["IRAN", 72]]))
        ));
        assert!(led_by(&tied, 3, &rows(json!([["MOROCCO", 72]]))));
        assert!(!led_by(&tied, 3, &rows(json!([["CANADA", 69]]))));
        // Everyone tied: nothing leads.
        assert!(!led_by(&tied[..2], 2, &rows(json!([["IRAN", 72]]))));
    }
}

#[cfg(feature = "ssr")]
mod run {
    use super::{EvalItem, EvalTurn, Expectation, Matched, Outcome, QuestionSet, Report, judge};
    use crate::account::User;
    use crate::engine::response::AskStatus;
    use crate::engine::{AskRequest, Client, Engine, execute};
    use crate::project::Project;
    use crate::time::Timestamp;
    use crate::warehouse::Warehouse;

    impl QuestionSet {
        pub fn from_yaml(text: &str) -> Result<Self, String> {
            serde_yaml_ng::from_str(text).map_err(|e| e.to_string())
        }
    }

    /// Runs every item of `set` through `engine` as `user`, comparing with
    /// gold SQL run on `warehouse`. `progress` sees each outcome as it comes.
    pub async fn run_eval(
        engine: &Engine,
        user: &User,
        project: &Project,
        warehouse: &Warehouse,
        set: &QuestionSet,
        now: impl Fn() -> Timestamp,
        progress: &mut dyn FnMut(&Outcome),
    ) -> Report {
        let mut report = Report::default();
        for item in &set.questions {
            let turns: Vec<EvalTurn> = if item.turns.is_empty() {
                vec![EvalTurn {
                    question: item.question.clone(),
                    execute: false,
                    expectation: item.expectation.clone(),
                }]
            } else {
                item.turns.clone()
            };
            let outcome = run_item(engine, user, project, warehouse, item, &turns, &now).await;
            progress(&outcome);
            report.outcomes.push(outcome);
        }
        report
    }

    async fn run_item(
        engine: &Engine,
        user: &User,
        project: &Project,
        warehouse: &Warehouse,
        item: &EvalItem,
        turns: &[EvalTurn],
        now: &impl Fn() -> Timestamp,
    ) -> Outcome {
        let label = turns
            .iter()
            .filter_map(|t| t.question.clone())
            .collect::<Vec<_>>()
            .join(" → ");
        let mut chat_id = None;
        let mut verdict = Ok(Matched::Rows);
        for turn in turns {
            let ask = |question: Option<String>, execute: bool, chat: Option<String>| AskRequest {
                project_id: project.id.to_string(),
                question: question.unwrap_or_default(),
                chat_id: chat,
                execute_pending_plan: execute,
                version: None,
            };
            let mut response = engine
                .ask(
                    user,
                    Client::Cli,
                    ask(turn.question.clone(), turn.execute, chat_id.clone()),
                    now(),
                )
                .await;
            chat_id = Some(response.chat_id.clone());
            if turn.expectation.approve {
                if response.status != AskStatus::NeedsExecution {
                    verdict = Err(format!(
                        "status {}, expected a plan to approve: {}",
                        response.status.as_str(),
                        response.answer
                    ));
                    break;
                }
                response = engine
                    .ask(user, Client::Cli, ask(None, true, chat_id.clone()), now())
                    .await;
            }
            verdict = check(warehouse, &response, &turn.expectation).await;
            if verdict.is_err() {
                break;
            }
        }
        Outcome {
            category: item.category.clone(),
            question: label,
            correct: verdict.is_ok(),
            by_leaders: verdict == Ok(Matched::Leaders),
            detail: verdict.err().unwrap_or_default(),
        }
    }

    async fn check(
        warehouse: &Warehouse,
        response: &crate::engine::AskResponse,
        expectation: &Expectation,
    ) -> Result<Matched, String> {
        let gold = match &expectation.sql {
            Some(sql) => Some(
                execute::all_rows(warehouse, sql, crate::engine::DEFAULT_QUESTION_TIMEOUT)
                    .await
                    .map_err(|e| format!("the gold SQL failed: {e}"))?,
            ),
            None => None,
        };
        let result = judge(response, expectation, gold.as_deref());
        result.map_err(|e| match &response.sql {
            Some(sql) => format!("{e}\n      sql: {sql}"),
            None => e,
        })
    }
}

#[cfg(feature = "ssr")]
pub use run::run_eval;
