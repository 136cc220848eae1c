//! The experiments compared with the tool's own runs on every subject, one type each:
//! the guides (`--guides`), job counts (`--jobs`), scheduling modes (`--schedules`),
//! strategies (`--strategies`), the oracles (`--oracles`) and a busy neighbour (`--beside`).
//! Each runs its checks of a seed right after the tool's, so that the arms take turns seed
//! by seed and a change in the machine's load hits them alike, and puts its runs into the
//! subject's result at the end.

use std::time::Duration;

use threadsafe_corpus::Subject;
use threadsafe_rt::{Config, Guide};

use super::hunt::{hunt, twin, Mode, Progress};
use crate::neighbour::{Neighbour, Work};
use crate::{
    jobs_label, schedule_label, strategy_label, tool_config, BesideResult, CpuMeter, GuideResult,
    OracleResult, OtherCpu, Run, Settings, SubjectResult, TwinCheck, Variant,
};

/// The tool's own runs of a subject, which every experiment shares: the tool's setting is
/// one arm of each comparison, and is not run twice.
pub(super) struct Tool<'a> {
    /// Checks of the buggy type, one per seed.
    pub(super) runs: &'a [Run],
    /// Checks of the twin, one per seed.
    pub(super) twins: &'a [TwinCheck],
    /// The CPU other processes used during `runs`.
    pub(super) other_cpu: OtherCpu,
}

/// One experiment on one subject.
pub(super) trait Experiment {
    /// Checks of the buggy type it runs per seed.
    fn per_seed(&self) -> usize;

    /// Checks of the twin it runs per subject.
    fn twin_checks(&self) -> usize {
        0
    }

    /// This seed's checks of the buggy type.
    fn seed(&mut self, subject: &Subject, seed: u64, budget: Duration, p: &mut Progress);

    /// This seed's checks of the twin, if it checks the twin.
    fn twin(&mut self, _subject: &Subject, _seed: u64, _budget: Duration, _p: &mut Progress) {}

    /// Its runs, with the tool's, into the subject's result.
    fn finish(self: Box<Self>, tool: &Tool, result: &mut SubjectResult);
}

/// The experiments `settings` asks for, fresh for one subject.
pub(super) fn experiments(settings: &Settings, subject: &Subject) -> Vec<Box<dyn Experiment>> {
    let mut all: Vec<Box<dyn Experiment>> = Vec::new();
    if !settings.guides.is_empty() {
        all.push(Box::new(Guides::new(settings)));
    }
    if !settings.jobs.is_empty() {
        all.push(Box::new(Variants::new(
            &settings.jobs,
            1,
            Mode::Jobs,
            jobs_label,
            |r, v| r.jobs = Some(v),
        )));
    }
    if !settings.schedules.is_empty() {
        all.push(Box::new(Variants::new(
            &settings.schedules,
            Config::default().schedule,
            Mode::Schedule,
            schedule_label,
            |r, v| r.schedules = Some(v),
        )));
    }
    if !settings.strategies.is_empty() {
        all.push(Box::new(Variants::new(
            &settings.strategies,
            Config::default().strategy,
            Mode::Strategy,
            strategy_label,
            |r, v| r.strategies = Some(v),
        )));
    }
    if settings.oracles {
        all.push(Box::new(Oracles::new(subject)));
    }
    if let Some(command) = &settings.beside {
        all.push(Box::new(Beside::new(Work::parse(command))));
    }
    all
}

/// The tool's guides against each other; the random guide's runs are the tool's.
struct Guides {
    /// The guides compared, in `GUIDES`' order.
    guides: Vec<Guide>,
    /// The guides other than random, and their runs.
    extra: Vec<(Guide, Vec<Run>, Vec<TwinCheck>)>,
    /// The twin is checked with each guide for seeds `0..twin_seeds`.
    twin_seeds: u64,
}

impl Guides {
    fn new(settings: &Settings) -> Guides {
        Guides {
            guides: settings.guides.clone(),
            extra: settings
                .guides
                .iter()
                .filter(|&&g| g != Guide::Random)
                .map(|&g| (g, Vec::new(), Vec::new()))
                .collect(),
            twin_seeds: settings.guide_twin_seeds(),
        }
    }
}

impl Experiment for Guides {
    fn per_seed(&self) -> usize {
        self.extra.len()
    }

    fn twin_checks(&self) -> usize {
        self.twin_seeds as usize * self.extra.len()
    }

    fn seed(&mut self, subject: &Subject, seed: u64, budget: Duration, p: &mut Progress) {
        for (g, runs, _) in &mut self.extra {
            runs.push(hunt(subject, Mode::Guided(*g), seed, budget, p));
        }
    }

    fn twin(&mut self, subject: &Subject, seed: u64, budget: Duration, p: &mut Progress) {
        if seed < self.twin_seeds {
            for (g, _, twins) in &mut self.extra {
                twins.push(twin(subject, Mode::Guided(*g), seed, budget, p));
            }
        }
    }

    fn finish(self: Box<Self>, tool: &Tool, result: &mut SubjectResult) {
        let mut extra = self.extra.into_iter();
        let twin_seeds = self.twin_seeds as usize;
        result.guides = Some(
            self.guides
                .iter()
                .map(|&g| match g {
                    Guide::Random => GuideResult {
                        guide: g,
                        runs: tool.runs.to_vec(),
                        twin: tool.twins[..twin_seeds.min(tool.twins.len())].to_vec(),
                    },
                    _ => {
                        let (runs, twin) = extra.next().map(|(_, r, t)| (r, t)).unwrap_or_default();
                        GuideResult {
                            guide: g,
                            runs,
                            twin,
                        }
                    }
                })
                .collect(),
        );
    }
}

/// Settings of one kind of the tool's config against each other (`--jobs`, `--schedules`,
/// `--strategies`); the tool's own setting's runs are the tool's.
struct Variants<X> {
    /// The settings compared, in the order given.
    settings: Vec<X>,
    /// The tool's own setting.
    tool_setting: X,
    /// The settings other than the tool's, and their runs.
    others: Vec<(X, Vec<Run>)>,
    mode: fn(X) -> Mode,
    label: fn(X) -> String,
    put: fn(&mut SubjectResult, Vec<Variant>),
}

impl<X: Copy + PartialEq> Variants<X> {
    fn new(
        settings: &[X],
        tool_setting: X,
        mode: fn(X) -> Mode,
        label: fn(X) -> String,
        put: fn(&mut SubjectResult, Vec<Variant>),
    ) -> Variants<X> {
        Variants {
            settings: settings.to_vec(),
            tool_setting,
            others: settings
                .iter()
                .filter(|&&x| x != tool_setting)
                .map(|&x| (x, Vec::new()))
                .collect(),
            mode,
            label,
            put,
        }
    }
}

impl<X: Copy + PartialEq> Experiment for Variants<X> {
    fn per_seed(&self) -> usize {
        self.others.len()
    }

    fn seed(&mut self, subject: &Subject, seed: u64, budget: Duration, p: &mut Progress) {
        for (x, runs) in &mut self.others {
            runs.push(hunt(subject, (self.mode)(*x), seed, budget, p));
        }
    }

    fn finish(self: Box<Self>, tool: &Tool, result: &mut SubjectResult) {
        let mut others = self.others.into_iter();
        let variants = self
            .settings
            .iter()
            .map(|&x| Variant {
                label: (self.label)(x),
                runs: if x == self.tool_setting {
                    tool.runs.to_vec()
                } else {
                    others.next().map(|(_, runs)| runs).unwrap_or_default()
                },
            })
            .collect();
        (self.put)(result, variants);
    }
}

/// Results compared against the paper's oracle; the oracle the tool checks the subject
/// with anyway is the tool's runs.
struct Oracles {
    /// Whether the tool compares results on this subject.
    tool_results: bool,
    /// The runs under the other oracle.
    other: Vec<Run>,
}

impl Oracles {
    fn new(subject: &Subject) -> Oracles {
        Oracles {
            tool_results: tool_config(subject, 0, Duration::ZERO).results,
            other: Vec::new(),
        }
    }
}

impl Experiment for Oracles {
    fn per_seed(&self) -> usize {
        1
    }

    fn seed(&mut self, subject: &Subject, seed: u64, budget: Duration, p: &mut Progress) {
        let mode = Mode::Oracle(!self.tool_results);
        self.other.push(hunt(subject, mode, seed, budget, p));
    }

    fn finish(self: Box<Self>, tool: &Tool, result: &mut SubjectResult) {
        let (with, without) = if self.tool_results {
            (tool.runs.to_vec(), self.other)
        } else {
            (self.other, tool.runs.to_vec())
        };
        result.oracles = Some(vec![
            OracleResult {
                results: true,
                runs: with,
            },
            OracleResult {
                results: false,
                runs: without,
            },
        ]);
    }
}

/// The tool's checks again, beside a busy neighbour started before each and stopped after.
struct Beside {
    work: Work,
    runs: Vec<Run>,
    /// The CPU other processes used during `runs`.
    other_cpu: OtherCpu,
}

impl Beside {
    fn new(work: Work) -> Beside {
        Beside {
            work,
            runs: Vec::new(),
            other_cpu: OtherCpu::default(),
        }
    }
}

impl Experiment for Beside {
    fn per_seed(&self) -> usize {
        1
    }

    fn seed(&mut self, subject: &Subject, seed: u64, budget: Duration, p: &mut Progress) {
        match Neighbour::start(&self.work, 1) {
            Ok(neighbour) => {
                let meter = CpuMeter::start();
                let run = hunt(subject, Mode::Beside, seed, budget, p);
                if let Some(o) = meter.and_then(|m| m.others()) {
                    self.other_cpu += o;
                }
                neighbour.stop();
                self.runs.push(run);
            }
            Err(e) => {
                let why = format!("the neighbour did not start: {e}");
                p.errors
                    .push(format!("{} beside seed {seed}: {why}", subject.name));
                let mut run = Run::missed(seed, budget);
                run.note = Some(why);
                self.runs.push(run);
            }
        }
    }

    fn finish(self: Box<Self>, tool: &Tool, result: &mut SubjectResult) {
        result.beside = Some(BesideResult {
            runs: self.runs,
            other_cpu: self.other_cpu.cores(),
            alone_other_cpu: tool.other_cpu.cores(),
        });
    }
}
