//! V15 of MAPTest (Wang et al., ASE 2019, Table II; bug 14 of Pradel & Gross, Table 1):
//! `org.jfree.chart.plot.XYPlot` (JFreeChart 1.0.9), a data race. The dataset and renderer
//! lists are separate fields kept the same length; `draw` and `data_range` count the datasets
//! and then index the lists while `set_dataset`, `add_dataset` or `clear_datasets` resizes one
//! list before the other (Java's `ConcurrentModificationException`).

use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use threadsafe_rt::thread_safe;

use crate::{BugKind, Subject};

/// Rounds of calls per thread in the naive stress test.
const ITERS: usize = 1_000;

/// The most datasets a plot holds.
const MAX_DATASETS: usize = 16;

/// A dataset: y values, at x = 0, 1, 2, ...
type Dataset = Vec<i32>;

/// A renderer: how a dataset is drawn (0 lines, 1 shapes, 2 bars, ...).
type Renderer = u8;

/// Puts `value` at `index`, growing `list` with empty slots as needed, then drops empty
/// slots at the end (JFreeChart's `ObjectList.set`, without trailing `null`s).
fn set_slot<T>(list: &mut Vec<Option<T>>, index: usize, value: Option<T>) {
    if list.len() <= index {
        list.resize_with(index + 1, || None);
    }
    list[index] = value;
    while list.last().is_some_and(|slot| slot.is_none()) {
        list.pop();
    }
}

/// Pushes `value` in a new slot of `list` and returns its index; `None` if `list` holds
/// [`MAX_DATASETS`] slots already.
fn push_slot<T>(list: &mut Vec<Option<T>>, value: T) -> Option<usize> {
    if list.len() >= MAX_DATASETS {
        return None;
    }
    list.push(Some(value));
    Some(list.len() - 1)
}

/// The smallest range holding `range` and the values of `dataset`.
fn extend(range: Option<(i32, i32)>, dataset: &[i32]) -> Option<(i32, i32)> {
    dataset.iter().fold(range, |r, &v| match r {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// A plot of (x, y) datasets, ported from JFreeChart's `XYPlot`: a list of datasets and a
/// list of renderers (the renderer at index `i` draws the dataset at index `i`; with none,
/// renderer 0 does), domain and range markers.
///
/// The two lists are separate fields, each with its own lock, kept the same length by every
/// call that changes them, one after the other. `draw` counts the datasets, then takes the
/// renderer and the dataset of each index in lock sections of their own: with `p.draw()` on
/// one thread and `p.clear_datasets()` or `p.add_dataset(vec![1])` on another, an index can
/// be past the end of a list.
pub struct XYPlot {
    datasets: RwLock<Vec<Option<Dataset>>>,
    renderers: RwLock<Vec<Option<Renderer>>>,
    domain_markers: Mutex<Vec<i32>>,
    range_markers: Mutex<Vec<i32>>,
}

impl Default for XYPlot {
    fn default() -> Self {
        XYPlot::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl XYPlot {
    /// A plot with no dataset.
    pub fn new() -> Self {
        XYPlot::with_datasets(Vec::new())
    }

    /// A plot showing `values` with renderer 0.
    pub fn with_dataset(values: Vec<i32>) -> Self {
        XYPlot::with_datasets(vec![values])
    }

    /// A plot showing each of `datasets` (the first 16) with renderer 0.
    pub fn with_datasets(datasets: Vec<Vec<i32>>) -> Self {
        let datasets: Vec<_> = datasets.into_iter().take(MAX_DATASETS).map(Some).collect();
        XYPlot {
            renderers: RwLock::new(vec![Some(0); datasets.len()]),
            datasets: RwLock::new(datasets),
            domain_markers: Mutex::new(Vec::new()),
            range_markers: Mutex::new(Vec::new()),
        }
    }

    /// The number of dataset slots (some may be empty).
    pub fn dataset_count(&self) -> usize {
        self.datasets.read().len()
    }

    /// The dataset at `index`, if there is one.
    pub fn dataset(&self, index: usize) -> Option<Vec<i32>> {
        self.datasets.read().get(index).cloned().flatten()
    }

    /// Puts `values` at `index` (`None` empties the slot); `false`, and no change, if
    /// `index` is 16 or more.
    pub fn set_dataset(&self, index: usize, values: Option<Vec<i32>>) -> bool {
        if index >= MAX_DATASETS {
            return false;
        }
        set_slot(&mut self.datasets.write(), index, values);
        let len = self.datasets.read().len();
        // BUG: until this resize, the lists differ in length.
        self.renderers.write().resize(len, None);
        true
    }

    /// Adds `values` in a new slot drawn by `renderer`; returns its index, or `None` if the
    /// plot holds 16 slots already.
    pub fn add_dataset(&self, values: Vec<i32>, renderer: Option<u8>) -> Option<usize> {
        let index = push_slot(&mut self.datasets.write(), values)?;
        // BUG: until this push, the renderer list is one short.
        self.renderers.write().push(renderer);
        Some(index)
    }

    /// Removes every dataset and renderer.
    pub fn clear_datasets(&self) {
        self.datasets.write().clear();
        // BUG: until this clear, the renderer list is the longer one.
        self.renderers.write().clear();
    }

    /// The renderer at `index`, if there is one.
    pub fn renderer(&self, index: usize) -> Option<u8> {
        self.renderers.read().get(index).copied().flatten()
    }

    /// Sets the renderer of the dataset slot `index`; `false`, and no change, if there is no
    /// such slot.
    pub fn set_renderer(&self, index: usize, renderer: Option<u8>) -> bool {
        match self.renderers.write().get_mut(index) {
            Some(slot) => {
                *slot = renderer;
                true
            }
            None => false,
        }
    }

    /// The smallest range holding every value of every dataset, if there is a value.
    pub fn data_range(&self) -> Option<(i32, i32)> {
        let count = self.dataset_count();
        let mut range = None;
        for i in 0..count {
            // BUG: the list may have shrunk since it was counted.
            let dataset = self.datasets.read()[i].clone();
            if let Some(values) = dataset {
                range = extend(range, &values);
            }
        }
        range
    }

    /// Draws every dataset that has a renderer (its own or renderer 0); returns the number of
    /// items drawn.
    pub fn draw(&self) -> usize {
        let count = self.dataset_count();
        let default = self.renderer(0);
        let mut drawn = 0;
        for i in 0..count {
            // BUG: the lists may have changed length since the datasets were counted.
            let renderer = self.renderers.read()[i].or(default);
            let items = self.datasets.read()[i].as_ref().map_or(0, Vec::len);
            if renderer.is_some() {
                drawn += items;
            }
        }
        drawn
    }

    /// Adds a domain marker at `x`.
    pub fn add_domain_marker(&self, x: i32) {
        self.domain_markers.lock().push(x);
    }

    /// Adds a range marker at `y`.
    pub fn add_range_marker(&self, y: i32) {
        self.range_markers.lock().push(y);
    }

    /// The number of domain and range markers.
    pub fn marker_count(&self) -> usize {
        self.domain_markers.lock().len() + self.range_markers.lock().len()
    }

    /// Removes every domain and range marker.
    pub fn clear_markers(&self) {
        self.domain_markers.lock().clear();
        self.range_markers.lock().clear();
    }
}

/// The datasets and renderers of a [`FixedXYPlot`], under one lock.
#[derive(Default)]
struct Layers {
    datasets: Vec<Option<Dataset>>,
    renderers: Vec<Option<Renderer>>,
}

/// [`XYPlot`] fixed: the dataset and renderer lists live under one lock, so they change
/// length together, and `draw` and `data_range` count and index them under one lock
/// section. The domain and range markers share a lock too: `marker_count` beside
/// `clear_markers` saw the domain markers cleared and the range markers not (a count no
/// order gives; found under `strategy = "dfs"`, decision 0093).
pub struct FixedXYPlot {
    layers: RwLock<Layers>,
    /// Domain markers, then range markers.
    markers: Mutex<(Vec<i32>, Vec<i32>)>,
}

impl Default for FixedXYPlot {
    fn default() -> Self {
        FixedXYPlot::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedXYPlot {
    /// A plot with no dataset.
    pub fn new() -> Self {
        FixedXYPlot::with_datasets(Vec::new())
    }

    /// A plot showing `values` with renderer 0.
    pub fn with_dataset(values: Vec<i32>) -> Self {
        FixedXYPlot::with_datasets(vec![values])
    }

    /// A plot showing each of `datasets` (the first 16) with renderer 0.
    pub fn with_datasets(datasets: Vec<Vec<i32>>) -> Self {
        let datasets: Vec<_> = datasets.into_iter().take(MAX_DATASETS).map(Some).collect();
        FixedXYPlot {
            layers: RwLock::new(Layers {
                renderers: vec![Some(0); datasets.len()],
                datasets,
            }),
            markers: Mutex::new((Vec::new(), Vec::new())),
        }
    }

    /// The number of dataset slots (some may be empty).
    pub fn dataset_count(&self) -> usize {
        self.layers.read().datasets.len()
    }

    /// The dataset at `index`, if there is one.
    pub fn dataset(&self, index: usize) -> Option<Vec<i32>> {
        self.layers.read().datasets.get(index).cloned().flatten()
    }

    /// Puts `values` at `index` (`None` empties the slot); `false`, and no change, if
    /// `index` is 16 or more.
    pub fn set_dataset(&self, index: usize, values: Option<Vec<i32>>) -> bool {
        if index >= MAX_DATASETS {
            return false;
        }
        let mut layers = self.layers.write();
        set_slot(&mut layers.datasets, index, values);
        let len = layers.datasets.len();
        layers.renderers.resize(len, None);
        true
    }

    /// Adds `values` in a new slot drawn by `renderer`; returns its index, or `None` if the
    /// plot holds 16 slots already.
    pub fn add_dataset(&self, values: Vec<i32>, renderer: Option<u8>) -> Option<usize> {
        let mut layers = self.layers.write();
        let index = push_slot(&mut layers.datasets, values)?;
        layers.renderers.push(renderer);
        Some(index)
    }

    /// Removes every dataset and renderer.
    pub fn clear_datasets(&self) {
        let mut layers = self.layers.write();
        layers.datasets.clear();
        layers.renderers.clear();
    }

    /// The renderer at `index`, if there is one.
    pub fn renderer(&self, index: usize) -> Option<u8> {
        self.layers.read().renderers.get(index).copied().flatten()
    }

    /// Sets the renderer of the dataset slot `index`; `false`, and no change, if there is no
    /// such slot.
    pub fn set_renderer(&self, index: usize, renderer: Option<u8>) -> bool {
        match self.layers.write().renderers.get_mut(index) {
            Some(slot) => {
                *slot = renderer;
                true
            }
            None => false,
        }
    }

    /// The smallest range holding every value of every dataset, if there is a value.
    pub fn data_range(&self) -> Option<(i32, i32)> {
        let layers = self.layers.read();
        layers
            .datasets
            .iter()
            .flatten()
            .fold(None, |range, values| extend(range, values))
    }

    /// Draws every dataset that has a renderer (its own or renderer 0); returns the number of
    /// items drawn.
    pub fn draw(&self) -> usize {
        let layers = self.layers.read();
        let default = layers.renderers.first().copied().flatten();
        layers
            .datasets
            .iter()
            .zip(&layers.renderers)
            .filter(|(_, renderer)| renderer.or(default).is_some())
            .map(|(dataset, _)| dataset.as_ref().map_or(0, Vec::len))
            .sum()
    }

    /// Adds a domain marker at `x`.
    pub fn add_domain_marker(&self, x: i32) {
        self.markers.lock().0.push(x);
    }

    /// Adds a range marker at `y`.
    pub fn add_range_marker(&self, y: i32) {
        self.markers.lock().1.push(y);
    }

    /// The number of domain and range markers.
    pub fn marker_count(&self) -> usize {
        let markers = self.markers.lock();
        markers.0.len() + markers.1.len()
    }

    /// Removes every domain and range marker.
    pub fn clear_markers(&self) {
        let mut markers = self.markers.lock();
        markers.0.clear();
        markers.1.clear();
    }
}

/// The subject: [`XYPlot`] and its twin.
pub fn subject() -> Subject {
    Subject {
        id: "V15",
        name: "xy_plot",
        original: "org.jfree.chart.plot.XYPlot (JFreeChart 1.0.9)",
        bug: BugKind::DataRace,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<XYPlot>(c),
        check_twin: |c| threadsafe_rt::check::<FixedXYPlot>(c),
        naive: |budget: Duration| {
            crate::naive::race(
                budget,
                ITERS,
                || XYPlot::with_dataset(vec![1, 2, 3]),
                |p| {
                    p.draw();
                },
                |p| p.clear_datasets(),
            )
        },
    }
}
