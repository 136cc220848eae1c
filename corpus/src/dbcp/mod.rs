//! Subjects from Apache Commons DBCP.

use crate::Subject;

pub mod per_user_pool_data_source;
pub mod shared_pool_data_source;

/// The subjects of this module.
pub fn subjects() -> Vec<Subject> {
    vec![
        per_user_pool_data_source::subject(),
        shared_pool_data_source::subject(),
    ]
}
