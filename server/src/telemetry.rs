//! Structured logs with `tracing`, as text for people or JSON for collectors.

use crate::config::LogFormat;
use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;

/// Installs the global subscriber once; later calls are ignored. Logs go to
/// standard error so command output on standard output stays machine-readable.
pub fn init(format: LogFormat) {
    let mut filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // rmcp logs every stateless request's set-up and tear-down at info; the
    // request log already has one line per request. RUST_LOG=rmcp=... wins.
    if !std::env::var("RUST_LOG").is_ok_and(|value| value.contains("rmcp"))
        && let Ok(quiet) = "rmcp=warn".parse()
    {
        filter = filter.add_directive(quiet);
    }
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colours only for a person at a terminal, never into files or collectors.
        .with_ansi(std::io::stderr().is_terminal());
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}
