//! Subjects from log4j: V17 `AppenderAttachableImpl`, V18 `FileAppender`, V19
//! `NullAppender`.

use crate::Subject;

pub mod appender_attachable;
pub mod file_appender;
pub mod null_appender;

/// The subjects of this module.
pub fn subjects() -> Vec<Subject> {
    vec![
        appender_attachable::subject(),
        file_appender::subject(),
        null_appender::subject(),
    ]
}
