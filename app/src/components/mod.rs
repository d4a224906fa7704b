pub mod layout;
pub mod page;
