//! Subjects from XStream.

use crate::Subject;

pub mod facade;

/// The subjects of this module.
pub fn subjects() -> Vec<Subject> {
    vec![facade::subject()]
}
