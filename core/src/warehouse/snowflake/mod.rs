//! Snowflake, over the REST protocol Snowflake's own drivers speak: a
//! session from `/session/v1/login-request` (password, programmatic access
//! token or key-pair JWT), statements through `/queries/v1/query-request`,
//! results as Arrow IPC (`rowsetBase64`, then result chunks), and
//! `/queries/v1/abort-request` when Cassis stops waiting.
//!
//! Snowflake has no read-only session: the documented setup is a role that
//! may only SELECT, and Cassis itself runs nothing but one checked SELECT
//! for a question. Every statement carries its own
//! `STATEMENT_TIMEOUT_IN_SECONDS`, so the warehouse stops it even if
//! Cassis's abort never arrives.

mod config;
mod result;
pub mod token;

use super::connector::{Cost, Fetched, Source};
use super::rows::{Budget, first_column_texts};
use super::{FetchError, WarehouseError, metadata_table_list};
use crate::project::Dialect;
use crate::project::redact_url;
use crate::warehouse::catalog::{Catalog, ColumnSchema};
use config::{Config, ConfigError, Credentials};
use result::{ColumnType, DecodeError};
use serde::Deserialize;
use serde_json::{Value as Json, json};
use sqlparser::ast::Ident;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Snowflake's "Statement reached its statement or warehouse timeout".
const STATEMENT_TIMEOUT_CODE: &str = "000630";
/// The query still runs: its result is at `getResultUrl`.
const IN_PROGRESS_CODES: [&str; 2] = ["333333", "333334"];
/// The session's token expired or is unknown: sign in again.
const SESSION_GONE_CODES: [&str; 3] = ["390112", "390104", "390114"];
/// How long signing in may take.
const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an idle connection to Snowflake is kept for the next request.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(4);
/// How long a request may wait beyond its statement's own time limit.
const REQUEST_MARGIN: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum SnowflakeError {
    #[error("`{url}` is not a Snowflake URL Cassis can use: {reason}")]
    Url { url: String, reason: ConfigError },
    #[error("Snowflake refused the sign-in: {message} ({code})")]
    SignIn { code: String, message: String },
    #[error("Snowflake could not be reached: {0}")]
    Unreachable(#[source] reqwest::Error),
    #[error("Snowflake answered with HTTP status {0}")]
    Status(u16),
    #[error("{message} (Snowflake error {code})")]
    Query { code: String, message: String },
    #[error("the statement reached its time limit of {0} seconds and was cancelled")]
    Timeout(u64),
    #[error("Snowflake's answer could not be read: {0}")]
    Response(String),
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

impl SnowflakeError {
    pub fn is_statement_timeout(&self) -> bool {
        matches!(self, SnowflakeError::Timeout(_))
    }

    fn unreachable(error: reqwest::Error) -> Self {
        // Without the URL: it names the account, never a secret, but a
        // plain message reads better.
        SnowflakeError::Unreachable(error.without_url())
    }
}

impl From<SnowflakeError> for FetchError {
    fn from(error: SnowflakeError) -> Self {
        match error {
            SnowflakeError::Decode(DecodeError::TooLarge(too_large)) => {
                FetchError::TooLarge(too_large)
            }
            SnowflakeError::Timeout(_) => FetchError::Timeout,
            error => FetchError::Remote(Box::new(error)),
        }
    }
}

/// A signed-in Snowflake session; clones share it.
#[derive(Clone)]
pub struct SnowflakeSource {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    client: reqwest::Client,
    /// The session token; replaced when the session expires.
    token: tokio::sync::RwLock<String>,
    sequence: AtomicU64,
}

impl std::fmt::Debug for SnowflakeSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token or the credentials.
        f.debug_struct("SnowflakeSource")
            .field("endpoint", &self.inner.config.endpoint)
            .field("user", &self.inner.config.user)
            .field("database", &self.inner.config.database)
            .finish()
    }
}

/// The envelope of every answer.
#[derive(Debug, Deserialize)]
struct Envelope {
    #[serde(default)]
    success: bool,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    data: Option<Json>,
}

/// A statement's answer.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct QueryData {
    #[serde(default)]
    rowtype: Vec<ColumnType>,
    #[serde(default)]
    rowset_base64: Option<String>,
    #[serde(default)]
    rowset: Option<Vec<Vec<Option<String>>>>,
    #[serde(default)]
    query_result_format: Option<String>,
    #[serde(default)]
    chunks: Vec<Chunk>,
    #[serde(default)]
    chunk_headers: Option<std::collections::HashMap<String, String>>,
    #[serde(default)]
    qrmk: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Chunk {
    url: String,
}

/// A value bound to a `?` of a statement, as the protocol types it.
#[derive(Clone, Debug)]
pub enum Binding {
    Integer(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
}

impl Binding {
    fn to_json(&self) -> Json {
        let (kind, value) = match self {
            Binding::Integer(v) => ("FIXED", v.map(|v| v.to_string())),
            Binding::Real(v) => ("REAL", v.map(|v| v.to_string())),
            Binding::Text(v) => ("TEXT", v.clone()),
        };
        match value {
            Some(value) => json!({"type": kind, "value": value}),
            None => json!({"type": "ANY", "value": null}),
        }
    }
}

fn seconds(timeout: Duration) -> u64 {
    timeout.as_secs_f64().ceil().max(1.0) as u64
}

impl SnowflakeSource {
    pub(super) async fn connect(url: &str) -> Result<Self, WarehouseError> {
        let config = Config::parse(url).map_err(|reason| {
            WarehouseError::SnowflakeConnect(SnowflakeError::Url {
                url: redact_url(url),
                reason,
            })
        })?;
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            // Servers close idle connections (uvicorn after 5 s, balancers
            // after a minute or so): a request sent on one just closed fails.
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .user_agent(concat!("Cassis/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(SnowflakeError::unreachable)?;
        let source = SnowflakeSource {
            inner: Arc::new(Inner {
                config,
                client,
                token: tokio::sync::RwLock::new(String::new()),
                sequence: AtomicU64::new(0),
            }),
        };
        let token = source
            .sign_in()
            .await
            .map_err(WarehouseError::SnowflakeConnect)?;
        *source.inner.token.write().await = token;
        Ok(source)
    }

    /// Signs in and returns the session's token.
    async fn sign_in(&self) -> Result<String, SnowflakeError> {
        let config = &self.inner.config;
        let mut data = json!({
            "CLIENT_APP_ID": "Cassis",
            "CLIENT_APP_VERSION": env!("CARGO_PKG_VERSION"),
            "ACCOUNT_NAME": config.account_name(),
            "LOGIN_NAME": config.user,
            "CLIENT_ENVIRONMENT": {"APPLICATION": "Cassis"},
            "SESSION_PARAMETERS": {
                // What a statement that sets no limit of its own may take.
                "STATEMENT_TIMEOUT_IN_SECONDS": seconds(super::HOUSEKEEPING_TIMEOUT),
                "QUERY_TAG": "cassis",
            },
        });
        match &config.credentials {
            Credentials::Password(password) => data["PASSWORD"] = json!(password),
            Credentials::AccessToken(token) => {
                data["AUTHENTICATOR"] = json!("PROGRAMMATIC_ACCESS_TOKEN");
                data["TOKEN"] = json!(token);
            }
            Credentials::KeyPair(key) => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                let token = token::token(key, &config.account, &config.user, now).map_err(|e| {
                    SnowflakeError::SignIn {
                        code: "key".into(),
                        message: e.to_string(),
                    }
                })?;
                data["AUTHENTICATOR"] = json!("SNOWFLAKE_JWT");
                data["TOKEN"] = json!(token);
            }
        }
        let mut query = vec![
            ("databaseName", config.database.clone()),
            ("requestId", uuid::Uuid::new_v4().to_string()),
        ];
        query.extend(config.schema.clone().map(|s| ("schemaName", s)));
        query.extend(config.warehouse.clone().map(|w| ("warehouse", w)));
        query.extend(config.role.clone().map(|r| ("roleName", r)));
        let response = self
            .inner
            .client
            .post(format!("{}/session/v1/login-request", config.endpoint))
            .query(&query)
            .header("Accept", "application/json")
            .header("Content-Type", "application/json")
            .body(json!({ "data": data }).to_string())
            .timeout(SIGN_IN_TIMEOUT)
            .send()
            .await
            .map_err(SnowflakeError::unreachable)?;
        let envelope = read_envelope(response).await?;
        if !envelope.success {
            return Err(SnowflakeError::SignIn {
                code: envelope.code.unwrap_or_default(),
                message: envelope.message.unwrap_or_else(|| "no reason given".into()),
            });
        }
        envelope
            .data
            .as_ref()
            .and_then(|d| d.get("token"))
            .and_then(Json::as_str)
            .map(str::to_owned)
            .ok_or_else(|| SnowflakeError::Response("the sign-in returned no session".into()))
    }

    fn authorization(token: &str) -> String {
        format!("Snowflake Token=\"{token}\"")
    }

    /// Runs one statement and returns its answer, signing in again once if
    /// the session has expired. Cancelled on Snowflake when the future is
    /// dropped before the answer arrives.
    async fn run(
        &self,
        sql: &str,
        bindings: &[Binding],
        timeout: Duration,
    ) -> Result<QueryData, SnowflakeError> {
        for attempt in 0..2 {
            let token = self.inner.token.read().await.clone();
            match self.run_once(&token, sql, bindings, timeout).await {
                Err(SnowflakeError::Query { code, .. })
                    if attempt == 0 && SESSION_GONE_CODES.contains(&code.as_str()) =>
                {
                    let mut current = self.inner.token.write().await;
                    // Another statement may have signed in already.
                    if *current == token {
                        *current = self.sign_in().await?;
                    }
                }
                outcome => return outcome,
            }
        }
        Err(SnowflakeError::Response("the session expired again".into()))
    }

    async fn run_once(
        &self,
        token: &str,
        sql: &str,
        bindings: &[Binding],
        timeout: Duration,
    ) -> Result<QueryData, SnowflakeError> {
        let request_id = uuid::Uuid::new_v4().to_string();
        let mut body = json!({
            "sqlText": sql,
            "asyncExec": false,
            "sequenceId": self.inner.sequence.fetch_add(1, Ordering::Relaxed) + 1,
            "querySubmissionTime": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            "parameters": {
                "STATEMENT_TIMEOUT_IN_SECONDS": seconds(timeout),
                // One statement per request, whatever the account's default.
                "MULTI_STATEMENT_COUNT": 1,
            },
        });
        if !bindings.is_empty() {
            body["bindings"] = bindings
                .iter()
                .enumerate()
                .map(|(i, b)| ((i + 1).to_string(), b.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into();
        }
        let mut guard = AbortOnDrop {
            source: self.clone(),
            token: token.to_owned(),
            sql: sql.to_owned(),
            request_id: request_id.clone(),
            armed: true,
        };
        let endpoint = &self.inner.config.endpoint;
        let body = body.to_string();
        let send = |retry: u32| {
            self.inner
                .client
                .post(format!("{endpoint}/queries/v1/query-request"))
                .query(&[
                    ("requestId", request_id.as_str()),
                    ("retryCount", &retry.to_string()),
                ])
                .header("Authorization", Self::authorization(token))
                .header("Accept", "application/snowflake")
                .header("Content-Type", "application/json")
                .body(body.clone())
                .timeout(timeout + REQUEST_MARGIN)
                .send()
        };
        // A request that could not be sent (a connection the server had
        // just closed) is sent again once, with the same request id, by
        // which Snowflake recognises a statement it already has.
        let response = match send(0).await {
            Err(error) if error.is_request() && !error.is_timeout() => send(1).await,
            sent => sent,
        }
        .map_err(SnowflakeError::unreachable)?;
        let mut envelope = read_envelope(response).await?;
        // A long statement answers "in progress" with where to wait for it.
        while envelope
            .code
            .as_deref()
            .is_some_and(|c| IN_PROGRESS_CODES.contains(&c))
        {
            let path = envelope
                .data
                .as_ref()
                .and_then(|d| d.get("getResultUrl"))
                .and_then(Json::as_str)
                .ok_or_else(|| SnowflakeError::Response("no result URL".into()))?
                .to_owned();
            let response = self
                .inner
                .client
                .get(format!("{endpoint}{path}"))
                .header("Authorization", Self::authorization(token))
                .header("Accept", "application/snowflake")
                .timeout(timeout + REQUEST_MARGIN)
                .send()
                .await
                .map_err(SnowflakeError::unreachable)?;
            envelope = read_envelope(response).await?;
        }
        guard.armed = false;
        if !envelope.success {
            let code = envelope.code.unwrap_or_default();
            if code == STATEMENT_TIMEOUT_CODE {
                return Err(SnowflakeError::Timeout(seconds(timeout)));
            }
            return Err(SnowflakeError::Query {
                code,
                message: envelope
                    .message
                    .unwrap_or_else(|| "the statement failed".into()),
            });
        }
        serde_json::from_value(envelope.data.unwrap_or_default())
            .map_err(|e| SnowflakeError::Response(e.to_string()))
    }

    /// Every row of `sql`, decoded within `budget`, stopped by Snowflake
    /// after `timeout`.
    pub(super) async fn fetch_rows(
        &self,
        sql: &str,
        bindings: &[Binding],
        timeout: Duration,
        budget: &mut Budget,
    ) -> Result<Vec<Vec<Json>>, SnowflakeError> {
        Ok(self.fetch_named(sql, bindings, timeout, budget).await?.1)
    }

    /// The column names (lower case) and every row of `sql`.
    async fn fetch_named(
        &self,
        sql: &str,
        bindings: &[Binding],
        timeout: Duration,
        budget: &mut Budget,
    ) -> Result<(Vec<String>, Vec<Vec<Json>>), SnowflakeError> {
        let data = self.run(sql, bindings, timeout).await?;
        let names = data
            .rowtype
            .iter()
            .map(|c| c.name.to_ascii_lowercase())
            .collect();
        let arrow = data
            .query_result_format
            .as_deref()
            .is_none_or(|f| f.eq_ignore_ascii_case("arrow"));
        let mut rows = Vec::new();
        if let Some(rowset) = &data.rowset {
            result::json_rows(rowset, &data.rowtype, budget, &mut rows)?;
        }
        if let Some(base64) = data.rowset_base64.as_deref().filter(|b| !b.is_empty()) {
            result::arrow_base64_rows(base64, &data.rowtype, budget, &mut rows)?;
        }
        for chunk in &data.chunks {
            let body = self.chunk(&data, chunk, timeout).await?;
            if arrow {
                result::arrow_rows(&body, &data.rowtype, budget, &mut rows)?;
            } else {
                result::json_chunk_rows(&body, &data.rowtype, budget, &mut rows)?;
            }
        }
        Ok((names, rows))
    }

    /// One result chunk, from the (presigned) URL the answer names, with
    /// the headers it asks for.
    async fn chunk(
        &self,
        data: &QueryData,
        chunk: &Chunk,
        timeout: Duration,
    ) -> Result<Vec<u8>, SnowflakeError> {
        let mut request = self.inner.client.get(&chunk.url).timeout(timeout);
        match (&data.chunk_headers, &data.qrmk) {
            (Some(headers), _) => {
                for (name, value) in headers {
                    request = request.header(name, value);
                }
            }
            (None, Some(key)) => {
                request = request
                    .header("x-amz-server-side-encryption-customer-algorithm", "AES256")
                    .header("x-amz-server-side-encryption-customer-key", key);
            }
            (None, None) => {}
        }
        let response = request.send().await.map_err(SnowflakeError::unreachable)?;
        if !response.status().is_success() {
            return Err(SnowflakeError::Status(response.status().as_u16()));
        }
        let bytes = response
            .bytes()
            .await
            .map_err(SnowflakeError::unreachable)?;
        Ok(bytes.to_vec())
    }

    /// The first column of every row as text, within `timeout`.
    pub(super) async fn first_column(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> Result<Vec<String>, WarehouseError> {
        let rows = self
            .fetch_rows(sql, &[], timeout, &mut Budget::unlimited())
            .await
            .map_err(|e| match e {
                SnowflakeError::Timeout(_) => WarehouseError::Timeout(timeout),
                e => WarehouseError::Snowflake(e),
            })?;
        Ok(first_column_texts(rows))
    }

    /// The bytes Snowflake's EXPLAIN says the statement would read:
    /// `EXPLAIN USING JSON` answers one row whose text is the plan, with
    /// `GlobalStats.bytesAssigned`. `None` when the answer has no such
    /// figure (emulators that accept EXPLAIN but plan otherwise).
    async fn explained_bytes(&self, sql: &str) -> Result<Option<u64>, SnowflakeError> {
        // The compiled query, from the AST: not input.
        let explain = format!("EXPLAIN USING JSON {sql}");
        let rows = self
            .fetch_rows(
                &explain,
                &[],
                super::HOUSEKEEPING_TIMEOUT,
                &mut Budget::unlimited(),
            )
            .await?;
        Ok(rows
            .first()
            .and_then(|row| row.first())
            .and_then(Json::as_str)
            .and_then(explained_bytes))
    }

    /// A statement that writes (for `cassis warehouse load-csv` only; the
    /// question engine never calls it).
    pub(crate) async fn execute_statement(
        &self,
        sql: &str,
        bindings: &[Binding],
    ) -> Result<(), SnowflakeError> {
        self.run(sql, bindings, Duration::from_secs(600))
            .await
            .map(|_| ())
    }

    /// The primary and foreign keys declared in the schema (or database).
    async fn read_keys(
        &self,
        catalog: &mut Catalog,
        schema: Option<&str>,
    ) -> Result<(), SnowflakeError> {
        let scope = match schema {
            Some(schema) => format!(
                "SCHEMA {}.{}",
                identifier(&self.inner.config.database),
                identifier(schema)
            ),
            None => format!("DATABASE {}", identifier(&self.inner.config.database)),
        };
        let read = |sql: String| async move {
            let (names, rows) = self
                .fetch_named(
                    &sql,
                    &[],
                    super::HOUSEKEEPING_TIMEOUT,
                    &mut Budget::unlimited(),
                )
                .await?;
            Ok::<_, SnowflakeError>(
                rows.into_iter()
                    .map(|row| {
                        names
                            .iter()
                            .cloned()
                            .zip(row.into_iter().map(|v| match v {
                                Json::String(s) => s,
                                Json::Null => String::new(),
                                other => other.to_string(),
                            }))
                            .collect::<std::collections::HashMap<String, String>>()
                    })
                    .collect::<Vec<_>>(),
            )
        };
        let field = |row: &std::collections::HashMap<String, String>, name: &str| {
            row.get(name).cloned().unwrap_or_default()
        };
        // Each key's columns together, in key order.
        let in_key_order = |rows: &mut Vec<std::collections::HashMap<String, String>>,
                            key: &str| {
            rows.sort_by_key(|r| {
                (
                    field(r, key),
                    r.get("key_sequence").and_then(|s| s.parse::<u32>().ok()),
                )
            });
        };

        // Scope from our own identifiers, quoted: not input spliced as SQL.
        let mut primary = read(format!("SHOW PRIMARY KEYS IN {scope}")).await?;
        in_key_order(&mut primary, "constraint_name");
        for key in &primary {
            let (schema, table) = (
                folded(&field(key, "schema_name")),
                folded(&field(key, "table_name")),
            );
            if let Some(t) = catalog
                .tables
                .iter_mut()
                .find(|t| t.schema.as_deref() == Some(schema.as_str()) && t.name == table)
            {
                t.primary_key.push(folded(&field(key, "column_name")));
            }
        }

        let mut imported = read(format!("SHOW IMPORTED KEYS IN {scope}")).await?;
        in_key_order(&mut imported, "fk_name");
        for key in &imported {
            let referenced = folded(&field(key, "pk_table_name"));
            if referenced.is_empty() {
                continue;
            }
            let (schema, table) = (
                folded(&field(key, "fk_schema_name")),
                folded(&field(key, "fk_table_name")),
            );
            let Some(t) = catalog
                .tables
                .iter_mut()
                .find(|t| t.schema.as_deref() == Some(schema.as_str()) && t.name == table)
            else {
                continue;
            };
            let continues = field(key, "key_sequence") != "1" && !t.foreign_keys.is_empty();
            if !continues {
                t.foreign_keys.push(crate::warehouse::catalog::ForeignKey {
                    referenced_schema: Some(folded(&field(key, "pk_schema_name"))),
                    referenced_table: referenced,
                    ..Default::default()
                });
            }
            let fk = t.foreign_keys.last_mut().expect("a key was just pushed");
            fk.columns.push(folded(&field(key, "fk_column_name")));
            fk.referenced_columns
                .push(folded(&field(key, "pk_column_name")));
        }
        Ok(())
    }

    /// Ends the session.
    pub(crate) async fn close(&self) {
        let token = self.inner.token.read().await.clone();
        let sent = self
            .inner
            .client
            .post(format!("{}/session", self.inner.config.endpoint))
            .query(&[("delete", "true")])
            .header("Authorization", Self::authorization(&token))
            .header("Accept", "application/snowflake")
            .timeout(Duration::from_secs(10))
            .send()
            .await;
        if let Err(error) = sent {
            tracing::debug!(error = %error.without_url(), "ending a Snowflake session failed");
        }
    }
}

impl Source for SnowflakeSource {
    fn dialect(&self) -> Dialect {
        Dialect::Snowflake
    }

    /// How many of Cassis's metadata tables one schema holds together, at most.
    async fn holds_metadata(&self) -> Result<bool, WarehouseError> {
        let names = metadata_table_list(true);
        // Constant table names, not input.
        let sql = format!(
            "SELECT table_schema || '.' || LOWER(table_name) FROM information_schema.tables \
             WHERE UPPER(table_name) IN ({names})"
        );
        let found = self.first_column(&sql, super::HOUSEKEEPING_TIMEOUT).await?;
        let mut by_schema: std::collections::HashMap<&str, Vec<&str>> = Default::default();
        for qualified in &found {
            if let Some((schema, table)) = qualified.rsplit_once('.') {
                by_schema.entry(schema).or_default().push(table);
            }
        }
        Ok(by_schema.values().any(|tables| super::is_metadata(tables)))
    }

    /// The tables and views of the database, in `schema` (or the URL's
    /// schema, or every schema but INFORMATION_SCHEMA), with their columns.
    /// Names Snowflake folded to upper case come back in lower case, as
    /// the ontology writes them; Cassis quotes them upper case again.
    async fn catalog(&self, schema: Option<&str>) -> Result<Catalog, WarehouseError> {
        let schema = schema
            .map(str::to_owned)
            .or_else(|| self.inner.config.schema.clone());
        let mut sql = "SELECT c.table_schema, c.table_name, c.column_name, c.data_type, \
                              c.numeric_scale \
                       FROM information_schema.columns c \
                       JOIN information_schema.tables t \
                         ON t.table_schema = c.table_schema AND t.table_name = c.table_name \
                       WHERE c.table_schema <> 'INFORMATION_SCHEMA'"
            .to_owned();
        let mut bindings = Vec::new();
        if let Some(schema) = &schema {
            sql.push_str(" AND UPPER(c.table_schema) = UPPER(?)");
            bindings.push(Binding::Text(Some(schema.clone())));
        }
        sql.push_str(" ORDER BY c.table_schema, c.table_name, c.ordinal_position");
        let rows = self
            .fetch_rows(
                &sql,
                &bindings,
                super::HOUSEKEEPING_TIMEOUT,
                &mut Budget::unlimited(),
            )
            .await?;
        let mut catalog = Catalog::default();
        for row in rows {
            let text = |i: usize| match row.get(i) {
                Some(Json::String(s)) => folded(s),
                _ => String::new(),
            };
            catalog.push_column(
                text(0),
                text(1),
                ColumnSchema {
                    name: text(2),
                    sql_type: match (row.get(3), row.get(4)) {
                        // NUMBER(p, 0) holds whole numbers: INTEGER is its synonym.
                        (Some(Json::String(t)), Some(Json::Number(scale)))
                            if t.eq_ignore_ascii_case("NUMBER") && scale.as_i64() == Some(0) =>
                        {
                            "INTEGER".to_owned()
                        }
                        (Some(Json::String(t)), _) => t.clone(),
                        _ => String::new(),
                    },
                    sample_values: Vec::new(),
                },
            );
        }
        // Keys are declared, not enforced, in Snowflake, and only SHOW lists
        // their columns; a catalog without them still bootstraps.
        if let Err(error) = self.read_keys(&mut catalog, schema.as_deref()).await {
            tracing::info!(%error, "reading Snowflake's declared keys failed; the draft has none");
        }
        Ok(catalog)
    }

    async fn fetch_rows(&self, sql: String, timeout: Duration, mut budget: Budget) -> Fetched {
        Ok(SnowflakeSource::fetch_rows(self, &sql, &[], timeout, &mut budget).await?)
    }

    async fn estimated_cost(&self, sql: String) -> Result<Option<Cost>, FetchError> {
        Ok(self.explained_bytes(&sql).await?.map(Cost::BytesScanned))
    }

    async fn close(&self) {
        SnowflakeSource::close(self).await
    }
}

/// The answer's envelope, or a plain error for an HTTP failure.
async fn read_envelope(response: reqwest::Response) -> Result<Envelope, SnowflakeError> {
    let status = response.status();
    let body = response
        .bytes()
        .await
        .map_err(SnowflakeError::unreachable)?;
    match serde_json::from_slice::<Envelope>(&body) {
        Ok(envelope) if status.is_success() || !envelope.success => Ok(envelope),
        _ if !status.is_success() => Err(SnowflakeError::Status(status.as_u16())),
        Ok(envelope) => Ok(envelope),
        Err(error) => Err(SnowflakeError::Response(error.to_string())),
    }
}

/// `GlobalStats.bytesAssigned` of the plan `EXPLAIN USING JSON` prints.
fn explained_bytes(plan: &str) -> Option<u64> {
    let plan: Json = serde_json::from_str(plan).ok()?;
    let bytes = plan.get("GlobalStats")?.get("bytesAssigned")?;
    bytes
        .as_u64()
        .or_else(|| bytes.as_str().and_then(|b| b.parse().ok()))
}

/// A name Snowflake folded to upper case (written unquoted), in lower case;
/// any other name as it is.
fn folded(name: &str) -> String {
    let unquoted = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == '$');
    if unquoted {
        name.to_ascii_lowercase()
    } else {
        name.to_owned()
    }
}

/// An identifier as Snowflake reads it, quoted: a lower-case name means the
/// upper-case one Snowflake folds unquoted names to.
pub fn identifier(name: &str) -> Ident {
    Dialect::Snowflake.sql().quoted_ident(name)
}

/// Aborts the statement `request_id` when dropped armed: when Cassis stopped
/// waiting (the question timeout) or the caller went away.
struct AbortOnDrop {
    source: SnowflakeSource,
    token: String,
    sql: String,
    request_id: String,
    armed: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let inner = self.source.inner.clone();
        let token = std::mem::take(&mut self.token);
        let body = json!({"sqlText": self.sql, "requestId": self.request_id}).to_string();
        let request_id = self.request_id.clone();
        runtime.spawn(async move {
            let sent = inner
                .client
                .post(format!("{}/queries/v1/abort-request", inner.config.endpoint))
                .query(&[("requestId", uuid::Uuid::new_v4().to_string())])
                .header("Authorization", SnowflakeSource::authorization(&token))
                .header("Accept", "application/snowflake")
                .header("Content-Type", "application/json")
                .body(body)
                .timeout(Duration::from_secs(10))
                .send()
                .await;
            match sent {
                Ok(response) if response.status().is_success() => {
                    tracing::debug!(%request_id, "aborted an abandoned Snowflake statement")
                }
                Ok(response) => {
                    tracing::warn!(%request_id, status = %response.status(), "aborting an abandoned Snowflake statement failed")
                }
                Err(error) => {
                    tracing::warn!(%request_id, error = %error.without_url(), "aborting an abandoned Snowflake statement failed")
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A stand-in for Snowflake's endpoint: the first session expires at
    /// its first statement, the second gets a JSON rowset and one JSON chunk
    /// that is served only with the result's key. Counts sign-ins.
    async fn endpoint() -> (u16, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let logins = Arc::new(AtomicUsize::new(0));
        let counted = logins.clone();
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                let logins = counted.clone();
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buffer = [0u8; 4096];
                    let head_end = loop {
                        let n = stream.read(&mut buffer).await.unwrap();
                        request.extend_from_slice(&buffer[..n]);
                        if let Some(i) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                            break i + 4;
                        }
                    };
                    let head = String::from_utf8_lossy(&request[..head_end]).to_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length: "))
                        .and_then(|n| n.trim().parse().ok())
                        .unwrap_or(0);
                    while request.len() < head_end + length {
                        let n = stream.read(&mut buffer).await.unwrap();
                        request.extend_from_slice(&buffer[..n]);
                    }
                    let path = head
                        .split_whitespace()
                        .nth(1)
                        .unwrap_or_default()
                        .to_owned();
                    let (status, body) = if path.starts_with("/session/v1/login-request") {
                        let n = logins.fetch_add(1, Ordering::SeqCst) + 1;
                        (
                            "200 OK",
                            json!({"success": true, "data": {"token": format!("t{n}")}})
                                .to_string(),
                        )
                    } else if path.starts_with("/queries/v1/query-request") {
                        if head.contains("token=\"t1\"") {
                            ("200 OK", json!({"success": false, "code": "390112", "message": "Your session has expired.", "data": null}).to_string())
                        } else {
                            ("200 OK", json!({"success": true, "data": {
                                "rowtype": [{"name": "N", "type": "fixed", "scale": 0}, {"name": "NAME", "type": "text"}],
                                "rowset": [["1", "a"]],
                                "queryResultFormat": "json",
                                "qrmk": "k3y",
                                "chunks": [{"url": format!("http://127.0.0.1:{port}/chunk/1"), "rowCount": 2}],
                            }}).to_string())
                        }
                    } else if path.starts_with("/chunk/1") {
                        if head.contains("x-amz-server-side-encryption-customer-key: k3y") {
                            ("200 OK", r#"["2","b"],["3",null]"#.to_owned())
                        } else {
                            ("403 Forbidden", String::new())
                        }
                    } else {
                        ("200 OK", json!({"success": true}).to_string())
                    };
                    let response = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(response.as_bytes()).await;
                });
            }
        });
        (port, logins)
    }

    #[tokio::test]
    async fn an_expired_session_signs_in_again_and_json_rows_and_chunks_are_read() {
        let (port, logins) = endpoint().await;
        let url = format!("snowflake://ana:pw@acct/DB?host=127.0.0.1&port={port}&protocol=http");
        let source = SnowflakeSource::connect(&url).await.unwrap();
        let rows = source
            .fetch_rows(
                "SELECT n, name FROM t",
                &[],
                Duration::from_secs(10),
                &mut Budget::capped(),
            )
            .await
            .unwrap();
        assert_eq!(
            rows,
            vec![
                vec![json!(1), json!("a")],
                vec![json!(2), json!("b")],
                vec![json!(3), Json::Null]
            ]
        );
        assert_eq!(logins.load(Ordering::SeqCst), 2, "signed in again once");
        source.close().await;
    }

    #[test]
    fn the_bytes_explain_assigns_are_read_from_its_json_plan() {
        // The shape of Snowflake's documented EXPLAIN USING JSON output.
        let plan = r#"{"GlobalStats":{"partitionsTotal":19,"partitionsAssigned":19,"bytesAssigned":1234567},"Operations":[[{"id":0,"operation":"Result","expressions":["COUNT(*)"]},{"id":1,"parent":0,"operation":"Aggregate"},{"id":2,"parent":1,"operation":"TableScan","objects":["F1.PUBLIC.RESULTS"],"partitionsAssigned":19,"partitionsTotal":19,"bytesAssigned":1234567}]]}"#;
        assert_eq!(explained_bytes(plan), Some(1_234_567));
        assert_eq!(explained_bytes(r#"{"Operations":[]}"#), None);
        assert_eq!(explained_bytes("not json"), None);
    }

    #[test]
    fn names_snowflake_folded_read_as_the_ontology_writes_them() {
        assert_eq!(folded("RESULTS"), "results");
        assert_eq!(folded("RACE_ID"), "race_id");
        assert_eq!(folded("MixedCase"), "MixedCase");
        assert_eq!(folded("lower"), "lower");
        assert_eq!(identifier("position").to_string(), "\"POSITION\"");
        assert_eq!(identifier("MixedCase").to_string(), "\"MixedCase\"");
    }
}
