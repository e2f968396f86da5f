//! Reads criterion's output: every `<benchmark>/new/benchmark.json` with its `estimates.json`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

/// One benchmark's time, from criterion's `new/estimates.json`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measurement {
    /// Median time per iteration, nanoseconds (robust to the other work on a shared machine).
    pub median_ns: f64,
    /// Lower bound of the median's confidence interval.
    pub low_ns: f64,
    /// Upper bound of the median's confidence interval.
    pub high_ns: f64,
}

/// Every measurement found, by (criterion group, function).
#[derive(Debug, Clone, Default)]
pub struct Results {
    measurements: BTreeMap<(String, String), Measurement>,
}

#[derive(Deserialize)]
struct BenchmarkFile {
    group_id: String,
    function_id: Option<String>,
}

#[derive(Deserialize)]
struct Interval {
    lower_bound: f64,
    upper_bound: f64,
}

#[derive(Deserialize)]
struct Estimate {
    confidence_interval: Interval,
    point_estimate: f64,
}

#[derive(Deserialize)]
struct EstimatesFile {
    median: Estimate,
}

impl Results {
    /// Loads every benchmark under `dir` (criterion's output folder).
    pub fn load(dir: &Path) -> Result<Results, String> {
        let mut results = Results::default();
        results.walk(dir)?;
        Ok(results)
    }

    fn walk(&mut self, dir: &Path) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            if !path.is_dir() {
                continue;
            }
            let benchmark = path.join("benchmark.json");
            if path.file_name().is_some_and(|n| n == "new") && benchmark.is_file() {
                let read = |file: &Path| {
                    std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))
                };
                let id: BenchmarkFile = serde_json::from_str(&read(&benchmark)?)
                    .map_err(|e| format!("{}: {e}", benchmark.display()))?;
                let estimates_path = path.join("estimates.json");
                let estimates: EstimatesFile = serde_json::from_str(&read(&estimates_path)?)
                    .map_err(|e| format!("{}: {e}", estimates_path.display()))?;
                self.measurements.insert(
                    (id.group_id, id.function_id.unwrap_or_default()),
                    Measurement {
                        median_ns: estimates.median.point_estimate,
                        low_ns: estimates.median.confidence_interval.lower_bound,
                        high_ns: estimates.median.confidence_interval.upper_bound,
                    },
                );
            } else {
                self.walk(&path)?;
            }
        }
        Ok(())
    }

    /// The measurement of `function` in `group`, if that benchmark ran.
    pub fn get(&self, group: &str, function: &str) -> Option<Measurement> {
        self.measurements
            .get(&(group.to_owned(), function.to_owned()))
            .copied()
    }

    /// The median of `function` in `group`, nanoseconds.
    pub fn median(&self, group: &str, function: &str) -> Option<f64> {
        self.get(group, function).map(|m| m.median_ns)
    }

    /// The groups measured, sorted.
    pub fn groups(&self) -> Vec<&str> {
        let mut groups: Vec<&str> = self.measurements.keys().map(|(g, _)| g.as_str()).collect();
        groups.dedup();
        groups
    }

    /// Number of measurements.
    pub fn len(&self) -> usize {
        self.measurements.len()
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.measurements.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_criterion_layout() {
        let dir = std::env::temp_dir().join(format!("flatjoin-benches-est-{}", std::process::id()));
        let new = dir.join("synthetic_x").join("join").join("new");
        std::fs::create_dir_all(&new).expect("dir");
        std::fs::create_dir_all(dir.join("synthetic_x").join("join").join("base")).expect("dir");
        std::fs::write(
            new.join("benchmark.json"),
            r#"{"group_id":"synthetic/x","function_id":"join","value_str":null,"throughput":null,
                "full_id":"synthetic/x/join","directory_name":"synthetic_x/join","title":"synthetic/x/join"}"#,
        )
        .expect("write");
        let estimate = r#"{"confidence_interval":{"confidence_level":0.95,"lower_bound":9.0,"upper_bound":11.0},
                           "point_estimate":10.0,"standard_error":0.5}"#;
        std::fs::write(
            new.join("estimates.json"),
            format!(
                r#"{{"mean":{estimate},"median":{estimate},"median_abs_dev":{estimate},"slope":null,"std_dev":{estimate}}}"#
            ),
        )
        .expect("write");
        let results = Results::load(&dir).expect("loads");
        std::fs::remove_dir_all(&dir).expect("cleanup");
        assert_eq!(results.len(), 1);
        assert_eq!(results.median("synthetic/x", "join"), Some(10.0));
        assert_eq!(
            results.get("synthetic/x", "join").map(|m| m.high_ns),
            Some(11.0)
        );
        assert_eq!(results.median("synthetic/x", "clone"), None);
    }
}
