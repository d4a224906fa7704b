//! The command line: global settings and the subcommands.

use crate::config::{LogFormat, PlannerKind};
use clap::builder::BoolishValueParser;
use clap::{Args, Parser, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Every setting is read from, in order of precedence: its flag, its CASSIS_*
environment variable, the TOML file given by --config (keys are the flag
names with underscores, e.g. public_url = \"https://cassis.example.com\"),
then its default.

Set only through the environment:
  CASSIS_ADMIN_EMAIL     email of the first admin, created on first start
                         [default: admin@cassis.local]
  CASSIS_ADMIN_PASSWORD  password of the first admin; when unset, one is
                         generated and printed once on first start
  CASSIS_LLM_API_KEY     API key of the model --planner names (anthropic or openai)
  RUST_LOG               log filter, e.g. info or cassis=debug [default: info]";

/// Cassis: ask business questions about your data, grounded in an ontology
/// your data team curates. Serves the admin app and the MCP endpoint.
#[derive(Debug, Parser)]
#[command(name = "cassis", version, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(flatten)]
    pub settings: SettingsArgs,

    /// What to do; `serve` when omitted.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Settings shared by every subcommand.
#[derive(Debug, Default, Args)]
pub struct SettingsArgs {
    /// TOML file to read settings from
    #[arg(long, env = "CASSIS_CONFIG", global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Directory for the SQLite metadata database and the demo warehouse [default: ./cassis-data]
    #[arg(long, env = "CASSIS_DATA_DIR", global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Metadata database: sqlite://PATH or postgres://USER:PASSWORD@HOST/DB; overrides the SQLite file in the data directory
    #[arg(
        long,
        env = "CASSIS_DATABASE_URL",
        global = true,
        value_name = "URL",
        hide_env_values = true
    )]
    pub database_url: Option<String>,

    /// Address to listen on [default: 127.0.0.1:3000]
    #[arg(long, env = "CASSIS_ADDR", global = true, value_name = "HOST:PORT")]
    pub addr: Option<SocketAddr>,

    /// Base URL users and MCP clients reach this server at; the MCP resource and OAuth metadata are built from it [default: http://ADDR]
    #[arg(long, env = "CASSIS_PUBLIC_URL", global = true, value_name = "URL")]
    pub public_url: Option<String>,

    /// Directory of the built web assets (CSS, JS, WebAssembly) [default: $LEPTOS_SITE_ROOT, else target/site]
    #[arg(long, env = "CASSIS_SITE_ROOT", global = true, value_name = "DIR")]
    pub site_root: Option<PathBuf>,

    /// Do not create the demo project on first start
    #[arg(long, env = "CASSIS_NO_DEMO", global = true, num_args = 0..=1, default_missing_value = "true", value_parser = BoolishValueParser::new())]
    pub no_demo: Option<bool>,

    /// TPC-H scale factor of the demo warehouse, 0.01 to 10 [default: 0.01]
    #[arg(
        long,
        env = "CASSIS_DEMO_SCALE_FACTOR",
        global = true,
        value_name = "SF"
    )]
    pub demo_scale_factor: Option<f64>,

    /// Log line format [default: text]
    #[arg(long, env = "CASSIS_LOG_FORMAT", global = true, value_enum)]
    pub log_format: Option<LogFormat>,

    /// For protocol conformance suites only: MCP requests need no credential and act as the first admin. Refused unless --addr is a loopback address
    #[arg(long, global = true, hide_short_help = true)]
    pub insecure_mcp_without_auth: bool,

    /// PostgreSQL sources: a query whose EXPLAIN cost is above this waits for the user's approval [default: 10000000]
    #[arg(
        long,
        env = "CASSIS_MAX_QUERY_COST",
        global = true,
        value_name = "COST"
    )]
    pub max_query_cost: Option<f64>,

    /// BigQuery and Snowflake sources: a query estimated to read more bytes than this waits for the user's approval [default: 10737418240, 10 GiB]
    #[arg(
        long,
        env = "CASSIS_MAX_QUERY_BYTES",
        global = true,
        value_name = "BYTES"
    )]
    pub max_query_bytes: Option<u64>,

    /// Seconds a question may run before it is cancelled and answered with an error [default: 300]
    #[arg(
        long,
        env = "CASSIS_QUESTION_TIMEOUT",
        global = true,
        value_name = "SECONDS"
    )]
    pub question_timeout: Option<u64>,

    /// The folder SQLite data sources must be in; projects cannot name a file elsewhere [default: <data-dir>/warehouses]
    #[arg(long, env = "CASSIS_WAREHOUSE_DIR", global = true, value_name = "DIR")]
    pub warehouse_dir: Option<PathBuf>,

    /// Bytes an ontology YAML document may have, in the app and on import [default: 4194304]
    #[arg(
        long,
        env = "CASSIS_MAX_ONTOLOGY_BYTES",
        global = true,
        value_name = "BYTES"
    )]
    pub max_ontology_bytes: Option<usize>,

    /// Client registrations (/oauth/register) that were never used kept at most; beyond it registration is refused until unused ones expire after a day [default: 1000]
    #[arg(
        long,
        env = "CASSIS_OAUTH_MAX_UNUSED_CLIENTS",
        global = true,
        value_name = "N"
    )]
    pub oauth_max_unused_clients: Option<usize>,

    /// Reverse proxies whose X-Forwarded-For names the client, comma-separated CIDRs or addresses; from anyone else the header is ignored [default: none]
    #[arg(
        long,
        env = "CASSIS_TRUSTED_PROXIES",
        global = true,
        value_name = "CIDR,..."
    )]
    pub trusted_proxies: Option<String>,

    /// Networks that may read /metrics without a token, comma-separated CIDRs or addresses; empty for none [default: 127.0.0.0/8,::1]
    #[arg(
        long,
        env = "CASSIS_METRICS_ALLOW",
        global = true,
        value_name = "CIDR,..."
    )]
    pub metrics_allow: Option<String>,

    /// A bearer token that lets any address read /metrics (at least 16 characters); better set through the environment [default: none]
    #[arg(
        long,
        env = "CASSIS_METRICS_TOKEN",
        global = true,
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub metrics_token: Option<String>,

    /// On SIGTERM: seconds in-flight requests get to finish before the server exits anyway [default: 10]
    #[arg(
        long,
        env = "CASSIS_DRAIN_TIMEOUT",
        global = true,
        value_name = "SECONDS"
    )]
    pub drain_timeout: Option<u64>,

    /// MCP calls one API key or OAuth grant may make per minute (all at once, then refilled evenly); beyond it 429 with Retry-After; 0 for no limit [default: 600]
    #[arg(
        long,
        env = "CASSIS_MCP_CALLS_PER_MINUTE",
        global = true,
        value_name = "N"
    )]
    pub mcp_calls_per_minute: Option<u32>,

    /// Who turns questions into plans: the built-in planner (offline, deterministic), Claude through the Anthropic Messages API, or any OpenAI-compatible chat completions endpoint; the model's key is read from CASSIS_LLM_API_KEY [default: builtin]
    #[arg(long, env = "CASSIS_PLANNER", global = true, value_enum)]
    pub planner: Option<PlannerKind>,

    /// Base URL of the model's API [default: https://api.anthropic.com or https://api.openai.com/v1]
    #[arg(long, env = "CASSIS_LLM_URL", global = true, value_name = "URL")]
    pub llm_url: Option<String>,

    /// Model to plan with [default for anthropic: claude-sonnet-4-5; required for openai]
    #[arg(long, env = "CASSIS_LLM_MODEL", global = true, value_name = "MODEL")]
    pub llm_model: Option<String>,

    /// How answers and messages name the model [default: Claude, or "The model" for openai]
    #[arg(long, env = "CASSIS_LLM_NAME", global = true, value_name = "NAME")]
    pub llm_name: Option<String>,

    /// Seconds one request to the model may take before it is retried [default: 60]
    #[arg(
        long,
        env = "CASSIS_LLM_TIMEOUT",
        global = true,
        value_name = "SECONDS"
    )]
    pub llm_timeout: Option<u64>,
}

/// Settings every command reads: where the metadata lives and how it logs.
const EVERY_COMMAND: [&str; 4] = ["config", "data_dir", "database_url", "log_format"];

/// The question engine's settings, for the commands that answer questions:
/// `ask`, `eval`, and publishing, which asks the verified questions first.
const ENGINE: [&str; 8] = [
    "planner",
    "llm_url",
    "llm_model",
    "llm_name",
    "llm_timeout",
    "question_timeout",
    "max_query_cost",
    "max_query_bytes",
];

/// The settings a (sub)command reads beyond [`EVERY_COMMAND`], by its path
/// of names; `None` for all of them (`serve` and `check-config`).
fn settings_read_by(path: &[&str]) -> Option<Vec<&'static str>> {
    Some(match path {
        ["serve"] | ["check-config"] => return None,
        ["ask"] | ["eval"] => ENGINE.to_vec(),
        ["ontology", "import"] => [&ENGINE[..], &["max_ontology_bytes"]].concat(),
        ["ontology", "publish"] => ENGINE.to_vec(),
        ["project", "create"] => vec!["warehouse_dir"],
        _ => Vec::new(),
    })
}

impl Cli {
    /// The command line, where each subcommand's help lists only the
    /// settings it reads. The others stay global, so one settings file or
    /// environment serves every command, but they are hidden where they do
    /// not apply: `cassis user create --help` does not offer `--planner`.
    pub fn command_with_scoped_help() -> clap::Command {
        fn scope(command: &mut clap::Command, settings: &[String], path: &mut Vec<String>) {
            for sub in command.get_subcommands_mut() {
                path.push(sub.get_name().to_owned());
                let names: Vec<&str> = path.iter().map(String::as_str).collect();
                if let Some(read) = settings_read_by(&names) {
                    let taken = std::mem::replace(sub, clap::Command::new("cassis"));
                    *sub = taken.mut_args(|arg| {
                        let id = arg.get_id().as_str();
                        let setting = settings.iter().any(|s| s == id);
                        if !setting {
                            arg
                        } else if EVERY_COMMAND.contains(&id) || read.contains(&id) {
                            // After the command's own options.
                            arg.display_order(1000)
                        } else {
                            arg.hide(true)
                        }
                    });
                }
                scope(sub, settings, path);
                path.pop();
            }
        }
        let mut command = <Cli as clap::CommandFactory>::command();
        // Built first, so that the global settings are copied into every
        // subcommand before they are hidden there.
        command.build();
        let settings: Vec<String> = SettingsArgs::augment_args(clap::Command::new("settings"))
            .get_arguments()
            .map(|arg| arg.get_id().to_string())
            .collect();
        scope(&mut command, &settings, &mut Vec::new());
        command
    }

    /// Parses the process's arguments with [`Cli::command_with_scoped_help`];
    /// exits with clap's message on a usage error, as `Cli::parse` does.
    pub fn parse_scoped() -> Cli {
        use clap::FromArgMatches;
        let matches = Self::command_with_scoped_help().get_matches();
        Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the server: admin app, MCP endpoint, health checks
    Serve,
    /// Apply pending metadata database migrations and exit
    Migrate,
    /// Print the effective settings after flags, environment and file, then exit
    CheckConfig,
    /// Copy the SQLite metadata database to FILE, consistently, while the server runs (PostgreSQL: use pg_dump)
    Backup {
        /// Where to write the copy
        file: PathBuf,
        /// Replace FILE if it exists
        #[arg(long)]
        force: bool,
    },
    /// Replace the SQLite metadata database by a backup, after checking it; the server must be stopped
    Restore {
        /// A file `cassis backup` wrote
        file: PathBuf,
        /// Replace the existing metadata database
        #[arg(long)]
        force: bool,
    },
    /// Manage users
    #[command(subcommand)]
    User(UserCommand),
    /// Manage projects
    #[command(subcommand)]
    Project(ProjectCommand),
    /// Import, export, publish and compare ontologies
    #[command(subcommand)]
    Ontology(OntologyCommand),
    /// Work on data sources directly
    #[command(subcommand)]
    Warehouse(WarehouseCommand),
    /// Manage API keys for agents and scripts
    #[command(subcommand)]
    Apikey(ApiKeyCommand),
    /// Ask a project a question and print the response as JSON, as the MCP tool returns it
    Ask {
        /// The project's name or id
        #[arg(long)]
        project: String,
        /// Continue this chat (follow-ups, approvals)
        #[arg(long, value_name = "CHAT_ID")]
        chat: Option<String>,
        /// Run the plan the chat's last answer left waiting for approval
        #[arg(long)]
        execute_pending_plan: bool,
        /// Ask as this user [default: the first admin]
        #[arg(long, value_name = "EMAIL")]
        user: Option<String>,
        /// The question; read from standard input when omitted
        question: Option<String>,
    },
    /// Run a question set (YAML) through the engine and print the accuracy per category
    Eval {
        /// The project's name or id
        #[arg(long)]
        project: String,
        /// Ask as this user [default: the first admin]
        #[arg(long, value_name = "EMAIL")]
        user: Option<String>,
        /// Exit with an error when the overall accuracy is below this fraction, such as 0.8
        #[arg(long, value_name = "FRACTION")]
        min_accuracy: Option<f64>,
        /// Print each question that failed and why
        #[arg(long, short)]
        verbose: bool,
        /// The question set
        file: std::path::PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum ApiKeyCommand {
    /// Create a key that acts for a user and print it; it is shown only once
    Create {
        /// The user the key acts for
        #[arg(long, value_name = "EMAIL")]
        user: String,
        /// What the key is for, such as "nightly report"
        #[arg(long)]
        name: String,
        /// Lifetime such as 90d, 12h or 30m [default: no expiry]
        #[arg(long, value_name = "LIFETIME")]
        expires: Option<String>,
    },
    /// List the organization's keys (never the keys themselves)
    List,
    /// Revoke a key by its id
    Revoke {
        /// The key's id, from `cassis apikey list`
        id: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum WarehouseCommand {
    /// Create one table per CSV file of a folder, with inferred column types and id primary keys
    LoadCsv {
        /// Database to load into: sqlite://PATH, postgres://..., mysql://... or snowflake://...
        #[arg(long, value_name = "URL")]
        warehouse: String,
        /// Folder of .csv files, each with a header row; `\N` and empty fields are NULL
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// PostgreSQL or Snowflake schema (MySQL database) for the tables, created when missing
        #[arg(long)]
        schema: Option<String>,
        /// Name tables and columns in snake_case (raceId becomes race_id)
        #[arg(long)]
        snake_case: bool,
        /// Drop existing tables of the same names first
        #[arg(long)]
        replace: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a user in the organization; reads the password from standard input
    Create {
        /// The user's email, which they sign in with
        #[arg(long)]
        email: String,
        /// admin, editor or viewer
        #[arg(long, default_value = "viewer")]
        role: cassis_core::account::Role,
    },
    /// List the organization's users
    List,
}

#[derive(Debug, Subcommand)]
pub enum ProjectCommand {
    /// Create a project and print its id
    Create {
        /// The project's name, unique in the organization
        #[arg(long)]
        name: String,
        /// Connection URL of the data source Cassis runs SQL on: sqlite://PATH, postgres://...,
        /// mysql://..., snowflake://USER:SECRET@ACCOUNT/DATABASE/SCHEMA?warehouse=W&role=R or
        /// bigquery://PROJECT/DATASET?credentials=KEY (the service account's JSON key file in base64)
        #[arg(long, value_name = "URL", required_unless_present = "schema_only")]
        warehouse: Option<String>,
        /// Cassis writes SQL for this source but never runs it
        #[arg(long, requires = "dialect", conflicts_with = "warehouse")]
        schema_only: bool,
        /// SQL dialect [default: from the warehouse URL]
        #[arg(long)]
        dialect: Option<cassis_core::project::Dialect>,
        #[arg(long, default_value = "")]
        description: String,
        /// Bootstrap the draft ontology from the warehouse's tables, columns and foreign keys
        #[arg(long, requires = "warehouse")]
        introspect: bool,
        /// Only this schema when introspecting PostgreSQL or Snowflake (database on MySQL)
        #[arg(long, requires = "introspect")]
        schema: Option<String>,
        /// Bootstrap the draft ontology from a file of CREATE TABLE statements in the dialect
        #[arg(long, value_name = "FILE", conflicts_with = "introspect")]
        ddl: Option<PathBuf>,
    },
    /// List the organization's projects
    List {
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum OntologyCommand {
    /// Validate a YAML file and make it the project's draft; every problem is reported with its line
    Import {
        /// Project id or name
        #[arg(long)]
        project: String,
        /// The ontology as YAML (a dbt project's folder with --from dbt)
        file: PathBuf,
        /// What the file is: Cassis's YAML, a dbt project's semantic layer or a Snowflake Cortex Analyst semantic model; what has no Cassis equivalent is listed as a warning
        #[arg(long, value_enum, default_value = "cassis")]
        from: crate::commands::semantic_layers::ImportFormat,
        /// Also publish it as the next version
        #[arg(long)]
        publish: bool,
        /// Publish even if verified questions would get a different answer or none
        #[arg(long, requires = "publish")]
        force: bool,
        /// Why this version exists, shown in the version history
        #[arg(long, default_value = "")]
        note: String,
        /// Act as this user [default: the first admin]
        #[arg(long = "as", value_name = "EMAIL")]
        as_user: Option<String>,
    },
    /// Print a published version (the latest by default) or the draft as YAML
    Export {
        #[arg(long)]
        project: String,
        #[arg(long, conflicts_with = "draft")]
        version: Option<u32>,
        /// Export the draft instead of a published version
        #[arg(long)]
        draft: bool,
        /// Cassis's YAML, or a Snowflake Cortex Analyst semantic model that `import --from snowflake` reads back
        #[arg(long, value_enum, default_value = "cassis")]
        to: crate::commands::semantic_layers::ExportFormat,
        /// With --to snowflake: the database of tables named without one
        #[arg(long, requires = "to")]
        database: Option<String>,
        /// With --to snowflake: the schema of tables named without one
        #[arg(long, requires = "to")]
        schema: Option<String>,
    },
    /// Publish the project's draft as the next immutable version, unless a verified question would get a different answer or none
    Publish {
        #[arg(long)]
        project: String,
        #[arg(long, default_value = "")]
        note: String,
        /// Publish even if verified questions would get a different answer or none
        #[arg(long)]
        force: bool,
        #[arg(long = "as", value_name = "EMAIL")]
        as_user: Option<String>,
    },
    /// List the project's published versions, newest first
    Versions {
        #[arg(long)]
        project: String,
    },
    /// Show what changed between two versions [default: the latest version and the draft]
    Diff {
        #[arg(long)]
        project: String,
        #[arg(long)]
        from: Option<u32>,
        #[arg(long)]
        to: Option<u32>,
    },
    /// Publish an old version's content as the next version
    Rollback {
        #[arg(long)]
        project: String,
        #[arg(long)]
        to: u32,
        #[arg(long, default_value = "")]
        note: String,
        #[arg(long = "as", value_name = "EMAIL")]
        as_user: Option<String>,
    },
    /// List the draft's current revision and the replaced ones kept (the last 50), newest first
    History {
        #[arg(long)]
        project: String,
    },
    /// Make a replaced draft from the history the draft again; the draft it replaces is kept too
    Restore {
        #[arg(long)]
        project: String,
        /// A revision `cassis ontology history` lists
        #[arg(long)]
        revision: u64,
        #[arg(long = "as", value_name = "EMAIL")]
        as_user: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn settings_may_follow_the_subcommand() {
        let cli = Cli::try_parse_from([
            "cassis",
            "project",
            "list",
            "--data-dir",
            "/tmp/x",
            "--no-demo",
        ])
        .unwrap();
        assert_eq!(cli.settings.data_dir, Some(PathBuf::from("/tmp/x")));
        assert_eq!(cli.settings.no_demo, Some(true));
        assert!(matches!(
            cli.command,
            Some(Command::Project(ProjectCommand::List { json: false }))
        ));
    }

    #[test]
    fn no_subcommand_means_serve() {
        let cli = Cli::try_parse_from(["cassis", "--addr", "127.0.0.1:4000"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.settings.addr, Some("127.0.0.1:4000".parse().unwrap()));
    }

    #[test]
    fn bad_roles_are_refused_by_the_parser() {
        let err = Cli::try_parse_from([
            "cassis", "user", "create", "--email", "a@b.c", "--role", "owner",
        ])
        .unwrap_err();
        assert!(
            err.to_string().contains("expected admin, editor or viewer"),
            "{err}"
        );
    }
}
