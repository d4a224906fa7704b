#!/usr/bin/env python3
"""Convert BIRD's formula_1 dev questions into Cassis eval question sets.

    python3 convert.py DEV_JSON F1_SQLITE [--out DIR] [--db-id formula_1]

DEV_JSON   BIRD's dev.json (a list of {question_id, db_id, question, evidence,
           SQL, difficulty}); mini-dev's JSON files have the same fields.
F1_SQLITE  the SQLite warehouse Cassis's scripts/eval builds from the F1 CSVs
           (EVAL_DATA/warehouses/f1.sqlite: snake_case columns).

For each question of the database:
  * question = BIRD's question text alone (the `evidence` hint is dropped);
  * sql      = BIRD's gold SQL with every identifier that names one of our
               tables or columns once underscores and case are ignored
               (raceId -> race_id, pitStops -> pit_stops) written our way;
               text inside '...' literals is left alone, except that
               BIRD's 'GrAND Prix' (a keyword upper-casing slip) is
               repaired to 'Grand Prix';
  * category = bird-<difficulty>;
  * ordered  = true only when the gold has a top-level ORDER BY that is not
               `LIMIT 1` and the question itself asks for an order
               (order/sort/rank/ascending/descending/chronological,
               "from highest to lowest" ...).
Every converted gold is run on F1_SQLITE; a question whose gold fails (for
example lapTimes, which our data does not have) or returns no rows, or only
NULLs, is dropped and counted. The runnable questions, sorted by
question_id, are split by position: even -> bird-tune.yaml, odd ->
bird-heldout.yaml (in --out, default this script's folder). Only totals are
printed, never held-out questions.

Needs Python 3 with the standard library and PyYAML.
"""

import argparse
import datetime
import json
import os
import re
import sqlite3
import sys
import time

import yaml

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

ORDER_WORDS = re.compile(
    r"\b(order|ordered|sort|sorted|rank|ranked|ranking|descending|ascending|"
    r"chronological(ly)?|alphabetical(ly)?|in turn|"
    r"from (the )?(highest|lowest|most|least|fastest|slowest|earliest|latest|"
    r"oldest|youngest|best|worst)\b.*\bto)\b",
    re.IGNORECASE,
)


def schema_names(db):
    """Our table and column names, keyed by lowercase without underscores."""
    names = {}
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        names[table.replace("_", "").lower()] = table
        for row in db.execute(f'PRAGMA table_info("{table}")'):
            names[row[1].replace("_", "").lower()] = row[1]
    return names


def convert_sql(sql, names):
    """Rewrites identifiers outside string literals; quoted identifiers
    ("x", `x`, [x]) lose their quotes when they name one of ours, a
    double-quoted string that names nothing becomes a '...' literal."""
    out = []
    i = 0
    n = len(sql)
    while i < n:
        c = sql[i]
        if c == "'":
            j = i + 1
            while j < n:
                if sql[j] == "'" and j + 1 < n and sql[j + 1] == "'":
                    j += 2
                    continue
                if sql[j] == "'":
                    break
                j += 1
            # BIRD's gold has a few literals whose "and" an upper-casing of
            # keywords turned into AND ('Australian GrAND Prix'); undo that.
            out.append(re.sub(r"(?<=[a-z])AND\b", "and", sql[i : j + 1]))
            i = j + 1
        elif c in '"`[':
            close = {'"': '"', "`": "`", "[": "]"}[c]
            j = sql.find(close, i + 1)
            if j < 0:
                j = n
            inner = sql[i + 1 : j]
            key = inner.replace("_", "").lower()
            if key in names:
                out.append(names[key])
            elif c == '"':
                out.append("'" + inner.replace("'", "''") + "'")
            else:
                out.append('"' + inner.replace('"', '""') + '"')
            i = j + 1
        elif c.isalpha() or c == "_":
            m = IDENT.match(sql, i)
            word = m.group(0)
            key = word.replace("_", "").lower()
            out.append(names.get(key, word) if key in names else word)
            i = m.end()
        elif c.isdigit():
            # A number (possibly 1e5 or 1.5): copy it whole so its letters
            # are not read as identifiers.
            m = re.compile(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?").match(sql, i)
            out.append(m.group(0))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return re.sub(r"\s+", " ", "".join(out)).strip()


def top_level(sql):
    """The SQL with parenthesised parts and literals blanked out."""
    text = re.sub(r"'(?:[^']|'')*'", "''", sql)
    depth = 0
    kept = []
    for c in text:
        if c == "(":
            depth += 1
        if depth == 0:
            kept.append(c)
        if c == ")":
            depth = max(0, depth - 1)
    return "".join(kept)


def is_ordered(question, sql):
    top = top_level(sql).upper()
    if "ORDER BY" not in top:
        return False
    if re.search(r"\bLIMIT\s+1\b(?!\s*,)", top) or re.search(r"\bLIMIT\s+\d+\s*,\s*1\b", top):
        return False
    return bool(ORDER_WORDS.search(question))


def run_gold(db, sql, timeout=60.0):
    start = time.monotonic()
    db.set_progress_handler(lambda: int(time.monotonic() - start > timeout), 10000)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.set_progress_handler(None, 0)


def write_set(path, header, items):
    body = yaml.safe_dump(
        {"questions": items}, sort_keys=False, allow_unicode=True, width=100000
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(header)
        f.write(body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dev_json")
    ap.add_argument("sqlite")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--db-id", default="formula_1")
    ap.add_argument("--source", default=None, help="where dev.json came from, for the header")
    ap.add_argument("-v", "--verbose", action="store_true", help="say why each dropped question was dropped")
    args = ap.parse_args()

    with open(args.dev_json, encoding="utf-8") as f:
        data = json.load(f)
    items = [x for x in data if x.get("db_id") == args.db_id]
    db = sqlite3.connect(f"file:{args.sqlite}?mode=ro", uri=True)
    names = schema_names(db)

    runnable = []
    dropped = {"fails": 0, "no rows": 0, "only NULLs": 0}
    for x in sorted(items, key=lambda x: int(x["question_id"])):
        sql = convert_sql(x.get("SQL", x.get("sql", "")), names)
        try:
            rows = run_gold(db, sql)
        except sqlite3.Error as e:
            dropped["fails"] += 1
            if args.verbose:
                print(f"dropped {x['question_id']}: gold fails: {e}", file=sys.stderr)
            continue
        if not rows:
            dropped["no rows"] += 1
            if args.verbose:
                print(f"dropped {x['question_id']}: no rows", file=sys.stderr)
            continue
        if all(v is None for r in rows for v in r):
            dropped["only NULLs"] += 1
            if args.verbose:
                print(f"dropped {x['question_id']}: only NULLs", file=sys.stderr)
            continue
        item = {
            "category": f"bird-{x['difficulty']}",
            "question": x["question"].strip(),
            "sql": sql,
        }
        if is_ordered(x["question"], sql):
            item["ordered"] = True
        runnable.append((int(x["question_id"]), item))

    tune = [item for k, (_, item) in enumerate(runnable) if k % 2 == 0]
    heldout = [item for k, (_, item) in enumerate(runnable) if k % 2 == 1]
    today = datetime.date.today().isoformat()
    source = args.source or os.path.abspath(args.dev_json)
    for name, part, which in (("bird-tune.yaml", tune, "even"), ("bird-heldout.yaml", heldout, "odd")):
        header = (
            f"# BIRD dev, db_id {args.db_id}: {len(part)} questions, the question alone (no evidence).\n"
            f"# Source: {source}\n"
            f"# Built {today} by convert.py: BIRD's gold SQL with identifiers renamed to our\n"
            f"# snake_case tables/columns ('GrAND Prix' literals repaired to 'Grand Prix'),\n"
            f"# run on our F1 data ({os.path.basename(args.sqlite)}); of {len(items)} questions, {len(runnable)} runnable\n"
            f"# (dropped: {', '.join(f'{v} {k}' for k, v in dropped.items())}); runnable questions\n"
            f"# sorted by question_id, {which} positions in this file. category = bird-<difficulty>.\n"
        )
        if name == "bird-heldout.yaml":
            header += "# HELD OUT: run for totals only; never read it question by question.\n"
        os.makedirs(args.out, exist_ok=True)
        write_set(os.path.join(args.out, name), header, [dict(i) for i in part])

    print(f"{args.db_id}: {len(items)} questions, {len(runnable)} runnable "
          f"(dropped: {', '.join(f'{v} {k}' for k, v in dropped.items())}); "
          f"tune {len(tune)}, heldout {len(heldout)}")
    by_diff = {}
    for _, item in runnable:
        by_diff[item["category"]] = by_diff.get(item["category"], 0) + 1
    print("runnable by difficulty:", by_diff)


if __name__ == "__main__":
    sys.exit(main())
