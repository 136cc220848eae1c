//! The settings as text: each enum's `FromStr` and `Display` go through the grammar's own
//! enum in `threadsafe-knobs` (exhaustive both ways, so a new word cannot be missed here),
//! so that the attribute, the environment and a replay token read the same words.

use std::fmt;
use std::str::FromStr;

use threadsafe_knobs as knobs;

use super::{ConfigError, Executor, Guide, ScheduleMode, Strategy};

impl Executor {
    pub(super) fn knob(self) -> knobs::Executor {
        match self {
            Executor::Workers => knobs::Executor::Workers,
            Executor::Paper => knobs::Executor::Paper,
        }
    }
}

impl FromStr for Executor {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        Ok(match s.parse::<knobs::Executor>()? {
            knobs::Executor::Workers => Executor::Workers,
            knobs::Executor::Paper => Executor::Paper,
        })
    }
}

impl fmt::Display for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.knob().fmt(f)
    }
}

impl ScheduleMode {
    pub(super) fn knob(self) -> knobs::ScheduleMode {
        match self {
            ScheduleMode::Auto => knobs::ScheduleMode::Auto,
            ScheduleMode::Controlled => knobs::ScheduleMode::Controlled,
            ScheduleMode::Stress => knobs::ScheduleMode::Stress,
        }
    }
}

impl FromStr for ScheduleMode {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        Ok(match s.parse::<knobs::ScheduleMode>()? {
            knobs::ScheduleMode::Auto => ScheduleMode::Auto,
            knobs::ScheduleMode::Controlled => ScheduleMode::Controlled,
            knobs::ScheduleMode::Stress => ScheduleMode::Stress,
        })
    }
}

impl fmt::Display for ScheduleMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.knob().fmt(f)
    }
}

impl Strategy {
    pub(super) fn knob(self) -> knobs::Strategy {
        match self {
            Strategy::Random => knobs::Strategy::Random,
            Strategy::Pct { depth } => knobs::Strategy::Pct { depth: Some(depth) },
            Strategy::Dfs { preemptions } => knobs::Strategy::Dfs {
                preemptions: Some(preemptions),
            },
        }
    }
}

impl FromStr for Strategy {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        Ok(match s.parse::<knobs::Strategy>()? {
            knobs::Strategy::Random => Strategy::Random,
            knobs::Strategy::Pct { depth } => Strategy::Pct {
                depth: depth.unwrap_or(knobs::DEFAULT_PCT_DEPTH),
            },
            knobs::Strategy::Dfs { preemptions } => Strategy::Dfs {
                preemptions: preemptions.unwrap_or(knobs::DEFAULT_PREEMPTIONS),
            },
        })
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.knob().fmt(f)
    }
}

impl Guide {
    pub(super) fn knob(self) -> knobs::Guide {
        match self {
            Guide::Random => knobs::Guide::Random,
            Guide::Pairs => knobs::Guide::Pairs,
            Guide::Map => knobs::Guide::Map,
        }
    }
}

impl FromStr for Guide {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        Ok(match s.parse::<knobs::Guide>()? {
            knobs::Guide::Random => Guide::Random,
            knobs::Guide::Pairs => Guide::Pairs,
            knobs::Guide::Map => Guide::Map,
        })
    }
}

impl fmt::Display for Guide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.knob().fmt(f)
    }
}
