//! How a test's executions are split between the controlled scheduler and free-running
//! threads under `schedule = "auto"`, and the free-running arm's share of a test's time.

/// The share of a test's time the free-running arm gets when a test runs both arms: it
/// starts at a quarter, doubles after a test whose free executions gave results the
/// controlled ones did not, and shrinks by a fifth after one whose did not, within these
/// bounds. Not below a quarter: on lasso 0.6.0 (`corpus-real`, R2), whose race is inside
/// the dependency behind two-statement methods, a floor of 1/16 found it in 3 of 5 seeds
/// where free-running alone found 5 of 5; the synthetic corpus, found under control, pays
/// for the floor (README, "Races inside dependencies").
pub(super) const FREE_SHARE: (f64, f64) = (0.25, 0.75);
/// The share of the first test.
pub(super) const FREE_SHARE_START: f64 = 0.25;

/// How many free-running results that no sequential order gave, and that did not come back
/// when the test ran on, a check sees before it takes the calls that gave them for
/// nondeterministic (not compared from then on). One is not enough: under load a real race
/// hit once may not come back within the re-runs, and marking its calls at once hid a lost
/// update for the rest of a 20 s check.
pub(super) const UNCONFIRMED_BEFORE_VARYING: u32 = 3;

/// How a test's executions run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arms {
    /// Under control only (`schedule = "controlled"`).
    Controlled,
    /// Free-running only: `schedule = "stress"`, or `auto` on a test with no scheduling
    /// point, or none inside a call (at most one per call: a controlled execution of it
    /// switches threads only between whole calls, so it is a sequential order of them and
    /// can find nothing; only free-running threads make the calls overlap).
    Free,
    /// `auto` on a test with points inside its calls: a controlled batch, then free-running
    /// executions for a share of its time, for races in code the scheduler cannot see
    /// (a dependency's, or std's locks between two points).
    Both,
}
