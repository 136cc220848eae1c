//! Subjects from the JDK.

use crate::Subject;

pub mod buffered_input_stream;
pub mod concurrent_hash_map;
pub mod hashtable;
pub mod logger;
pub mod string_buffer;
pub mod synchronized_map;
pub mod vector_1_1;
pub mod vector_1_4;

/// The subjects of this module.
pub fn subjects() -> Vec<Subject> {
    vec![
        buffered_input_stream::subject(),
        concurrent_hash_map::subject(),
        hashtable::subject(),
        logger::subject(),
        string_buffer::subject(),
        synchronized_map::subject(),
        vector_1_1::subject(),
        vector_1_4::subject(),
    ]
}
