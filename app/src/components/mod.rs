pub mod chart;
pub mod copy;
pub mod layout;
pub mod page;
pub mod project_tabs;
pub mod resource_list;
pub mod source_fields;
pub mod style;
