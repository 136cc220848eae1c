//! Subjects from JFreeChart: V11 `Day`, V12 `NumberAxis`, V13 `PeriodAxis`, V14
//! `TimeSeries`, V15 `XYPlot`, V16 `XYSeries`.

use crate::Subject;

pub mod day;
pub mod number_axis;
pub mod period_axis;
pub mod time_series;
pub mod xy_plot;
pub mod xy_series;

/// The subjects of this module.
pub fn subjects() -> Vec<Subject> {
    vec![
        day::subject(),
        number_axis::subject(),
        period_axis::subject(),
        time_series::subject(),
        xy_plot::subject(),
        xy_series::subject(),
    ]
}
