//! The server's one reading of the clock; core takes `now` as an argument.

use cassis_core::time::Timestamp;

pub fn now() -> Timestamp {
    Timestamp::from_system_time(std::time::SystemTime::now())
}
