//! Server functions, one file per feature. Each checks the session and calls core.

pub mod activity;
pub mod clients;
pub mod imports;
pub mod instance;
pub mod keys;
pub mod ontology;
pub mod ontology_form;
pub mod playground;
pub mod projects;
pub mod publishing;
pub mod session;
pub mod users;
