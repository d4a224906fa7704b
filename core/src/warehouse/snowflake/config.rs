//! What a `snowflake://` URL says: who signs in, to which account, how, and
//! the database, schema, warehouse and role of the session.
//!
//! `snowflake://USER:SECRET@ACCOUNT/DATABASE[/SCHEMA]?warehouse=W&role=R`,
//! where SECRET is, by `authenticator=`:
//! - `snowflake` (the default): the user's password;
//! - `programmatic_access_token`: a programmatic access token;
//! - `snowflake_jwt`: the user's unencrypted RSA private key, the base64
//!   body of its `.p8` file (URL-safe alphabet, or percent-encoded).
//!
//! The secret sits where a URL's password does, so `redact_url` hides it in
//! everything shown or logged. `host=`, `port=` and `protocol=` reach a
//! server other than `ACCOUNT.snowflakecomputing.com` (a private link, or an
//! emulator in tests).

use crate::warehouse::http_url::{self, UnknownProtocol, decoded, endpoint};
use crate::warehouse::key_pair::{KeyError, KeyPair};

/// How the session signs in.
pub enum Credentials {
    Password(String),
    AccessToken(String),
    KeyPair(Box<KeyPair>),
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret.
        f.write_str(match self {
            Credentials::Password(_) => "Password",
            Credentials::AccessToken(_) => "AccessToken",
            Credentials::KeyPair(_) => "KeyPair",
        })
    }
}

#[derive(Debug)]
pub struct Config {
    /// `https://ACCOUNT.snowflakecomputing.com`, or what `host=` names.
    pub endpoint: String,
    pub account: String,
    pub user: String,
    pub credentials: Credentials,
    pub database: String,
    pub schema: Option<String>,
    pub warehouse: Option<String>,
    pub role: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("not a URL")]
    NotUrl,
    #[error("it names no account: snowflake://USER:SECRET@ACCOUNT/DATABASE")]
    NoAccount,
    #[error("it names no user: snowflake://USER:SECRET@ACCOUNT/DATABASE")]
    NoUser,
    #[error(
        "it has no password, token or key: give it as the URL's password (snowflake://USER:SECRET@ACCOUNT/DATABASE)"
    )]
    NoSecret,
    #[error("it names no database: snowflake://USER:SECRET@ACCOUNT/DATABASE[/SCHEMA]")]
    NoDatabase,
    #[error(
        "unknown authenticator `{0}`: use snowflake (password), programmatic_access_token or snowflake_jwt (key pair)"
    )]
    UnknownAuthenticator(String),
    #[error(transparent)]
    UnknownProtocol(#[from] UnknownProtocol),
    #[error(transparent)]
    Key(#[from] KeyError),
}

impl Config {
    pub fn parse(url: &str) -> Result<Self, ConfigError> {
        let parsed = url::Url::parse(url.trim()).map_err(|_| ConfigError::NotUrl)?;
        let account = http_url::host(&parsed).ok_or(ConfigError::NoAccount)?;
        let user = Some(decoded(parsed.username()))
            .filter(|u| !u.is_empty())
            .ok_or(ConfigError::NoUser)?;
        let secret = parsed
            .password()
            .map(decoded)
            .filter(|s| !s.is_empty())
            .ok_or(ConfigError::NoSecret)?;
        let mut path = parsed
            .path_segments()
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .map(decoded);
        let database = path.next().ok_or(ConfigError::NoDatabase)?;
        let schema = path.next();

        let parameter = |name: &str| http_url::parameter(&parsed, name);
        let credentials = match parameter("authenticator")
            .unwrap_or_else(|| "snowflake".into())
            .to_ascii_lowercase()
            .as_str()
        {
            "snowflake" => Credentials::Password(secret),
            "programmatic_access_token" => Credentials::AccessToken(secret),
            "snowflake_jwt" => Credentials::KeyPair(Box::new(KeyPair::from_text(&secret)?)),
            other => return Err(ConfigError::UnknownAuthenticator(other.to_owned())),
        };
        let endpoint = endpoint(&parsed, &format!("{account}.snowflakecomputing.com"))?;
        Ok(Config {
            endpoint,
            account,
            user,
            credentials,
            database,
            schema,
            warehouse: parameter("warehouse"),
            role: parameter("role"),
        })
    }

    /// The account name the sign-in request carries: an account locator
    /// without its region and cloud.
    pub fn account_name(&self) -> String {
        super::token::account_for_token(&self.account)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_account_user_secret_database_schema_warehouse_and_role() {
        let config = Config::parse(
            "snowflake://cassis_reader:pa%2Fss@myorg-analytics/SALES/PUBLIC?warehouse=WH&role=READER",
        )
        .unwrap();
        assert_eq!(
            config.endpoint,
            "https://myorg-analytics.snowflakecomputing.com"
        );
        assert_eq!(config.user, "cassis_reader");
        assert!(matches!(&config.credentials, Credentials::Password(p) if p == "pa/ss"));
        assert_eq!(config.database, "SALES");
        assert_eq!(config.schema.as_deref(), Some("PUBLIC"));
        assert_eq!(config.warehouse.as_deref(), Some("WH"));
        assert_eq!(config.role.as_deref(), Some("READER"));
        // The secret never shows in the configuration's debug form.
        assert!(!format!("{config:?}").contains("pa/ss"));

        let token = Config::parse(
            "snowflake://ana:tok@xy12345.us-east-1/DB?authenticator=programmatic_access_token&host=127.0.0.1&port=8080&protocol=http",
        )
        .unwrap();
        assert_eq!(token.endpoint, "http://127.0.0.1:8080");
        assert_eq!(token.account_name(), "XY12345");
        assert!(matches!(token.credentials, Credentials::AccessToken(_)));
    }

    #[test]
    fn incomplete_urls_say_what_is_missing() {
        for (url, expected) in [
            ("snowflake://ana@acct/DB", "no password, token or key"),
            ("snowflake://ana:pw@acct", "names no database"),
            ("snowflake://:pw@acct/DB", "names no user"),
            (
                "snowflake://ana:pw@acct/DB?authenticator=okta",
                "unknown authenticator",
            ),
            (
                "snowflake://ana:notakey@acct/DB?authenticator=snowflake_jwt",
                "private key",
            ),
        ] {
            let error = Config::parse(url).unwrap_err().to_string();
            assert!(error.contains(expected), "{url}: {error}");
            assert!(!error.contains("notakey"), "{error}");
        }
    }
}
