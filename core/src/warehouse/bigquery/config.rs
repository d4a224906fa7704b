//! What a `bigquery://` URL says: the project jobs run and bill in, the
//! dataset questions read, the service account that signs in, and the
//! ceiling on bytes billed.
//!
//! `bigquery://PROJECT/DATASET?credentials=KEY&location=US&maximum_bytes_billed=N`,
//! where KEY is the service account's JSON key file (the one the Google
//! Cloud console downloads) in base64, either alphabet. The key travels in
//! the URL as Snowflake's does, as a parameter named `credentials`, so
//! `redact_url` hides it wherever the URL is shown or logged, it is stored
//! with the project like any connection URL, and the server reads no file
//! an admin could name. `host=`, `port=` and `protocol=` reach a server
//! other than `bigquery.googleapis.com` (an emulator in tests).

use crate::warehouse::http_url::{self, UnknownProtocol, decoded, endpoint};
use crate::warehouse::key_pair::{KeyError, KeyPair};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

/// 100 GiB: about sixty cents of on-demand querying, and far more than any
/// question over a curated ontology should read.
pub const DEFAULT_MAXIMUM_BYTES_BILLED: u64 = 100 * 1024 * 1024 * 1024;
/// Where a service account's key file says to ask for tokens, when it does
/// not say.
const GOOGLE_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";

/// A service account's key file: the fields Cassis uses.
#[derive(serde::Deserialize)]
struct KeyFile {
    #[serde(rename = "type")]
    kind: Option<String>,
    client_email: Option<String>,
    private_key: Option<String>,
    private_key_id: Option<String>,
    token_uri: Option<String>,
}

/// A service account that signs in with its key.
pub struct ServiceAccount {
    pub email: String,
    pub key_id: Option<String>,
    pub key: KeyPair,
    pub token_uri: String,
}

impl std::fmt::Debug for ServiceAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("ServiceAccount")
            .field("email", &self.email)
            .field("token_uri", &self.token_uri)
            .finish()
    }
}

#[derive(Debug)]
pub struct Config {
    /// `https://bigquery.googleapis.com`, or what `host=` names.
    pub endpoint: String,
    pub project: String,
    pub dataset: String,
    /// Where the dataset lives (`US`, `EU`, `europe-west1`); BigQuery finds
    /// it from the dataset when not given.
    pub location: Option<String>,
    pub maximum_bytes_billed: u64,
    pub account: ServiceAccount,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("not a URL")]
    NotUrl,
    #[error("it names no project: bigquery://PROJECT/DATASET?credentials=KEY")]
    NoProject,
    #[error("it names no dataset: bigquery://PROJECT/DATASET?credentials=KEY")]
    NoDataset,
    #[error(
        "`{0}` is not a BigQuery name: projects are letters, digits, dashes (and a domain with a colon), datasets letters, digits and underscores"
    )]
    BadName(String),
    #[error(
        "it has no service account key: give the JSON key file, in base64, as credentials= (bigquery://PROJECT/DATASET?credentials=KEY)"
    )]
    NoCredentials,
    #[error(
        "the credentials are not a service account's JSON key file in base64 (with type, client_email and private_key)"
    )]
    NotKeyFile,
    #[error("maximum_bytes_billed must be a positive whole number of bytes")]
    BadMaximum,
    #[error(transparent)]
    UnknownProtocol(#[from] UnknownProtocol),
    #[error(transparent)]
    Key(#[from] KeyError),
}

impl Config {
    pub fn parse(url: &str) -> Result<Self, ConfigError> {
        let parsed = url::Url::parse(url.trim()).map_err(|_| ConfigError::NotUrl)?;
        let project = http_url::host(&parsed).ok_or(ConfigError::NoProject)?;
        let dataset = parsed
            .path_segments()
            .into_iter()
            .flatten()
            .find(|s| !s.is_empty())
            .map(decoded)
            .ok_or(ConfigError::NoDataset)?;
        // Both are spliced into SQL and paths (quoted): only names BigQuery
        // itself allows.
        let project_ok = project
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | ':' | '.'));
        let dataset_ok = dataset
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !project_ok {
            return Err(ConfigError::BadName(project));
        }
        if !dataset_ok {
            return Err(ConfigError::BadName(dataset));
        }
        let parameter = |name: &str| http_url::parameter(&parsed, name);
        let account =
            service_account(&parameter("credentials").ok_or(ConfigError::NoCredentials)?)?;
        let maximum_bytes_billed = match parameter("maximum_bytes_billed") {
            Some(n) => n
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or(ConfigError::BadMaximum)?,
            None => DEFAULT_MAXIMUM_BYTES_BILLED,
        };
        let endpoint = endpoint(&parsed, "bigquery.googleapis.com")?;
        Ok(Config {
            endpoint,
            project,
            dataset,
            location: parameter("location"),
            maximum_bytes_billed,
            account,
        })
    }
}

/// The service account a base64 key file describes. A `+` of the standard
/// alphabet reads as a space in a query string: put back.
fn service_account(encoded: &str) -> Result<ServiceAccount, ConfigError> {
    let body: String = encoded
        .chars()
        .map(|c| if c == ' ' { '+' } else { c })
        .filter(|c| !c.is_whitespace())
        .collect();
    let json = [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(&body).ok())
        .ok_or(ConfigError::NotKeyFile)?;
    let file: KeyFile = serde_json::from_slice(&json).map_err(|_| ConfigError::NotKeyFile)?;
    if file.kind.as_deref().is_some_and(|k| k != "service_account") {
        return Err(ConfigError::NotKeyFile);
    }
    let (Some(email), Some(private_key)) = (file.client_email, file.private_key) else {
        return Err(ConfigError::NotKeyFile);
    };
    Ok(ServiceAccount {
        email,
        key_id: file.private_key_id,
        key: KeyPair::from_text(&private_key)?,
        token_uri: file
            .token_uri
            .unwrap_or_else(|| GOOGLE_TOKEN_URI.to_owned()),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A service account key file around the test RSA key.
    pub(crate) fn key_file(token_uri: &str) -> String {
        serde_json::json!({
            "type": "service_account",
            "project_id": "cassis-test",
            "private_key_id": "k1",
            "private_key": include_str!("../test_key.p8"),
            "client_email": "cassis-reader@cassis-test.iam.gserviceaccount.com",
            "token_uri": token_uri,
        })
        .to_string()
    }

    #[test]
    fn a_url_names_project_dataset_key_and_ceiling() {
        let key = STANDARD.encode(key_file("https://oauth2.googleapis.com/token"));
        let url = format!(
            "bigquery://my-project/f1?credentials={}&location=EU&maximum_bytes_billed=1000",
            key.replace('+', "%2B")
                .replace('/', "%2F")
                .replace('=', "%3D")
        );
        let config = Config::parse(&url).unwrap();
        assert_eq!(config.endpoint, "https://bigquery.googleapis.com");
        assert_eq!(config.project, "my-project");
        assert_eq!(config.dataset, "f1");
        assert_eq!(config.location.as_deref(), Some("EU"));
        assert_eq!(config.maximum_bytes_billed, 1000);
        assert_eq!(
            config.account.email,
            "cassis-reader@cassis-test.iam.gserviceaccount.com"
        );
        // The key never shows in the configuration's debug form.
        assert!(!format!("{config:?}").contains("PRIVATE"));
        assert!(!format!("{config:?}").contains(&key[..20]));
        // `+` left unescaped reads as a space in a query: still the key.
        let plain = format!("bigquery://p/d?credentials={key}");
        assert_eq!(
            Config::parse(&plain).unwrap().maximum_bytes_billed,
            DEFAULT_MAXIMUM_BYTES_BILLED
        );
    }

    #[test]
    fn incomplete_urls_say_what_is_missing() {
        for (url, expected) in [
            ("bigquery://p/d", "no service account key"),
            ("bigquery://p?credentials=e30", "names no dataset"),
            (
                "bigquery://p/d?credentials=bm90LWpzb24",
                "not a service account",
            ),
            ("bigquery://p/d-x?credentials=e30", "not a BigQuery name"),
            ("bigquery://p/d?credentials=e30", "not a service account"),
        ] {
            let error = Config::parse(url).unwrap_err().to_string();
            assert!(error.contains(expected), "{url}: {error}");
            assert!(!error.contains("bm90LWpzb24"), "{error}");
        }
    }
}
