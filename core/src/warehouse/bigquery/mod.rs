//! BigQuery, over its REST API: `jobs.query` runs a statement (waiting a
//! little for it), `jobs.getQueryResults` waits for the rest and pages
//! through the rows (`pageToken`), a dry run estimates the bytes a query
//! reads, and `jobs.cancel` stops a job Cassis stopped waiting for.
//!
//! Signing in is Google's OAuth 2.0 flow for service accounts: an RS256 JWT
//! assertion, signed with the account's key, exchanged at the key file's
//! token URI for an access token, which is kept until shortly before it
//! expires.
//!
//! BigQuery has no read-only session: the documented setup is a service
//! account with `roles/bigquery.dataViewer` on the dataset and
//! `roles/bigquery.jobUser` on the project, and Cassis runs nothing but
//! checked SELECTs. Every job carries `jobTimeoutMs`, so BigQuery stops it
//! even if Cassis's cancel never arrives, and `maximumBytesBilled`, so no
//! question bills more than the project's ceiling.

mod config;

use super::catalog::{Catalog, ColumnSchema};
use super::connector::{Cost, Fetched, Source};
use super::rows::{Budget, FetchError, ResultTooLarge};
use super::{HOUSEKEEPING_TIMEOUT, WarehouseError, metadata_table_list};
use crate::project::{Dialect, redact_url};
use config::{Config, ConfigError};
use serde::Deserialize;
use serde_json::{Value as Json, json};
use sqlparser::ast::Ident;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use config::DEFAULT_MAXIMUM_BYTES_BILLED;

/// The access a token asks for. BigQuery's read-only scope cannot cancel a
/// job; what the account may read is its roles' business.
const SCOPE: &str = "https://www.googleapis.com/auth/bigquery";
/// How long an assertion is valid: Google accepts at most an hour.
const ASSERTION_LIFETIME_SECS: u64 = 3600;
/// A token this close to its expiry is renewed first.
const TOKEN_MARGIN: Duration = Duration::from_secs(60);
/// How long one request waits for a job before asking again: short, so a
/// job's id is known early (and can be cancelled), and no request outlives
/// a connection's idle limits.
const WAIT_PER_REQUEST: Duration = Duration::from_secs(10);
/// Rows asked for per page; BigQuery may send fewer (it also caps a page at
/// 10 MB) and says so with a `pageToken`.
const PAGE_ROWS: u32 = 10_000;
/// How long an idle connection to Google is kept for the next request.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(4);
/// What is escaped in a job id put in a path: all but RFC 3986's
/// unreserved characters (job ids are letters, digits, `_` and `-`).
const PATH_SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');
/// How long a request may take beyond what it asks BigQuery to wait.
const REQUEST_MARGIN: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum BigQueryError {
    #[error("`{url}` is not a BigQuery URL Cassis can use: {reason}")]
    Url { url: String, reason: ConfigError },
    #[error("Google refused the service account's sign-in: {0}")]
    SignIn(String),
    #[error("BigQuery could not be reached: {0}")]
    Unreachable(#[source] reqwest::Error),
    #[error(
        "the query would bill more bytes than this project allows (maximum_bytes_billed in its URL, {limit} bytes): {message}"
    )]
    BytesBilled { limit: u64, message: String },
    #[error("BigQuery's quota or rate limit was reached; try again later: {0}")]
    Quota(String),
    #[error(
        "BigQuery denied access: {0} (the service account needs roles/bigquery.dataViewer on the dataset and roles/bigquery.jobUser on the project)"
    )]
    Denied(String),
    #[error("BigQuery refused the query: {0}")]
    Query(String),
    #[error("BigQuery answered with HTTP status {status}: {message}")]
    Status { status: u16, message: String },
    #[error("the job reached its time limit and was cancelled")]
    Timeout,
    #[error("BigQuery's answer could not be read: {0}")]
    Response(String),
    #[error(transparent)]
    TooLarge(#[from] ResultTooLarge),
}

impl BigQueryError {
    fn unreachable(error: reqwest::Error) -> Self {
        BigQueryError::Unreachable(error.without_url())
    }

    /// The plain error for an answer with an error status: BigQuery's
    /// `error.errors[].reason` says what went wrong.
    fn of_answer(status: u16, body: &[u8], limit: u64) -> Self {
        #[derive(Deserialize)]
        struct Answer {
            error: Option<ErrorBody>,
        }
        #[derive(Deserialize)]
        struct ErrorBody {
            #[serde(default)]
            message: String,
            #[serde(default)]
            errors: Vec<ErrorItem>,
        }
        let error = serde_json::from_slice::<Answer>(body)
            .ok()
            .and_then(|a| a.error);
        let Some(error) = error else {
            return BigQueryError::Status {
                status,
                message: "no reason given".into(),
            };
        };
        let reason = error.errors.first().map(|e| e.reason.as_str());
        let message = error
            .errors
            .first()
            .map(|e| e.message.clone())
            .filter(|m| !m.is_empty())
            .unwrap_or(error.message);
        match reason {
            Some("bytesBilledLimitExceeded") => BigQueryError::BytesBilled { limit, message },
            Some("quotaExceeded" | "rateLimitExceeded") => BigQueryError::Quota(message),
            Some("accessDenied") => BigQueryError::Denied(message),
            Some("timeout") => BigQueryError::Timeout,
            Some("invalidQuery" | "invalid" | "notFound" | "duplicate") => {
                BigQueryError::Query(message)
            }
            _ if status == 403 || status == 401 => BigQueryError::Denied(message),
            _ => BigQueryError::Status { status, message },
        }
    }
}

impl From<BigQueryError> for FetchError {
    fn from(error: BigQueryError) -> Self {
        match error {
            BigQueryError::TooLarge(too_large) => FetchError::TooLarge(too_large),
            BigQueryError::Timeout => FetchError::Timeout,
            error => FetchError::Remote(Box::new(error)),
        }
    }
}

#[derive(Debug, Deserialize)]
struct ErrorItem {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
}

/// What `jobs.query` and `jobs.getQueryResults` answer, the fields Cassis reads.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct QueryResponse {
    #[serde(default)]
    schema: Option<Schema>,
    #[serde(default)]
    job_reference: Option<JobReference>,
    #[serde(default)]
    page_token: Option<String>,
    #[serde(default)]
    rows: Vec<Row>,
    #[serde(default)]
    job_complete: bool,
    #[serde(default)]
    total_bytes_processed: Option<String>,
    /// Errors of a job that completed and failed.
    #[serde(default)]
    errors: Vec<ErrorItem>,
}

#[derive(Debug, Default, Deserialize)]
struct Schema {
    #[serde(default)]
    fields: Vec<Field>,
}

#[derive(Debug, Deserialize)]
struct Field {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    mode: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JobReference {
    /// None in a dry run's answer: no job ran.
    #[serde(default)]
    job_id: String,
    #[serde(default)]
    location: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Row {
    f: Vec<Cell>,
}

#[derive(Debug, Deserialize)]
struct Cell {
    #[serde(default)]
    v: Json,
}

/// A BigQuery project and dataset, reached as a service account; clones
/// share the access token.
#[derive(Clone)]
pub struct BigQuerySource {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    client: reqwest::Client,
    /// The access token and when it expires.
    token: tokio::sync::Mutex<Option<(String, Instant)>>,
}

impl std::fmt::Debug for BigQuerySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key or the token.
        f.debug_struct("BigQuerySource")
            .field("endpoint", &self.inner.config.endpoint)
            .field("project", &self.inner.config.project)
            .field("dataset", &self.inner.config.dataset)
            .finish()
    }
}

impl BigQuerySource {
    /// Reads the URL and signs in (a connection test: a key Google refuses
    /// fails here).
    pub(super) async fn connect(url: &str) -> Result<Self, WarehouseError> {
        let config = Config::parse(url).map_err(|reason| {
            WarehouseError::BigQueryConnect(BigQueryError::Url {
                url: redact_url(url),
                reason,
            })
        })?;
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .user_agent(concat!("Cassis/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| WarehouseError::BigQueryConnect(BigQueryError::unreachable(e)))?;
        let source = BigQuerySource {
            inner: Arc::new(Inner {
                config,
                client,
                token: tokio::sync::Mutex::new(None),
            }),
        };
        source
            .access_token()
            .await
            .map_err(WarehouseError::BigQueryConnect)?;
        Ok(source)
    }

    /// A valid access token: the one held, or a new one.
    async fn access_token(&self) -> Result<String, BigQueryError> {
        let mut held = self.inner.token.lock().await;
        if let Some((token, expires)) = held.as_ref()
            && Instant::now() + TOKEN_MARGIN < *expires
        {
            return Ok(token.clone());
        }
        let (token, lifetime) = self.sign_in().await?;
        *held = Some((token.clone(), Instant::now() + lifetime));
        Ok(token)
    }

    /// Exchanges a signed assertion for an access token and its lifetime.
    async fn sign_in(&self) -> Result<(String, Duration), BigQueryError> {
        let account = &self.inner.config.account;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut header = json!({"alg": "RS256", "typ": "JWT"});
        if let Some(kid) = &account.key_id {
            header["kid"] = json!(kid);
        }
        let claims = json!({
            "iss": account.email,
            "scope": SCOPE,
            "aud": account.token_uri,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
        });
        let assertion = account
            .key
            .sign_jwt(header.to_string().as_bytes(), claims.to_string().as_bytes())
            .map_err(|e| BigQueryError::SignIn(e.to_string()))?;
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
            .append_pair("assertion", &assertion)
            .finish();
        let response = self
            .inner
            .client
            .post(&account.token_uri)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(form)
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .map_err(BigQueryError::unreachable)?;
        let status = response.status();
        let body = response.bytes().await.map_err(BigQueryError::unreachable)?;
        let body: Json = serde_json::from_slice(&body).unwrap_or_default();
        let token = body.get("access_token").and_then(Json::as_str);
        match token {
            Some(token) if status.is_success() => {
                let lifetime = body
                    .get("expires_in")
                    .and_then(Json::as_u64)
                    .unwrap_or(3600);
                Ok((token.to_owned(), Duration::from_secs(lifetime)))
            }
            _ => Err(BigQueryError::SignIn(
                body.get("error_description")
                    .or_else(|| body.get("error"))
                    .and_then(Json::as_str)
                    .map_or_else(|| format!("HTTP status {}", status.as_u16()), str::to_owned),
            )),
        }
    }

    /// The API's URL for `path` under the project (a name checked to hold
    /// only what a URL's path may).
    fn url(&self, path: &str) -> String {
        let config = &self.inner.config;
        format!(
            "{}/bigquery/v2/projects/{}/{path}",
            config.endpoint, config.project
        )
    }

    /// Sends a request with the access token, signing in again once if
    /// Google says the token is no longer good, and reads the JSON answer.
    async fn send<T: serde::de::DeserializeOwned>(
        &self,
        request: impl Fn(&str) -> reqwest::RequestBuilder,
    ) -> Result<T, BigQueryError> {
        for attempt in 0..2 {
            let token = self.access_token().await?;
            let response = request(&token)
                .send()
                .await
                .map_err(BigQueryError::unreachable)?;
            let status = response.status();
            let body = response.bytes().await.map_err(BigQueryError::unreachable)?;
            if status.as_u16() == 401 && attempt == 0 {
                *self.inner.token.lock().await = None;
                continue;
            }
            if !status.is_success() {
                return Err(BigQueryError::of_answer(
                    status.as_u16(),
                    &body,
                    self.inner.config.maximum_bytes_billed,
                ));
            }
            return serde_json::from_slice(&body)
                .map_err(|e| BigQueryError::Response(e.to_string()));
        }
        Err(BigQueryError::SignIn(
            "the new access token was refused too".into(),
        ))
    }

    /// `jobs.query`: starts `sql` (or plans it, for a dry run) and waits for
    /// it a little.
    async fn start(
        &self,
        sql: &str,
        timeout: Duration,
        dry_run: bool,
    ) -> Result<QueryResponse, BigQueryError> {
        let config = &self.inner.config;
        // Half the time at most, so the job's id is known (to cancel it)
        // well before the deadline.
        let wait = (timeout / 2).min(WAIT_PER_REQUEST);
        let mut body = json!({
            "kind": "bigquery#queryRequest",
            "query": sql,
            "useLegacySql": false,
            "maximumBytesBilled": config.maximum_bytes_billed.to_string(),
            "timeoutMs": wait.as_millis() as u64,
            "jobTimeoutMs": timeout.as_millis().max(1).to_string(),
            "defaultDataset": {"projectId": config.project, "datasetId": config.dataset},
            "maxResults": PAGE_ROWS,
            "requestId": uuid::Uuid::new_v4().to_string(),
            "dryRun": dry_run,
            "labels": {"client": "cassis"},
        });
        if let Some(location) = &config.location {
            body["location"] = json!(location);
        }
        let body = body.to_string();
        let url = self.url("queries");
        self.send(|token| {
            self.inner
                .client
                .post(&url)
                .bearer_auth(token)
                .header("Content-Type", "application/json")
                .body(body.clone())
                .timeout(wait + REQUEST_MARGIN)
        })
        .await
    }

    /// `jobs.getQueryResults`: waits for the job a little, and reads the
    /// page `page_token` names (the first without one).
    async fn results(
        &self,
        job: &JobReference,
        page_token: Option<&str>,
        wait: Duration,
    ) -> Result<QueryResponse, BigQueryError> {
        let mut query = vec![
            ("timeoutMs", wait.as_millis().to_string()),
            ("maxResults", PAGE_ROWS.to_string()),
        ];
        query.extend(job.location.clone().map(|l| ("location", l)));
        query.extend(page_token.map(|t| ("pageToken", t.to_owned())));
        let url = self.url(&format!(
            "queries/{}",
            percent_encoding::utf8_percent_encode(&job.job_id, PATH_SEGMENT)
        ));
        self.send(|token| {
            self.inner
                .client
                .get(&url)
                .query(&query)
                .bearer_auth(token)
                .timeout(wait + REQUEST_MARGIN)
        })
        .await
    }

    /// Every row of `sql`, decoded within `budget`; the job is stopped by
    /// BigQuery after `timeout`, and cancelled by Cassis when it gives up
    /// first or the caller goes away.
    async fn rows(
        &self,
        sql: &str,
        timeout: Duration,
        budget: &mut Budget,
    ) -> Result<Vec<Vec<Json>>, BigQueryError> {
        let deadline = Instant::now() + timeout;
        let mut response = self.start(sql, timeout, false).await?;
        let job = response
            .job_reference
            .clone()
            .filter(|job| !job.job_id.is_empty())
            .ok_or_else(|| BigQueryError::Response("the answer names no job".into()))?;
        let mut guard = CancelOnDrop {
            source: self.clone(),
            job: job.clone(),
            armed: true,
        };
        let mut rows = Vec::new();
        loop {
            while !response.job_complete {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    // The guard cancels the job.
                    return Err(BigQueryError::Timeout);
                }
                response = self.results(&job, None, left.min(WAIT_PER_REQUEST)).await?;
            }
            if let Some(error) = response.errors.first() {
                guard.armed = false;
                return Err(BigQueryError::of_answer(
                    400,
                    json!({"error": {"message": error.message, "errors": [{"reason": error.reason, "message": error.message}]}})
                        .to_string()
                        .as_bytes(),
                    self.inner.config.maximum_bytes_billed,
                ));
            }
            let fields = response.schema.as_ref().map_or(&[][..], |s| &s.fields[..]);
            for row in &response.rows {
                let values = row
                    .f
                    .iter()
                    .zip(fields.iter().map(Some).chain(std::iter::repeat(None)))
                    .map(|(cell, field)| value(&cell.v, field, budget))
                    .collect::<Result<Vec<_>, _>>()?;
                rows.push(values);
            }
            match response.page_token.take() {
                Some(token) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(BigQueryError::Timeout);
                    }
                    let schema = response.schema.take();
                    response = self
                        .results(&job, Some(&token), left.min(WAIT_PER_REQUEST))
                        .await?;
                    // Later pages repeat the schema; keep the first if not.
                    if response.schema.is_none() {
                        response.schema = schema;
                    }
                }
                None => break,
            }
        }
        guard.armed = false;
        Ok(rows)
    }

    /// The dataset's name as a quoted SQL path: `` `project`.`dataset` ``.
    fn dataset_path(&self, dataset: &str) -> String {
        format!(
            "{}.{}",
            Ident::with_quote('`', &self.inner.config.project),
            Ident::with_quote('`', dataset)
        )
    }

    /// The dataset named, or the URL's: only names BigQuery allows.
    fn dataset<'a>(&'a self, schema: Option<&'a str>) -> Result<&'a str, WarehouseError> {
        let dataset = schema.unwrap_or(&self.inner.config.dataset);
        if dataset.is_empty()
            || !dataset
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(WarehouseError::BigQuery(BigQueryError::Query(format!(
                "`{dataset}` is not a dataset name"
            ))));
        }
        Ok(dataset)
    }

    /// Primary keys in key order, then foreign keys, whose columns refer to
    /// the referenced table's primary key by `position_in_unique_constraint`.
    async fn read_keys(&self, catalog: &mut Catalog, dataset: &str) -> Result<(), BigQueryError> {
        let path = self.dataset_path(dataset);
        let sql = format!(
            "SELECT t.constraint_type, k.constraint_name, k.table_name, k.column_name, \
                    k.position_in_unique_constraint \
             FROM {path}.INFORMATION_SCHEMA.KEY_COLUMN_USAGE k \
             JOIN {path}.INFORMATION_SCHEMA.TABLE_CONSTRAINTS t \
               ON t.constraint_name = k.constraint_name AND t.table_name = k.table_name \
             ORDER BY t.constraint_type DESC, k.table_name, k.constraint_name, k.ordinal_position"
        );
        let keys = self
            .rows(&sql, HOUSEKEEPING_TIMEOUT, &mut Budget::unlimited())
            .await?;
        let sql = format!(
            "SELECT constraint_name, table_name FROM {path}.INFORMATION_SCHEMA.CONSTRAINT_COLUMN_USAGE"
        );
        let referenced: std::collections::HashMap<String, String> = self
            .rows(&sql, HOUSEKEEPING_TIMEOUT, &mut Budget::unlimited())
            .await?
            .into_iter()
            .map(|row| (text_of(&row, 0), text_of(&row, 1)))
            .collect();
        let mut last_constraint = String::new();
        for key in &keys {
            let (kind, constraint, table, column) = (
                text_of(key, 0),
                text_of(key, 1),
                text_of(key, 2),
                text_of(key, 3),
            );
            if kind == "PRIMARY KEY" {
                if let Some(t) = catalog.tables.iter_mut().find(|t| t.name == table) {
                    t.primary_key.push(column);
                }
                continue;
            }
            let Some(target) = referenced.get(&constraint) else {
                continue;
            };
            // The referenced column: the target's primary key at the position named.
            let position = key.get(4).and_then(Json::as_i64).unwrap_or(0);
            let referenced_column = catalog
                .tables
                .iter()
                .find(|t| &t.name == target)
                .and_then(|t| t.primary_key.get((position - 1).max(0) as usize).cloned());
            let Some(t) = catalog.tables.iter_mut().find(|t| t.name == table) else {
                continue;
            };
            if constraint != last_constraint || t.foreign_keys.is_empty() {
                t.foreign_keys.push(crate::warehouse::catalog::ForeignKey {
                    referenced_schema: Some(dataset.to_owned()),
                    referenced_table: target.clone(),
                    ..Default::default()
                });
            }
            let fk = t.foreign_keys.last_mut().expect("a key was just pushed");
            fk.columns.push(column);
            fk.referenced_columns.extend(referenced_column);
            last_constraint = constraint;
        }
        Ok(())
    }

    /// The bytes a dry run says the query would read.
    async fn dry_run_bytes(&self, sql: &str) -> Result<Option<u64>, BigQueryError> {
        let response = self.start(sql, HOUSEKEEPING_TIMEOUT, true).await?;
        Ok(response
            .total_bytes_processed
            .as_deref()
            .and_then(|b| b.parse().ok()))
    }
}

impl Source for BigQuerySource {
    fn dialect(&self) -> Dialect {
        Dialect::BigQuery
    }

    async fn holds_metadata(&self) -> Result<bool, WarehouseError> {
        let names = metadata_table_list(false);
        // Constant table names and a checked dataset name, not input.
        let sql = format!(
            "SELECT table_name FROM {}.INFORMATION_SCHEMA.TABLES WHERE table_name IN ({names})",
            self.dataset_path(self.dataset(None)?)
        );
        let rows = self
            .rows(&sql, HOUSEKEEPING_TIMEOUT, &mut Budget::unlimited())
            .await?;
        let found: Vec<String> = rows
            .into_iter()
            .filter_map(|r| r.into_iter().next())
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        Ok(super::is_metadata(&found))
    }

    /// The tables and views of the dataset with their columns, and the
    /// primary and foreign keys declared on them (BigQuery does not enforce
    /// them; a catalog without them still bootstraps).
    async fn catalog(&self, schema: Option<&str>) -> Result<Catalog, WarehouseError> {
        let dataset = self.dataset(schema)?;
        let sql = format!(
            "SELECT table_schema, table_name, column_name, data_type \
             FROM {}.INFORMATION_SCHEMA.COLUMNS ORDER BY table_name, ordinal_position",
            self.dataset_path(dataset)
        );
        let rows = self
            .rows(&sql, HOUSEKEEPING_TIMEOUT, &mut Budget::unlimited())
            .await?;
        let mut catalog = Catalog::default();
        for row in rows {
            let text = |i: usize| match row.get(i) {
                Some(Json::String(s)) => s.clone(),
                _ => String::new(),
            };
            catalog.push_column(
                text(0),
                text(1),
                ColumnSchema {
                    name: text(2),
                    sql_type: text(3),
                    sample_values: Vec::new(),
                },
            );
        }
        if let Err(error) = self.read_keys(&mut catalog, dataset).await {
            tracing::info!(%error, "reading BigQuery's declared keys failed; the draft has none");
        }
        Ok(catalog)
    }

    async fn fetch_rows(&self, sql: String, timeout: Duration, mut budget: Budget) -> Fetched {
        Ok(self.rows(&sql, timeout, &mut budget).await?)
    }

    async fn estimated_cost(&self, sql: String) -> Result<Option<Cost>, FetchError> {
        Ok(self.dry_run_bytes(&sql).await?.map(Cost::BytesScanned))
    }

    /// Nothing to end: every request carries its token.
    async fn close(&self) {}
}

/// The text of a row's `i`th value.
fn text_of(row: &[Json], i: usize) -> String {
    match row.get(i) {
        Some(Json::String(s)) => s.clone(),
        Some(Json::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// A cell's value as the engine reads results. BigQuery sends every
/// scalar as text (`"19"`, `"2350.0"`, `"true"`, a timestamp as seconds
/// since the epoch), typed by the schema's field.
fn value(v: &Json, field: Option<&Field>, budget: &mut Budget) -> Result<Json, ResultTooLarge> {
    let text = match v {
        Json::Null => return Ok(Json::Null),
        Json::String(text) => text,
        // A RECORD or REPEATED field: shown as its JSON.
        other => {
            let text = other.to_string();
            budget.spend(text.len())?;
            return Ok(Json::String(text));
        }
    };
    budget.spend(text.len())?;
    let repeated = field.is_some_and(|f| f.mode.as_deref() == Some("REPEATED"));
    let kind = field.map_or("STRING", |f| f.kind.as_str());
    let typed = match kind {
        _ if repeated => None,
        "INTEGER" | "INT64" => text.parse::<i64>().ok().map(Json::from),
        "FLOAT" | "FLOAT64" => text.parse::<f64>().ok().map(super::rows::number),
        "NUMERIC" | "BIGNUMERIC" => text
            .parse::<rust_decimal::Decimal>()
            .ok()
            .map(super::rows::decimal)
            .or_else(|| text.parse::<f64>().ok().map(super::rows::number)),
        "BOOLEAN" | "BOOL" => match text.as_str() {
            "true" => Some(Json::Bool(true)),
            "false" => Some(Json::Bool(false)),
            _ => None,
        },
        "TIMESTAMP" => text.parse::<f64>().ok().and_then(|seconds| {
            let whole = seconds.floor();
            let nanos = ((seconds - whole) * 1e9).round() as u32;
            chrono::DateTime::from_timestamp(whole as i64, nanos.min(999_999_999))
                .map(|t| Json::from(t.to_rfc3339()))
        }),
        _ => None,
    };
    Ok(typed.unwrap_or_else(|| Json::String(text.clone())))
}

/// Cancels the job when dropped armed: when Cassis stopped waiting (the
/// question timeout) or the caller went away.
struct CancelOnDrop {
    source: BigQuerySource,
    job: JobReference,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let source = self.source.clone();
        let job = self.job.clone();
        runtime.spawn(async move {
            let mut url = source.url(&format!(
                "jobs/{}/cancel",
                percent_encoding::utf8_percent_encode(&job.job_id, PATH_SEGMENT)
            ));
            if let Some(location) = &job.location {
                url.push_str("?location=");
                url.push_str(
                    &percent_encoding::utf8_percent_encode(location, PATH_SEGMENT)
                        .to_string(),
                );
            }
            let sent: Result<Json, _> = source
                .send(|token| {
                    source
                        .inner
                        .client
                        .post(&url)
                        .bearer_auth(token)
                        .timeout(Duration::from_secs(10))
                })
                .await;
            match sent {
                Ok(_) => tracing::debug!(job = %job.job_id, "cancelled an abandoned BigQuery job"),
                Err(error) => {
                    tracing::warn!(job = %job.job_id, %error, "cancelling an abandoned BigQuery job failed")
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(kind: &str) -> Field {
        Field {
            kind: kind.into(),
            mode: Some("NULLABLE".into()),
        }
    }

    #[test]
    fn cells_read_as_their_fields_type() {
        let mut budget = Budget::capped();
        let mut read = |v: Json, kind: &str| value(&v, Some(&field(kind)), &mut budget).unwrap();
        assert_eq!(read(json!("19"), "INTEGER"), json!(19));
        assert_eq!(read(json!("2350.0"), "FLOAT"), json!(2350));
        assert_eq!(read(json!("2.5"), "FLOAT64"), json!(2.5));
        assert_eq!(read(json!("860"), "NUMERIC"), json!(860));
        assert_eq!(read(json!("true"), "BOOLEAN"), json!(true));
        assert_eq!(
            read(json!("Max Verstappen"), "STRING"),
            json!("Max Verstappen")
        );
        assert_eq!(read(json!("2023-03-05"), "DATE"), json!("2023-03-05"));
        assert_eq!(
            read(json!("1.6777216E9"), "TIMESTAMP"),
            json!("2023-03-02T01:46:40+00:00")
        );
        assert_eq!(read(Json::Null, "INTEGER"), Json::Null);
    }

    #[test]
    fn error_reasons_become_plain_messages() {
        let answer = |status: u16, reason: &str, message: &str| {
            let body = json!({"error": {"code": status, "message": message,
                "errors": [{"reason": reason, "message": message, "domain": "global"}]}});
            BigQueryError::of_answer(status, body.to_string().as_bytes(), 1000).to_string()
        };
        let billed = answer(
            400,
            "bytesBilledLimitExceeded",
            "Query exceeded limit for bytes billed: 1000. 10485760 or higher required.",
        );
        assert!(billed.contains("maximum_bytes_billed"), "{billed}");
        assert!(billed.contains("1000 bytes"), "{billed}");
        let quota = answer(
            403,
            "quotaExceeded",
            "Quota exceeded: Your project exceeded quota for free query bytes scanned.",
        );
        assert!(
            quota.starts_with("BigQuery's quota or rate limit was reached"),
            "{quota}"
        );
        let denied = answer(
            403,
            "accessDenied",
            "Access Denied: Table p:d.t: User does not have permission",
        );
        assert!(denied.contains("roles/bigquery.dataViewer"), "{denied}");
        let invalid = answer(400, "invalidQuery", "Unrecognized name: nope at [1:8]");
        assert_eq!(
            invalid,
            "BigQuery refused the query: Unrecognized name: nope at [1:8]"
        );
        assert!(matches!(
            BigQueryError::of_answer(502, b"<html>", 1),
            BigQueryError::Status { status: 502, .. }
        ));
    }
}
