pub mod copy;
pub mod layout;
pub mod page;
