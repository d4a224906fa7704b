//! The functions a query written outside Cassis (by a model, or a verified
//! question's SQL) may call, by dialect. An allowlist, not a denylist: a
//! data source has hundreds of functions, and the ones that read files,
//! signal other sessions, open connections, change settings or allocate
//! without bound cannot be hunted down one by one, release after release.

/// What every dialect has under these names, with the same meaning.
pub const COMMON: &[&str] = &[
    // Aggregates.
    "count",
    "sum",
    "avg",
    "min",
    "max",
    // Window functions.
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    // Scalars whose result is no larger than their arguments.
    "coalesce",
    "nullif",
    "abs",
    "round",
    "lower",
    "upper",
    "length",
    "trim",
    "ltrim",
    "rtrim",
    "substr",
    "substring",
    "replace",
    "concat",
    "current_date",
    "current_time",
    "current_timestamp",
];

/// The statistics of the warehouses other than SQLite.
pub const STATISTICS: &[&str] = &[
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
];

/// The arithmetic of the warehouses other than SQLite.
pub const MATH: &[&str] = &[
    "greatest", "least", "ceil", "ceiling", "floor", "sign", "mod", "sqrt", "exp", "ln", "power",
];

/// The rest of the standard (with [`STATISTICS`] and [`MATH`]): what the
/// warehouses other than SQLite and MySQL share.
pub const STANDARD: &[&str] = &["corr", "covar_pop", "covar_samp", "date_trunc", "date_part"];

pub const SQLITE: &[&str] = &[
    "ifnull",
    "iif",
    "instr",
    "total",
    "ceil",
    "ceiling",
    "floor",
    "trunc",
    "sign",
    "mod",
    "sqrt",
    "exp",
    "ln",
    "log",
    "log10",
    "pow",
    "power",
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
];

pub const POSTGRES: &[&str] = &[
    "percentile_cont",
    "percentile_disc",
    "mode",
    "regr_slope",
    "regr_intercept",
    "regr_r2",
    "regr_count",
    "bool_and",
    "bool_or",
    "every",
    "trunc",
    "div",
    "log",
    "log10",
    "cbrt",
    "width_bucket",
    "initcap",
    "left",
    "right",
    "split_part",
    "strpos",
    "position",
    "starts_with",
    "char_length",
    "character_length",
    "btrim",
    "translate",
    "to_char",
    "to_date",
    "to_timestamp",
    "to_number",
    "extract",
    "age",
    "now",
    "make_date",
    "localtime",
    "localtimestamp",
];

/// MySQL's and MariaDB's own (with [`STATISTICS`] and [`MATH`]; they have no
/// `date_trunc` or `date_part`). Not `sleep`, `benchmark`, `load_file`, `get_lock`,
/// `repeat`, `lpad` and the like.
pub const MYSQL: &[&str] = &[
    "std",
    "log",
    "log10",
    "log2",
    "pow",
    "truncate",
    "ifnull",
    "if",
    "year",
    "month",
    "day",
    "dayofmonth",
    "dayofweek",
    "quarter",
    "week",
    "date",
    "date_format",
    "date_add",
    "date_sub",
    "weekday",
    "datediff",
    "timestampdiff",
    "str_to_date",
    "curdate",
    "now",
    "char_length",
    "character_length",
    "left",
    "right",
    "locate",
    "instr",
];

/// Snowflake's own date functions, which its templates write.
pub const SNOWFLAKE: &[&str] = &[
    "to_char", "to_date", "year", "month", "day", "quarter", "dateadd", "datediff", "iff",
    "ifnull", "nvl",
];

/// BigQuery's own date functions, which its templates write.
pub const BIGQUERY: &[&str] = &[
    "format_date",
    "date_add",
    "date_sub",
    "date_diff",
    "ifnull",
    "if",
];

/// Databricks's own date functions, which its templates write.
pub const DATABRICKS: &[&str] = &[
    "date_format",
    "add_months",
    "trunc",
    "date_add",
    "datediff",
    "year",
    "month",
    "quarter",
    "ifnull",
    "nvl",
];

/// DuckDB's own date functions, which its templates write.
pub const DUCKDB: &[&str] = &[
    "strftime",
    "year",
    "month",
    "quarter",
    "date_diff",
    "ifnull",
];

/// Redshift's own date functions beside PostgreSQL's standard ones.
pub const REDSHIFT: &[&str] = &["to_char", "to_date", "dateadd", "datediff", "nvl"];
