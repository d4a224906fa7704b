//! Effective settings: flags over `CASSIS_*` environment variables (both
//! handled by clap) over the TOML file over defaults.

use crate::cli::SettingsArgs;
use cassis_core::demo;
use cassis_core::engine::llm::{self, LlmPlanner, LlmProvider, LlmSettings};
use cassis_core::engine::{
    DEFAULT_MAX_QUERY_BYTES, DEFAULT_MAX_QUERY_COST, DEFAULT_QUESTION_TIMEOUT, EngineSettings,
};
use cassis_core::ontology;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The bounds of `--max-ontology-bytes`: small enough settings would refuse the
/// examples, large ones let one editor hold a worker for seconds.
const MIN_ONTOLOGY_BYTES: usize = 64 * 1024;
const MAX_ONTOLOGY_BYTES: usize = 256 * 1024 * 1024;

pub const DEFAULT_ADDR: &str = "127.0.0.1:3000";
/// Loopback only: a scraper on the same machine or a sidecar.
pub const DEFAULT_METRICS_ALLOW: &str = "127.0.0.0/8,::1";
pub const DEFAULT_DRAIN_TIMEOUT: u64 = 10;
/// Ten a second on average for one agent: far above what a person's agent
/// asks, low enough that a loop in one cannot take the server from others.
pub const DEFAULT_MCP_CALLS_PER_MINUTE: u32 = 600;
/// Shorter tokens are guessable over enough scrapes.
const MIN_METRICS_TOKEN_CHARS: usize = 16;
pub const DEFAULT_DATA_DIR: &str = "cassis-data";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines
    #[default]
    Text,
    /// One JSON object per line, for log collectors
    Json,
}

/// Who turns questions into plans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum PlannerKind {
    /// Offline and deterministic, no model
    #[default]
    Builtin,
    /// Claude through the Anthropic Messages API
    Anthropic,
    /// Any OpenAI-compatible chat completions endpoint
    Openai,
}

/// The anthropic model used when none is configured.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";

/// The model that plans, when one does; the API key is kept out of every
/// printed form of the settings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelSettings {
    pub url: String,
    pub model: String,
    pub name: String,
    /// Seconds per request.
    pub timeout: u64,
    #[serde(skip)]
    pub api_key: String,
}

/// The settings file: every key optional, unknown keys refused so a typo
/// cannot silently fall back to a default.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    addr: Option<SocketAddr>,
    public_url: Option<String>,
    site_root: Option<PathBuf>,
    no_demo: Option<bool>,
    demo_scale_factor: Option<f64>,
    log_format: Option<LogFormat>,
    question_timeout: Option<u64>,
    max_ontology_bytes: Option<usize>,
    warehouse_dir: Option<PathBuf>,
    max_query_cost: Option<f64>,
    max_query_bytes: Option<u64>,
    oauth_max_unused_clients: Option<usize>,
    planner: Option<PlannerKind>,
    llm_url: Option<String>,
    llm_model: Option<String>,
    llm_name: Option<String>,
    llm_timeout: Option<u64>,
    metrics_allow: Option<String>,
    trusted_proxies: Option<String>,
    metrics_token: Option<String>,
    drain_timeout: Option<u64>,
    mcp_calls_per_minute: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Settings {
    pub data_dir: PathBuf,
    pub database_url: String,
    pub addr: SocketAddr,
    /// Without a trailing slash, so paths can be appended.
    pub public_url: String,
    pub site_root: PathBuf,
    /// `None` when the demo project is disabled.
    pub demo_scale_factor: Option<f64>,
    pub log_format: LogFormat,
    /// Seconds a question may take before it is cancelled.
    pub question_timeout: u64,
    /// Bytes an ontology YAML document may have.
    pub max_ontology_bytes: usize,
    /// The folder SQLite data sources must be in.
    pub warehouse_dir: PathBuf,
    /// EXPLAIN cost above which a query waits for approval.
    pub max_query_cost: f64,
    /// Bytes a query may be estimated to read before it waits for approval.
    pub max_query_bytes: u64,
    /// Registered OAuth clients that were never used kept at most.
    pub oauth_max_unused_clients: usize,
    /// MCP without credentials, on loopback only (conformance tests).
    pub insecure_mcp_without_auth: bool,
    pub planner: PlannerKind,
    /// Set when `planner` is a model.
    pub model: Option<ModelSettings>,
    /// Networks that may read /metrics without the token.
    pub metrics_allow: Vec<ipnet::IpNet>,
    /// Reverse proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Lets any address read /metrics; never printed.
    #[serde(skip)]
    pub metrics_token: Option<String>,
    /// Seconds in-flight requests get on SIGTERM.
    pub drain_timeout: u64,
    /// MCP calls per credential per minute; 0 for no limit.
    pub mcp_calls_per_minute: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the settings file {path}: {source}")]
    ReadFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the settings file {path} is invalid: {message}")]
    ParseFile { path: PathBuf, message: String },
    #[error("the public URL `{0}` is not an absolute http:// or https:// URL")]
    PublicUrl(String),
    #[error("the public URL `{0}` must not carry a query or fragment")]
    PublicUrlExtras(String),
    #[error("--insecure-mcp-without-auth is only allowed on a loopback address, not {0}")]
    InsecureOnPublicAddress(SocketAddr),
    #[error("the maximum query cost must be a positive number, not {0}")]
    MaxQueryCost(f64),
    #[error("the most bytes a query may be estimated to read must be at least 1")]
    MaxQueryBytes,
    #[error("the most unused OAuth clients kept must be at least 1, not {0}")]
    OAuthMaxUnusedClients(usize),
    #[error("the question timeout must be between 1 and 3600 seconds, not {0}")]
    QuestionTimeout(u64),
    #[error(
        "the largest ontology must be between {MIN_ONTOLOGY_BYTES} and {MAX_ONTOLOGY_BYTES} bytes, not {0}"
    )]
    MaxOntologyBytes(usize),
    #[error("--planner {0} needs the model's API key in CASSIS_LLM_API_KEY")]
    LlmApiKeyMissing(&'static str),
    #[error("--planner openai needs --llm-model (the model the endpoint serves)")]
    LlmModelMissing,
    #[error("the model URL `{0}` is not an absolute http:// or https:// URL")]
    LlmUrl(String),
    #[error("the model request timeout must be between 1 and 600 seconds, not {0}")]
    LlmTimeout(u64),
    #[error("the model's HTTP client could not start: {0}")]
    LlmClient(String),
    #[error("--metrics-allow: `{0}` is not a network (such as 10.0.0.0/8) or an address")]
    MetricsAllow(String),
    #[error("--trusted-proxies: `{0}` is not a network (such as 10.0.0.0/8) or an address")]
    TrustedProxies(String),
    #[error("the metrics token must have at least {MIN_METRICS_TOKEN_CHARS} characters")]
    MetricsToken,
    #[error("the drain timeout must be between 1 and 3600 seconds, not {0}")]
    DrainTimeout(u64),
    #[error("the demo scale factor must be between {min} and {max}, not {value}", min = demo::MIN_SCALE_FACTOR, max = demo::MAX_SCALE_FACTOR)]
    DemoScaleFactor { value: f64 },
}

impl Settings {
    pub fn resolve(args: &SettingsArgs) -> Result<Self, ConfigError> {
        let file = match &args.config {
            Some(path) => read_file(path)?,
            None => FileSettings::default(),
        };
        let data_dir = args
            .data_dir
            .clone()
            .or(file.data_dir)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR));
        let database_url = args
            .database_url
            .clone()
            .or(file.database_url)
            .unwrap_or_else(|| format!("sqlite://{}", data_dir.join("cassis.sqlite").display()));
        let addr = args
            .addr
            .or(file.addr)
            .unwrap_or_else(|| DEFAULT_ADDR.parse().expect("valid default address"));
        let public_url = match args.public_url.clone().or(file.public_url) {
            Some(url) => normalize_public_url(&url)?,
            None => format!("http://{addr}"),
        };
        let site_root = args
            .site_root
            .clone()
            .or(file.site_root)
            .or_else(|| std::env::var_os("LEPTOS_SITE_ROOT").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("target/site"));
        let no_demo = args.no_demo.or(file.no_demo).unwrap_or(false);
        let scale_factor = args
            .demo_scale_factor
            .or(file.demo_scale_factor)
            .unwrap_or(demo::DEFAULT_SCALE_FACTOR);
        if !(demo::MIN_SCALE_FACTOR..=demo::MAX_SCALE_FACTOR).contains(&scale_factor) {
            return Err(ConfigError::DemoScaleFactor {
                value: scale_factor,
            });
        }
        let question_timeout = args
            .question_timeout
            .or(file.question_timeout)
            .unwrap_or(DEFAULT_QUESTION_TIMEOUT.as_secs());
        if !(1..=3600).contains(&question_timeout) {
            return Err(ConfigError::QuestionTimeout(question_timeout));
        }
        let max_ontology_bytes = args
            .max_ontology_bytes
            .or(file.max_ontology_bytes)
            .unwrap_or(ontology::DEFAULT_MAX_YAML_BYTES);
        if !(MIN_ONTOLOGY_BYTES..=MAX_ONTOLOGY_BYTES).contains(&max_ontology_bytes) {
            return Err(ConfigError::MaxOntologyBytes(max_ontology_bytes));
        }
        if args.insecure_mcp_without_auth && !addr.ip().is_loopback() {
            return Err(ConfigError::InsecureOnPublicAddress(addr));
        }
        let max_query_cost = args
            .max_query_cost
            .or(file.max_query_cost)
            .unwrap_or(DEFAULT_MAX_QUERY_COST);
        if !(max_query_cost.is_finite() && max_query_cost > 0.0) {
            return Err(ConfigError::MaxQueryCost(max_query_cost));
        }
        let max_query_bytes = args
            .max_query_bytes
            .or(file.max_query_bytes)
            .unwrap_or(DEFAULT_MAX_QUERY_BYTES);
        if max_query_bytes == 0 {
            return Err(ConfigError::MaxQueryBytes);
        }
        let oauth_max_unused_clients = args
            .oauth_max_unused_clients
            .or(file.oauth_max_unused_clients)
            .unwrap_or(crate::oauth::DEFAULT_MAX_UNUSED_CLIENTS);
        if oauth_max_unused_clients == 0 {
            return Err(ConfigError::OAuthMaxUnusedClients(oauth_max_unused_clients));
        }
        let metrics_allow = parse_networks(
            args.metrics_allow
                .as_deref()
                .or(file.metrics_allow.as_deref())
                .unwrap_or(DEFAULT_METRICS_ALLOW),
            ConfigError::MetricsAllow,
        )?;
        let trusted_proxies = parse_networks(
            args.trusted_proxies
                .as_deref()
                .or(file.trusted_proxies.as_deref())
                .unwrap_or(""),
            ConfigError::TrustedProxies,
        )?;
        let metrics_token = args
            .metrics_token
            .clone()
            .or(file.metrics_token)
            .map(|token| token.trim().to_owned());
        if metrics_token
            .as_ref()
            .is_some_and(|token| token.chars().count() < MIN_METRICS_TOKEN_CHARS)
        {
            return Err(ConfigError::MetricsToken);
        }
        let drain_timeout = args
            .drain_timeout
            .or(file.drain_timeout)
            .unwrap_or(DEFAULT_DRAIN_TIMEOUT);
        if !(1..=3600).contains(&drain_timeout) {
            return Err(ConfigError::DrainTimeout(drain_timeout));
        }
        let mcp_calls_per_minute = args
            .mcp_calls_per_minute
            .or(file.mcp_calls_per_minute)
            .unwrap_or(DEFAULT_MCP_CALLS_PER_MINUTE);
        let planner = args.planner.or(file.planner).unwrap_or_default();
        let model = match planner {
            PlannerKind::Builtin => None,
            PlannerKind::Anthropic | PlannerKind::Openai => {
                let provider = provider_of(planner).expect("a model planner");
                let api_key = std::env::var("CASSIS_LLM_API_KEY")
                    .ok()
                    .filter(|key| !key.trim().is_empty())
                    .ok_or(ConfigError::LlmApiKeyMissing(planner.as_str()))?;
                let url = args
                    .llm_url
                    .clone()
                    .or(file.llm_url)
                    .unwrap_or_else(|| provider.default_url().to_owned());
                match url::Url::parse(&url) {
                    Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {}
                    _ => return Err(ConfigError::LlmUrl(url)),
                }
                let model = match (args.llm_model.clone().or(file.llm_model), planner) {
                    (Some(model), _) => model,
                    (None, PlannerKind::Anthropic) => DEFAULT_ANTHROPIC_MODEL.to_owned(),
                    (None, _) => return Err(ConfigError::LlmModelMissing),
                };
                let timeout = args
                    .llm_timeout
                    .or(file.llm_timeout)
                    .unwrap_or(llm::DEFAULT_REQUEST_TIMEOUT.as_secs());
                if !(1..=600).contains(&timeout) {
                    return Err(ConfigError::LlmTimeout(timeout));
                }
                Some(ModelSettings {
                    url: url.trim_end_matches('/').to_owned(),
                    model,
                    name: args
                        .llm_name
                        .clone()
                        .or(file.llm_name)
                        .unwrap_or_else(|| provider.default_name().to_owned()),
                    timeout,
                    api_key,
                })
            }
        };
        Ok(Settings {
            planner,
            model,
            metrics_allow,
            trusted_proxies,
            metrics_token,
            drain_timeout,
            mcp_calls_per_minute,
            max_query_cost,
            max_query_bytes,
            oauth_max_unused_clients,
            insecure_mcp_without_auth: args.insecure_mcp_without_auth,
            question_timeout,
            max_ontology_bytes,
            warehouse_dir: args
                .warehouse_dir
                .clone()
                .or(file.warehouse_dir)
                .unwrap_or_else(|| data_dir.join("warehouses")),
            data_dir,
            database_url,
            addr,
            public_url,
            site_root,
            demo_scale_factor: (!no_demo).then_some(scale_factor),
            log_format: args.log_format.or(file.log_format).unwrap_or_default(),
        })
    }

    /// What the question engine needs of these settings.
    pub fn engine(&self) -> Result<EngineSettings, ConfigError> {
        let planner = match (&self.model, provider_of(self.planner)) {
            (Some(model), Some(provider)) => Some(
                LlmPlanner::new(LlmSettings {
                    provider,
                    url: model.url.clone(),
                    model: model.model.clone(),
                    api_key: model.api_key.clone(),
                    name: model.name.clone(),
                    request_timeout: Duration::from_secs(model.timeout),
                    attempts: llm::DEFAULT_ATTEMPTS,
                    backoff: llm::DEFAULT_BACKOFF,
                })
                .map_err(|e| ConfigError::LlmClient(e.to_string()))?,
            ),
            _ => None,
        };
        Ok(EngineSettings {
            question_timeout: Duration::from_secs(self.question_timeout),
            max_query_cost: self.max_query_cost,
            max_query_bytes: self.max_query_bytes,
            planner,
        })
    }

    /// The settings as TOML, with any database password masked.
    pub fn to_redacted_toml(&self) -> String {
        let mut shown = self.clone();
        shown.database_url = cassis_core::project::redact_url(&self.database_url);
        toml::to_string(&shown).expect("settings serialize to TOML")
    }
}

impl PlannerKind {
    fn as_str(self) -> &'static str {
        match self {
            PlannerKind::Builtin => "builtin",
            PlannerKind::Anthropic => "anthropic",
            PlannerKind::Openai => "openai",
        }
    }
}

fn provider_of(planner: PlannerKind) -> Option<LlmProvider> {
    match planner {
        PlannerKind::Builtin => None,
        PlannerKind::Anthropic => Some(LlmProvider::Anthropic),
        PlannerKind::Openai => Some(LlmProvider::Openai),
    }
}

/// Comma-separated networks; a bare address is a network of one.
fn parse_networks(
    list: &str,
    invalid: fn(String) -> ConfigError,
) -> Result<Vec<ipnet::IpNet>, ConfigError> {
    list.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.parse::<ipnet::IpNet>()
                .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map(|net| net.trunc())
                .map_err(|_| invalid(item.to_owned()))
        })
        .collect()
}

fn read_file(path: &Path) -> Result<FileSettings, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::ReadFile {
        path: path.to_owned(),
        source,
    })?;
    toml::from_str(&text).map_err(|e| ConfigError::ParseFile {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

fn normalize_public_url(input: &str) -> Result<String, ConfigError> {
    let url =
        url::Url::parse(input.trim()).map_err(|_| ConfigError::PublicUrl(input.to_owned()))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(ConfigError::PublicUrl(input.to_owned()));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(ConfigError::PublicUrlExtras(input.to_owned()));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args_with_file(contents: &str) -> (SettingsArgs, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cassis.toml");
        std::fs::write(&path, contents).unwrap();
        (
            SettingsArgs {
                config: Some(path),
                ..SettingsArgs::default()
            },
            dir,
        )
    }

    #[test]
    fn defaults_put_everything_in_the_data_directory() {
        let settings = Settings::resolve(&SettingsArgs {
            site_root: Some("site".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(settings.addr, DEFAULT_ADDR.parse().unwrap());
        assert_eq!(settings.database_url, "sqlite://cassis-data/cassis.sqlite");
        assert_eq!(settings.public_url, "http://127.0.0.1:3000");
        assert_eq!(settings.demo_scale_factor, Some(0.01));
    }

    #[test]
    fn the_file_fills_what_flags_leave_open() {
        let (mut args, _dir) = args_with_file(
            "addr = \"0.0.0.0:8080\"\ndata_dir = \"/srv/cassis\"\npublic_url = \"https://cassis.example.com/\"\nno_demo = true\n",
        );
        args.addr = Some("127.0.0.1:9000".parse().unwrap());
        let settings = Settings::resolve(&args).unwrap();
        assert_eq!(
            settings.addr,
            "127.0.0.1:9000".parse().unwrap(),
            "a flag beats the file"
        );
        assert_eq!(settings.database_url, "sqlite:///srv/cassis/cassis.sqlite");
        assert_eq!(
            settings.public_url, "https://cassis.example.com",
            "trailing slash removed"
        );
        assert_eq!(settings.demo_scale_factor, None);
    }

    #[test]
    fn a_database_url_overrides_the_data_directory_file() {
        let args = SettingsArgs {
            database_url: Some("postgres://u:p@db/cassis".into()),
            ..Default::default()
        };
        let settings = Settings::resolve(&args).unwrap();
        assert_eq!(settings.database_url, "postgres://u:p@db/cassis");
        assert!(
            settings
                .to_redacted_toml()
                .contains("postgres://u:***@db/cassis")
        );
        assert!(!settings.to_redacted_toml().contains(":p@"));
    }

    #[test]
    fn file_errors_name_the_file_and_the_line() {
        let (args, _dir) = args_with_file("addr = \"0.0.0.0:8080\"\npublic_ulr = \"https://x\"\n");
        let err = Settings::resolve(&args).unwrap_err().to_string();
        assert!(err.contains("cassis.toml"), "{err}");
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("public_ulr"), "{err}");

        let missing = SettingsArgs {
            config: Some("/nonexistent/cassis.toml".into()),
            ..Default::default()
        };
        assert!(matches!(
            Settings::resolve(&missing),
            Err(ConfigError::ReadFile { .. })
        ));
    }

    #[test]
    fn public_urls_must_be_absolute_http() {
        for bad in [
            "cassis.example.com",
            "ftp://x",
            "https://x/?a=1",
            "/relative",
        ] {
            let args = SettingsArgs {
                public_url: Some(bad.into()),
                ..Default::default()
            };
            assert!(Settings::resolve(&args).is_err(), "{bad}");
        }
        let args = SettingsArgs {
            public_url: Some("https://example.com/cassis/".into()),
            ..Default::default()
        };
        assert_eq!(
            Settings::resolve(&args).unwrap().public_url,
            "https://example.com/cassis"
        );
    }

    #[test]
    fn scale_factors_are_bounded() {
        let args = SettingsArgs {
            demo_scale_factor: Some(100.0),
            ..Default::default()
        };
        assert!(matches!(
            Settings::resolve(&args),
            Err(ConfigError::DemoScaleFactor { .. })
        ));
    }

    #[test]
    fn metrics_are_for_loopback_unless_configured() {
        let settings = Settings::resolve(&SettingsArgs::default()).unwrap();
        assert_eq!(
            settings.metrics_allow,
            vec![
                "127.0.0.0/8".parse::<ipnet::IpNet>().unwrap(),
                "::1/128".parse().unwrap()
            ]
        );
        let (args, _dir) = args_with_file(
            "metrics_allow = \"10.1.2.3, 192.168.0.0/16\"\nmetrics_token = \"a-token-long-enough\"\n",
        );
        let settings = Settings::resolve(&args).unwrap();
        assert_eq!(settings.metrics_allow.len(), 2);
        assert_eq!(settings.metrics_allow[0].to_string(), "10.1.2.3/32");
        assert!(
            !settings.to_redacted_toml().contains("a-token-long-enough"),
            "the token is never printed"
        );
        for (allow, token) in [(Some("10.0.0.0/33"), None), (None, Some("short"))] {
            let args = SettingsArgs {
                metrics_allow: allow.map(Into::into),
                metrics_token: token.map(Into::into),
                ..Default::default()
            };
            assert!(Settings::resolve(&args).is_err(), "{allow:?} {token:?}");
        }
        let none = SettingsArgs {
            metrics_allow: Some(String::new()),
            ..Default::default()
        };
        assert!(Settings::resolve(&none).unwrap().metrics_allow.is_empty());
    }

    #[test]
    fn no_proxy_is_trusted_unless_listed() {
        let defaults = Settings::resolve(&SettingsArgs::default()).unwrap();
        assert!(defaults.trusted_proxies.is_empty());
        let listed = SettingsArgs {
            trusted_proxies: Some("10.0.0.5, fd00::/8".into()),
            ..Default::default()
        };
        let trusted = Settings::resolve(&listed).unwrap().trusted_proxies;
        assert_eq!(trusted[0].to_string(), "10.0.0.5/32");
        assert_eq!(trusted[1].to_string(), "fd00::/8");
        let wrong = SettingsArgs {
            trusted_proxies: Some("proxy.internal".into()),
            ..Default::default()
        };
        assert!(matches!(
            Settings::resolve(&wrong),
            Err(ConfigError::TrustedProxies(item)) if item == "proxy.internal"
        ));
    }

    #[test]
    fn question_timeouts_are_bounded_and_default_to_five_minutes() {
        assert_eq!(
            Settings::resolve(&SettingsArgs::default())
                .unwrap()
                .question_timeout,
            300
        );
        for bad in [0, 3601] {
            let args = SettingsArgs {
                question_timeout: Some(bad),
                ..Default::default()
            };
            assert!(matches!(
                Settings::resolve(&args),
                Err(ConfigError::QuestionTimeout(_))
            ));
        }
    }
}
