#!/usr/bin/env python3
"""A stand-in for BigQuery's REST API and Google's OAuth 2.0 token endpoint,
for Cassis's BigQuery tests (server/tests/bigquery.rs): BigQuery is a paid
service that tests cannot reach.

It speaks the documented wire format and checks what Cassis sends:
- POST /token: the service-account flow (grant_type jwt-bearer, an RS256
  assertion whose signature is checked against the account's public key,
  iss, aud, scope, iat and exp); answers access_token, expires_in.
- POST /bigquery/v2/projects/P/queries (jobs.query): a bearer token it
  issued; query, useLegacySql=false, maximumBytesBilled, timeoutMs,
  defaultDataset; dryRun answers totalBytesProcessed; a query that would
  read more than maximumBytesBilled fails with bytesBilledLimitExceeded.
- GET /bigquery/v2/projects/P/queries/JOB (jobs.getQueryResults): waits up
  to timeoutMs, pages by pageToken (100 rows a page at most, so paging is
  exercised), answers kind, schema.fields, rows[].f[].v, totalRows,
  pageToken, jobComplete, jobReference.
- POST /bigquery/v2/projects/P/jobs/JOB/cancel (jobs.cancel): interrupts
  the job.

Queries run on SQLite over the dataset's tables (a SQLite file attached
under the dataset's name), translated from BigQuery's SQL by sqlglot
(which fakesnow, in the same test venv, already brings);
`P.D.INFORMATION_SCHEMA.COLUMNS` and `.TABLES` are tables it builds from
the file's schema. Every request is logged on standard output.
"""

import argparse
import base64
import json
import re
import sqlite3
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import sqlglot
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

ARGS = None
PUBLIC_KEY = None
TOKENS = set()
JOBS = {}
LOCK = threading.Lock()

SQLITE_TO_BIGQUERY = {
    "INTEGER": "INT64",
    "INT": "INT64",
    "BIGINT": "INT64",
    "REAL": "FLOAT64",
    "DOUBLE": "FLOAT64",
    "FLOAT": "FLOAT64",
    "NUMERIC": "NUMERIC",
    "TEXT": "STRING",
    "DATE": "DATE",
    "BOOLEAN": "BOOL",
}

INFORMATION_SCHEMA = re.compile(
    r"((?:`[^`]*`|[\w-]+)\.)+INFORMATION_SCHEMA\.(\w+)", re.IGNORECASE
)


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Job:
    def __init__(self, job_id, sql, timeout_ms):
        self.id = job_id
        self.done = threading.Event()
        self.columns = []
        self.rows = []
        self.error = None
        self.connection = open_dataset("information_schema_" in sql)
        self.timer = threading.Timer(timeout_ms / 1000.0, self.time_out)
        self.timer.daemon = True
        self.timer.start()
        threading.Thread(target=self.run, args=(sql,), daemon=True).start()

    def run(self, sql):
        try:
            cursor = self.connection.execute(sql)
            self.columns = [d[0] for d in cursor.description or []]
            self.rows = cursor.fetchall()
        except Exception as error:  # an SQLite error is the job's error
            if self.error is None:
                self.error = ("invalidQuery", str(error))
        finally:
            self.timer.cancel()
            self.done.set()

    def time_out(self):
        self.error = ("timeout", "Job execution was cancelled: Job timed out")
        self.connection.interrupt()

    def cancel(self):
        if not self.done.is_set():
            self.error = ("stopped", "Job execution was cancelled: User requested cancellation")
            self.connection.interrupt()


def open_dataset(information_schema=False):
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    connection.execute("ATTACH DATABASE ? AS " + ARGS.dataset, (f"file:{ARGS.db}?mode=ro",))
    if not information_schema:
        return connection
    tables = connection.execute(
        f"SELECT name, type FROM {ARGS.dataset}.sqlite_master "
        "WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ).fetchall()
    connection.execute(
        "CREATE TABLE information_schema_columns (table_catalog, table_schema, "
        "table_name, column_name, ordinal_position, is_nullable, data_type)"
    )
    connection.execute(
        "CREATE TABLE information_schema_tables (table_catalog, table_schema, table_name, table_type)"
    )
    for name, kind in tables:
        connection.execute(
            "INSERT INTO information_schema_tables VALUES (?, ?, ?, ?)",
            (ARGS.project, ARGS.dataset, name, "VIEW" if kind == "view" else "BASE TABLE"),
        )
        columns = connection.execute(
            f'SELECT name, type, "notnull" FROM pragma_table_info(?, ?) ORDER BY cid',
            (name, ARGS.dataset),
        ).fetchall()
        for position, (column, declared, notnull) in enumerate(columns, 1):
            kind = SQLITE_TO_BIGQUERY.get((declared or "TEXT").upper(), "STRING")
            connection.execute(
                "INSERT INTO information_schema_columns VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ARGS.project, ARGS.dataset, name, column, position,
                 "NO" if notnull else "YES", kind),
            )
    # Declared keys, as BigQuery lists them: primary keys from the tables'
    # primary keys, foreign keys from SQLite's, each column's place in the
    # referenced primary key as position_in_unique_constraint.
    connection.execute(
        "CREATE TABLE information_schema_table_constraints (constraint_catalog, "
        "constraint_schema, constraint_name, table_catalog, table_schema, table_name, "
        "constraint_type, is_deferrable, initially_deferred, enforced)"
    )
    connection.execute(
        "CREATE TABLE information_schema_key_column_usage (constraint_catalog, constraint_schema, "
        "constraint_name, table_catalog, table_schema, table_name, column_name, "
        "ordinal_position, position_in_unique_constraint)"
    )
    connection.execute(
        "CREATE TABLE information_schema_constraint_column_usage (table_catalog, table_schema, "
        "table_name, column_name, constraint_catalog, constraint_schema, constraint_name)"
    )
    primary = {}
    for name, _ in tables:
        keyed = connection.execute(
            'SELECT name, pk FROM pragma_table_info(?, ?) WHERE pk > 0 ORDER BY pk',
            (name, ARGS.dataset)).fetchall()
        primary[name] = [column for column, _ in keyed]
    def constraint(name, table, kind):
        connection.execute(
            "INSERT INTO information_schema_table_constraints VALUES (?, ?, ?, ?, ?, ?, ?, 'NO', 'NO', 'NO')",
            (ARGS.project, ARGS.dataset, name, ARGS.project, ARGS.dataset, table, kind))
    def key_column(name, table, column, position, in_unique):
        connection.execute(
            "INSERT INTO information_schema_key_column_usage VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (ARGS.project, ARGS.dataset, name, ARGS.project, ARGS.dataset, table, column,
             position, in_unique))
    for name, columns in primary.items():
        if columns:
            constraint(f"{name}.pk$", name, "PRIMARY KEY")
            for position, column in enumerate(columns, 1):
                key_column(f"{name}.pk$", name, column, position, None)
    for name, _ in tables:
        foreign = connection.execute(
            'SELECT id, seq, "table", "from", "to" FROM pragma_foreign_key_list(?, ?) ORDER BY id, seq',
            (name, ARGS.dataset)).fetchall()
        for key_id, seq, target, column, to in foreign:
            key = f"{name}.fk{key_id}"
            if seq == 0:
                constraint(key, name, "FOREIGN KEY")
            target_key = primary.get(target, [])
            in_unique = target_key.index(to) + 1 if to in target_key else seq + 1
            key_column(key, name, column, seq + 1, in_unique)
            connection.execute(
                "INSERT INTO information_schema_constraint_column_usage VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ARGS.project, ARGS.dataset, target, to or column, ARGS.project, ARGS.dataset, key))
    connection.commit()
    return connection


def translate(query):
    """BigQuery SQL as SQLite runs it, and the tables it reads."""
    query = INFORMATION_SCHEMA.sub(lambda m: "information_schema_" + m.group(2).lower(), query)
    tree = sqlglot.parse_one(query, read="bigquery")
    tables = {t.name for t in tree.find_all(sqlglot.exp.Table)}
    return tree.sql(dialect="sqlite"), tables


TABLE_BYTES = {}


def measure_tables():
    """Eight bytes per value of each table: what a dry run reports it reads."""
    connection = open_dataset()
    for (table,) in connection.execute(
            f"SELECT name FROM {ARGS.dataset}.sqlite_master WHERE type = 'table'").fetchall():
        rows = connection.execute(f'SELECT COUNT(*) FROM {ARGS.dataset}."{table}"').fetchone()[0]
        columns = len(connection.execute(
            "SELECT 1 FROM pragma_table_info(?, ?)", (table, ARGS.dataset)).fetchall())
        TABLE_BYTES[table] = rows * columns * 8
    connection.close()


def estimated_bytes(tables):
    return sum(TABLE_BYTES.get(table, 0) for table in tables)


def field_type(values):
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, int) for v in present):
        return "INTEGER"
    if present and all(isinstance(v, (int, float)) for v in present):
        return "FLOAT"
    return "STRING"


def cell(value):
    if value is None:
        return {"v": None}
    return {"v": str(value)}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without this, each answer
    # waits for the client's delayed acknowledgement (40 ms).
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        print("%s %s" % (self.command, self.path), flush=True)

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, reason, message):
        self.answer(status, {"error": {
            "code": status, "message": message,
            "errors": [{"message": message, "domain": "global", "reason": reason}],
            "status": "INVALID_ARGUMENT" if status == 400 else "PERMISSION_DENIED",
        }})

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length)

    def authorized(self):
        header = self.headers.get("Authorization") or ""
        if header.startswith("Bearer ") and header[7:] in TOKENS:
            return True
        self.answer(401, {"error": {
            "code": 401, "status": "UNAUTHENTICATED",
            "message": "Request had invalid authentication credentials.",
            "errors": [{"message": "Invalid Credentials", "domain": "global", "reason": "authError"}],
        }})
        return False

    def do_POST(self):
        url = urlparse(self.path)
        body = self.body()
        if url.path == "/token":
            return self.token(parse_qs(body.decode()))
        if not self.authorized():
            return
        parts = url.path.strip("/").split("/")
        # bigquery/v2/projects/P/queries or bigquery/v2/projects/P/jobs/J/cancel
        if parts[:3] != ["bigquery", "v2", "projects"] or parts[3] != ARGS.project:
            return self.error(404, "notFound", "Not found: " + url.path)
        if parts[4:] == ["queries"]:
            return self.query(json.loads(body or b"{}"))
        if len(parts) == 7 and parts[4] == "jobs" and parts[6] == "cancel":
            job = JOBS.get(parts[5])
            if job is None:
                return self.error(404, "notFound", "Not found: Job " + parts[5])
            job.cancel()
            print("cancelled job " + job.id, flush=True)
            return self.answer(200, {"kind": "bigquery#jobCancelResponse", "job": {
                "jobReference": self.reference(job.id), "status": {"state": "DONE"}}})
        self.error(404, "notFound", "Not found: " + url.path)

    def do_GET(self):
        url = urlparse(self.path)
        if not self.authorized():
            return
        parts = url.path.strip("/").split("/")
        if len(parts) == 6 and parts[:3] == ["bigquery", "v2", "projects"] and parts[4] == "queries":
            job = JOBS.get(parts[5])
            if job is None:
                return self.error(404, "notFound", "Not found: Job " + parts[5])
            query = parse_qs(url.query)
            wait = int(query.get("timeoutMs", ["10000"])[0]) / 1000.0
            job.done.wait(wait)
            start = int(query.get("pageToken", ["0"])[0])
            size = int(query.get("maxResults", ["100000"])[0])
            return self.results(job, "bigquery#getQueryResultsResponse", start, size)
        self.error(404, "notFound", "Not found: " + url.path)

    def token(self, form):
        def refuse(description):
            self.answer(400, {"error": "invalid_grant", "error_description": description})
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return refuse("grant_type must be the JWT bearer grant")
        try:
            header, claims, signature = form["assertion"][0].split(".")
            head = json.loads(b64url(header))
            payload = json.loads(b64url(claims))
            PUBLIC_KEY.verify(b64url(signature), (header + "." + claims).encode(),
                              padding.PKCS1v15(), hashes.SHA256())
        except Exception:
            return refuse("Invalid JWT Signature.")
        now = time.time()
        expected_aud = f"http://127.0.0.1:{ARGS.port}/token"
        if head.get("alg") != "RS256":
            return refuse("alg must be RS256")
        if payload.get("iss") != ARGS.email:
            return refuse("Invalid issuer")
        if payload.get("aud") != expected_aud:
            return refuse("Invalid audience")
        if "bigquery" not in payload.get("scope", ""):
            return refuse("Invalid OAuth scope")
        iat, exp = payload.get("iat", 0), payload.get("exp", 0)
        if abs(iat - now) > 300 or exp - iat > 3600 or exp <= now:
            return refuse("Invalid JWT: Token must be a short-lived token (60 minutes)")
        token = "ya29.fake-" + uuid.uuid4().hex
        TOKENS.add(token)
        self.answer(200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"})

    def reference(self, job_id=None):
        reference = {"projectId": ARGS.project, "location": "US"}
        if job_id:
            reference["jobId"] = job_id
        return reference

    def query(self, request):
        # What Cassis must send on every query.
        if not isinstance(request.get("query"), str):
            return self.error(400, "invalid", "Required parameter is missing: query")
        if request.get("useLegacySql") is not False:
            return self.error(400, "invalid", "useLegacySql must be false")
        limit = request.get("maximumBytesBilled")
        if not (isinstance(limit, str) and limit.isdigit()):
            return self.error(400, "invalid", "maximumBytesBilled must be an int64 string")
        if not isinstance(request.get("timeoutMs"), int):
            return self.error(400, "invalid", "timeoutMs must be a number")
        if request.get("defaultDataset") != {"projectId": ARGS.project, "datasetId": ARGS.dataset}:
            return self.error(400, "invalid", "defaultDataset must name the project's dataset")
        try:
            sql, tables = translate(request["query"])
        except Exception as error:
            return self.error(400, "invalidQuery", "Syntax error: " + str(error).splitlines()[0])
        estimate = estimated_bytes(tables)
        if request.get("dryRun"):
            return self.answer(200, {"kind": "bigquery#queryResponse", "jobReference": self.reference(),
                                     "totalBytesProcessed": str(estimate), "jobComplete": True,
                                     "schema": {"fields": []}, "cacheHit": False})
        if estimate > int(limit):
            return self.error(400, "bytesBilledLimitExceeded",
                              f"Query exceeded limit for bytes billed: {limit}. {estimate} or higher required.")
        job_timeout = int(request.get("jobTimeoutMs") or 6 * 3600 * 1000)
        job = Job("job_" + uuid.uuid4().hex, sql, job_timeout)
        with LOCK:
            JOBS[job.id] = job
        job.done.wait(request["timeoutMs"] / 1000.0)
        self.results(job, "bigquery#queryResponse", 0, int(request.get("maxResults") or 100000),
                     estimate)

    def results(self, job, kind, start, size, estimate=None):
        if not job.done.is_set():
            return self.answer(200, {"kind": kind, "jobReference": self.reference(job.id),
                                     "jobComplete": False})
        if job.error:
            reason, message = job.error
            return self.error(400, reason, message)
        size = min(size, ARGS.page_rows)
        page = job.rows[start:start + size]
        fields = [{"name": name, "type": field_type([r[i] for r in job.rows]), "mode": "NULLABLE"}
                  for i, name in enumerate(job.columns)]
        body = {"kind": kind, "jobReference": self.reference(job.id), "jobComplete": True,
                "schema": {"fields": fields}, "totalRows": str(len(job.rows)),
                "rows": [{"f": [cell(v) for v in row]} for row in page], "cacheHit": False}
        if estimate is not None:
            body["totalBytesProcessed"] = str(estimate)
        if start + size < len(job.rows):
            body["pageToken"] = str(start + size)
        self.answer(200, body)


def main():
    global ARGS, PUBLIC_KEY
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True, help="the SQLite file the dataset's tables are in")
    parser.add_argument("--project", required=True)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--email", required=True, help="the service account's client_email")
    parser.add_argument("--public-key", required=True, help="its public key, PEM (or the key file, of which only the public half is used)")
    parser.add_argument("--page-rows", type=int, default=100)
    ARGS = parser.parse_args()
    with open(ARGS.public_key, "rb") as file:
        pem = file.read()
    try:
        PUBLIC_KEY = serialization.load_pem_public_key(pem)
    except ValueError:
        # A private key file: only its public half is used.
        PUBLIC_KEY = serialization.load_pem_private_key(pem, password=None).public_key()
    measure_tables()
    server = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    server.daemon_threads = True
    print("listening on", ARGS.port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
