//! The scaling exponent: a least-squares line through (ln x, ln time).

/// A fitted power law `time ∝ x^exponent`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// The slope of ln(time) against ln(x): 1 is linear, 2 quadratic.
    pub exponent: f64,
    /// Coefficient of determination of the line (1 is a perfect power law).
    pub r_squared: f64,
    /// Smallest x of the points fitted.
    pub from: f64,
    /// Largest x of the points fitted.
    pub to: f64,
    /// Number of points fitted.
    pub points: usize,
}

/// Fits `points` (x, time), skipping non-positive values; `None` with fewer than two points.
pub fn power_law(points: &[(f64, f64)]) -> Option<Fit> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0 && x.is_finite() && y.is_finite())
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let n = logs.len() as f64;
    let mean_x = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let syy: f64 = logs.iter().map(|p| (p.1 - mean_y).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let exponent = sxy / sxx;
    let r_squared = if syy == 0.0 {
        1.0
    } else {
        (sxy * sxy) / (sxx * syy)
    };
    let xs = points.iter().map(|p| p.0).filter(|x| *x > 0.0);
    Some(Fit {
        exponent,
        r_squared,
        from: xs.clone().fold(f64::INFINITY, f64::min),
        to: xs.fold(0.0, f64::max),
        points: logs.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_known_exponents() {
        for k in [0.5, 1.0, 2.0] {
            let points: Vec<(f64, f64)> = [2.0_f64, 8.0, 32.0, 128.0]
                .iter()
                .map(|&x| (x, 7.0 * x.powf(k)))
                .collect();
            let fit = power_law(&points).expect("fits");
            assert!((fit.exponent - k).abs() < 1e-9, "{fit:?}");
            assert!((fit.r_squared - 1.0).abs() < 1e-9);
            assert_eq!((fit.from, fit.to, fit.points), (2.0, 128.0, 4));
        }
    }

    #[test]
    fn needs_two_distinct_points() {
        assert_eq!(power_law(&[(4.0, 1.0)]), None);
        assert_eq!(power_law(&[(4.0, 1.0), (4.0, 2.0)]), None);
        assert_eq!(power_law(&[(0.0, 1.0), (4.0, 2.0)]), None);
    }
}
