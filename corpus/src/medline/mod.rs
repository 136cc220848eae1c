//! Subjects from LingPipe's MEDLINE sentence model (ConTeGe's subject C6).

use crate::Subject;

pub mod sentence_model;

/// The subjects of this module.
pub fn subjects() -> Vec<Subject> {
    vec![sentence_model::subject()]
}
