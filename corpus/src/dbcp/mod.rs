//! Subjects from dbcp.

use crate::Subject;

/// The subjects of this module.
pub fn subjects() -> Vec<Subject> {
    Vec::new()
}
