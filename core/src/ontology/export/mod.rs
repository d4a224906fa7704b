//! The ontology written for other semantic layers: a Snowflake Cortex
//! Analyst semantic model, which `import --from snowflake` reads back.

mod cortex;

pub use cortex::{CortexExport, CortexOptions, to_cortex};
