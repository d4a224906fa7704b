pub mod api_keys;
pub mod clients;
pub mod login;
pub mod not_found;
pub mod playground;
pub mod projects;
pub mod settings;
pub mod users;
