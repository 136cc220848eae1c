//! Profiles loaded once and cached in moka 0.6.2's `future::Cache`. Its
//! `get_or_insert_with` registers the key as loading and runs the load; when that call is
//! cancelled while the load waits, the key stays registered with no value, and every later
//! call for it panics ("Too many retries"). No parallelism is needed, only a load cancelled
//! at its await. moka issue #59, fixed in 0.6.3 by pull request #60. The twin is the same
//! type over moka 0.7.2.

use threadsafe_rt::thread_safe;

use super::remote;

/// Where in moka 0.6.2 the bug panics, for the harness (a path suffix of the panic's
/// location).
pub const PANICS_IN: &str = "moka-0.6.2/src/future/value_initializer.rs";

/// A user's profile: loaded from a remote store (a `Pending` on the way), then cached.
async fn load(user: u8) -> u32 {
    remote().await;
    u32::from(user) * 10
}

/// Profiles cached in moka 0.6.2.
pub struct Profiles {
    cache: moka_0_6::future::Cache<u8, u32>,
}

#[thread_safe(test = false, statement_points = "always")]
impl Profiles {
    /// An empty cache of 100 profiles.
    pub fn new() -> Self {
        Profiles {
            cache: moka_0_6::future::Cache::new(100),
        }
    }

    /// The profile of `user`, loaded at the first call for it.
    pub async fn get(&self, user: u8) -> u32 {
        self.cache.get_or_insert_with(user, load(user)).await
    }
}

/// The correct twin: the same cache over moka 0.7.2.
pub struct FixedProfiles {
    cache: moka_0_7::future::Cache<u8, u32>,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedProfiles {
    /// An empty cache of 100 profiles.
    pub fn new() -> Self {
        FixedProfiles {
            cache: moka_0_7::future::Cache::new(100),
        }
    }

    /// The profile of `user`, loaded at the first call for it.
    pub async fn get(&self, user: u8) -> u32 {
        self.cache.get_or_insert_with(user, load(user)).await
    }
}
