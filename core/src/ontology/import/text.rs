//! Small readers over the text of an imported file: where a named item is,
//! and the shapes of SQL expressions that map onto Cassis's model (a bare
//! column, one aggregate, a condition).

use crate::ontology::Aggregate;

/// The lines of a file, to point a warning at the item it is about.
pub(super) struct Lines<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Self {
            lines: text.lines().collect(),
        }
    }

    /// The 1-based line of the last of `names`, each looked for as a
    /// `name: value` (or a key `name:`) after the line of the one before.
    pub(super) fn locate(&self, names: &[&str]) -> Option<usize> {
        let mut from = 0;
        let mut found = None;
        for name in names {
            let at = (from..self.lines.len()).find(|&i| {
                let line = self.lines[i].trim_start();
                let line = line.strip_prefix("- ").unwrap_or(line).trim_end();
                let value = line
                    .strip_prefix("name:")
                    .map(|v| v.trim().trim_matches(['"', '\'']));
                value == Some(name) || line.strip_suffix(':') == Some(name)
            })?;
            found = Some(at + 1);
            from = at + 1;
        }
        found
    }
}

/// `o_orderkey`, `"Order Key"`: an expression that only names a column.
pub(super) fn bare_column(expr: &str) -> Option<&str> {
    let expr = expr.trim();
    let unquoted = expr
        .strip_prefix('"')
        .and_then(|e| e.strip_suffix('"'))
        .filter(|e| !e.contains('"'));
    if let Some(name) = unquoted {
        return Some(name);
    }
    let mut chars = expr.chars();
    let first = chars.next()?;
    ((first.is_alphabetic() || first == '_') && chars.all(|c| c.is_alphanumeric() || c == '_'))
        .then_some(expr)
}

/// Where the parenthesis opened at byte `open` closes, skipping quoted text.
fn closing(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices().skip_while(|&(i, _)| i < open) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The positions of `word` (case-insensitive, as a whole word) in `text`
/// outside quotes and parentheses.
fn top_level(text: &str, word: &str) -> Vec<usize> {
    let upper = text.to_uppercase();
    let bytes = upper.as_bytes();
    let (mut depth, mut quote, mut found) = (0i32, None::<u8>, Vec::new());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'\'' || c == b'"' => quote = Some(c),
            None if c == b'(' => depth += 1,
            None if c == b')' => depth -= 1,
            None if depth == 0 && upper[i..].starts_with(word) => {
                let before = i == 0 || !is_word(bytes[i - 1]);
                let after = bytes.get(i + word.len()).is_none_or(|&b| !is_word(b));
                if before && after {
                    found.push(i);
                }
            }
            None => {}
        }
        i += 1;
    }
    found
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// One aggregate over the whole expression, as Cassis keeps a metric:
/// `SUM(CASE WHEN l_returnflag = 'R' THEN l_quantity END)` is a sum of
/// `l_quantity` filtered by `l_returnflag = 'R'`.
#[derive(Debug, PartialEq)]
pub(super) struct AggregateExpr {
    pub aggregate: Aggregate,
    /// `None` for a row count.
    pub expr: Option<String>,
    pub filters: Vec<String>,
}

pub(super) fn aggregate_expr(text: &str) -> Option<AggregateExpr> {
    let text = text.trim();
    let open = text.find('(')?;
    if closing(text, open)? != text.len() - 1 {
        return None;
    }
    let function = text[..open].trim().to_uppercase();
    let inner = text[open + 1..text.len() - 1].trim();
    let (aggregate, inner) = match function.as_str() {
        "SUM" => (Aggregate::Sum, inner),
        "AVG" | "AVERAGE" => (Aggregate::Avg, inner),
        "MIN" => (Aggregate::Min, inner),
        "MAX" => (Aggregate::Max, inner),
        "COUNT" => match strip_word(inner, "DISTINCT") {
            Some(rest) => (Aggregate::CountDistinct, rest),
            None => (Aggregate::Count, inner),
        },
        _ => return None,
    };
    let (expr, filters) = match case_when(inner) {
        Some((condition, value)) => (value, split_and(condition)),
        None => (inner.to_owned(), Vec::new()),
    };
    let counts_rows = matches!(aggregate, Aggregate::Count) && (expr == "*" || expr == "1");
    Some(AggregateExpr {
        aggregate,
        expr: (!counts_rows).then_some(expr),
        filters,
    })
}

fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let head = text.get(..word.len())?;
    let rest = &text[word.len()..];
    (head.eq_ignore_ascii_case(word) && rest.starts_with(char::is_whitespace)).then(|| rest.trim())
}

/// `CASE WHEN c THEN v END` with one branch and no ELSE: `(c, v)`.
fn case_when(text: &str) -> Option<(&str, String)> {
    let rest = strip_word(text, "CASE")?;
    let rest = strip_word(rest, "WHEN")?;
    let rest = rest
        .strip_suffix("END")
        .or_else(|| rest.strip_suffix("end"))?;
    let thens = top_level(rest, "THEN");
    if thens.len() != 1
        || !top_level(rest, "WHEN").is_empty()
        || !top_level(rest, "ELSE").is_empty()
    {
        return None;
    }
    let condition = rest[..thens[0]].trim();
    let value = rest[thens[0] + 4..].trim();
    Some((condition, value.to_owned()))
}

/// `(a) AND (b)` as written by the Cortex export: `[a, b]`; any other
/// condition stays whole.
fn split_and(condition: &str) -> Vec<String> {
    let ands = top_level(condition, "AND");
    let parts: Vec<&str> = std::iter::once(0)
        .chain(ands.iter().map(|&i| i + 3))
        .zip(ands.iter().copied().chain(std::iter::once(condition.len())))
        .map(|(start, end)| condition[start..end].trim())
        .collect();
    let wrapped = parts.len() > 1
        && parts
            .iter()
            .all(|p| p.starts_with('(') && closing(p, 0) == Some(p.len() - 1));
    if wrapped {
        parts
            .iter()
            .map(|p| p[1..p.len() - 1].trim().to_owned())
            .collect()
    } else {
        vec![condition.to_owned()]
    }
}

/// Filters as one condition, the inverse of [`split_and`].
pub(crate) fn join_and(filters: &[String]) -> String {
    match filters {
        [one] => one.clone(),
        many => many
            .iter()
            .map(|f| format!("({f})"))
            .collect::<Vec<_>>()
            .join(" AND "),
    }
}

/// `numerator / denominator` where both are names (`orders.revenue`).
pub(super) fn ratio_of_names(text: &str) -> Option<(String, String)> {
    let (left, right) = text.split_once('/')?;
    let name = |side: &str| {
        let side = side.trim();
        let last = side.rsplit('.').next()?;
        (side.split('.').all(|part| bare_column(part).is_some())).then(|| last.to_owned())
    };
    Some((name(left)?, name(right)?))
}

/// Replaces whole identifiers outside quotes by what `substitute` gives.
pub(crate) fn replace_identifiers(
    text: &str,
    substitute: impl Fn(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let mut quote: Option<char> = None;
    while let Some((i, c)) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        if c == '\'' || c == '"' {
            quote = Some(c);
            out.push(c);
        } else if c.is_alphabetic() || c == '_' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if d.is_alphanumeric() || d == '_' || d == '.' {
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            let word = &text[i..end];
            let followed_by_call = text[end..].trim_start().starts_with('(');
            match substitute(word).filter(|_| !followed_by_call) {
                Some(replacement) => out.push_str(&replacement),
                None => out.push_str(word),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `revenue_by_region` as a question: `Revenue by region`.
pub(super) fn humanize(name: &str) -> String {
    let words = name.replace(['_', '-'], " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_are_read_with_their_condition() {
        let read = aggregate_expr("SUM(CASE WHEN l_returnflag = 'R' THEN l_quantity END)").unwrap();
        assert_eq!(read.aggregate, Aggregate::Sum);
        assert_eq!(read.expr.as_deref(), Some("l_quantity"));
        assert_eq!(read.filters, vec!["l_returnflag = 'R'"]);
        let count = aggregate_expr("count(*)").unwrap();
        assert_eq!((count.aggregate, count.expr), (Aggregate::Count, None));
        let distinct = aggregate_expr("COUNT(DISTINCT o_custkey)").unwrap();
        assert_eq!(distinct.aggregate, Aggregate::CountDistinct);
        assert_eq!(distinct.expr.as_deref(), Some("o_custkey"));
        let two = aggregate_expr("COUNT(CASE WHEN (a > 1) AND (b = 'x') THEN 1 END)").unwrap();
        assert_eq!(
            (two.expr, two.filters),
            (None, vec!["a > 1".to_owned(), "b = 'x'".to_owned()])
        );
        assert_eq!(aggregate_expr("SUM(a) / COUNT(b)"), None);
        assert_eq!(aggregate_expr("a + b"), None);
        assert_eq!(aggregate_expr("MEDIAN(a)"), None);
    }

    #[test]
    fn logical_names_are_replaced_outside_quotes() {
        let replaced = replace_identifiers("SUM(net) + 'net' + t.net + f(net)", |w| {
            (w == "net" || w == "t.net").then(|| "(a * b)".to_owned())
        });
        assert_eq!(replaced, "SUM((a * b)) + 'net' + (a * b) + f((a * b))");
        assert_eq!(
            ratio_of_names("orders.revenue / orders.order_count"),
            Some(("revenue".into(), "order_count".into()))
        );
    }

    #[test]
    fn items_are_located_by_name_within_their_parent() {
        let lines = Lines::new("a:\n  - name: x\nb:\n  - name: y\n  - name: x\n");
        assert_eq!(lines.locate(&["b", "x"]), Some(5));
        assert_eq!(lines.locate(&["x"]), Some(2));
        assert_eq!(lines.locate(&["b", "z"]), None);
    }
}
