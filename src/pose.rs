//! Pose files: the `POSES` format of the command line (README, `obbtree collide`).
//!
//! Each line that is not empty and does not start with `#` is `qw qx qy qz tx ty tz`: a unit
//! quaternion and a translation placing model B in model A's frame (A at the identity). A
//! quaternion whose norm is within [`QUATERNION_NORM_TOLERANCE`] of 1 is normalised; one further
//! off is an error naming its line. Comment lines may hold any bytes; every other line must be
//! UTF-8 text.

use crate::math::{Isometry, Quaternion, Translation, UnitQuaternion};
use crate::mesh::{excerpt, short_number};
use std::path::{Path, PathBuf};

/// How far a quaternion's norm may be from 1 before the line is rejected; within it, the
/// quaternion is normalised (divided by its norm), so rounded unit quaternions written with a few
/// digits are accepted.
pub const QUATERNION_NORM_TOLERANCE: f64 = 1e-3;

/// A bad pose file or line.
#[derive(Debug, thiserror::Error)]
pub enum PoseError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A line is not seven finite numbers forming a unit quaternion and a translation, or is not
    /// UTF-8 text. The message quotes the offending word cut short, and numbers in short form.
    #[error("{path}:{line}: {message}")]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file holds no pose.
    #[error("{path}: no poses (every line is empty or a # comment)")]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// One pose with the line it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// B in A's frame.
    pub pose_ab: Isometry,
    /// 1-based line number in the file.
    pub line: usize,
}

/// Reads a pose file.
///
/// # Errors
/// [`PoseError::Io`], [`PoseError::BadLine`] (wrong field count, a non-number, a non-finite
/// value, a quaternion whose norm differs from 1 by more than
/// [`QUATERNION_NORM_TOLERANCE`], invalid UTF-8 outside a comment line), [`PoseError::Empty`].
pub fn read_poses(path: impl AsRef<Path>) -> Result<Vec<Pose>, PoseError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| PoseError::Io {
        path: path.into(),
        source,
    })?;
    parse_pose_bytes(bytes, path)
}

/// Parses the bytes of a pose file already in memory (fetched over HTTP in a browser); `path`
/// only names the source in errors.
///
/// # Errors
/// As [`read_poses`], without the I/O error.
pub fn parse_pose_bytes(bytes: Vec<u8>, path: &Path) -> Result<Vec<Pose>, PoseError> {
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let bytes = e.into_bytes();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            // Lines as `str::lines` numbers them: split at '\n'.
            for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
                if let Err(e) = std::str::from_utf8(raw)
                    && !String::from_utf8_lossy(raw).trim().starts_with('#')
                {
                    // Report the first bad line: an earlier one may be wrong otherwise.
                    return Err(match parse_poses(&text, path) {
                        Err(earlier @ PoseError::BadLine { line, .. }) if line <= n => earlier,
                        _ => PoseError::BadLine {
                            path: path.into(),
                            line: n + 1,
                            message: format!(
                                "invalid UTF-8 (byte 0x{:02x} at column {})",
                                raw[e.valid_up_to()],
                                e.valid_up_to() + 1
                            ),
                        },
                    });
                }
            }
            // Only comment lines are not UTF-8; parse_poses skips them.
            text
        }
    };
    parse_poses(&text, path)
}

/// Parses pose text; `path` only names the source in errors.
///
/// # Errors
/// As [`read_poses`], without the I/O error.
///
/// # Examples
/// ```
/// let poses = obbtree::pose::parse_poses("# B 2 units along x\n1 0 0 0  2 0 0\n", "inline".as_ref()).unwrap();
/// assert_eq!(poses[0].pose_ab.translation.vector.x, 2.0);
/// assert_eq!(poses[0].line, 2);
/// assert!(obbtree::pose::parse_poses("1 0 0 0 2 0\n", "inline".as_ref()).is_err());
/// ```
pub fn parse_poses(text: &str, path: &Path) -> Result<Vec<Pose>, PoseError> {
    Ok(parse_lines::<1>(text, path)?
        .into_iter()
        .map(|([pose_ab], line)| Pose { pose_ab, line })
        .collect())
}

/// One motion of a motion file: B's pose at its start and at its end (both in A's frame), and
/// the line it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionLine {
    /// B's pose at the start, in A's frame.
    pub start: Isometry,
    /// B's pose at the end, in A's frame.
    pub end: Isometry,
    /// 1-based line number in the file.
    pub line: usize,
}

/// Reads a motion file (`obbtree toi --motions`): as a pose file, but each line holds two
/// poses, `qw qx qy qz tx ty tz` at the start and then at the end of the motion.
///
/// # Errors
/// As [`read_poses`], for 14 numbers a line.
pub fn read_motions(path: impl AsRef<Path>) -> Result<Vec<MotionLine>, PoseError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| PoseError::Io {
        path: path.into(),
        source,
    })?;
    parse_motions(&text, path)
}

/// Parses motion text; `path` only names the source in errors.
///
/// # Errors
/// As [`read_motions`], without the I/O error.
pub fn parse_motions(text: &str, path: &Path) -> Result<Vec<MotionLine>, PoseError> {
    Ok(parse_lines::<2>(text, path)?
        .into_iter()
        .map(|([start, end], line)| MotionLine { start, end, line })
        .collect())
}

/// The lines of `N` poses each, with their line numbers.
fn parse_lines<const N: usize>(
    text: &str,
    path: &Path,
) -> Result<Vec<([Isometry; N], usize)>, PoseError> {
    let mut poses = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |message: String| PoseError::BadLine {
            path: path.into(),
            line: n + 1,
            message,
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() != 7 * N {
            let fields = if N == 1 {
                "7 numbers (qw qx qy qz tx ty tz)".to_string()
            } else {
                format!("{} numbers ({N} poses of qw qx qy qz tx ty tz)", 7 * N)
            };
            return Err(bad(format!("expected {fields}, found {}", words.len())));
        }
        let mut v = vec![0.0f64; 7 * N];
        for (k, w) in words.iter().enumerate() {
            v[k] = w
                .parse()
                .map_err(|_| bad(format!("field {} '{}' is not a number", k + 1, excerpt(w))))?;
            if !v[k].is_finite() {
                return Err(bad(format!(
                    "field {} '{}' is not finite",
                    k + 1,
                    excerpt(w)
                )));
            }
        }
        let mut placed = [Isometry::identity(); N];
        for (i, pose) in placed.iter_mut().enumerate() {
            let v = &v[7 * i..7 * i + 7];
            let q = Quaternion::new(v[0], v[1], v[2], v[3]);
            let norm = q.norm();
            if (norm - 1.0).abs() > QUATERNION_NORM_TOLERANCE {
                return Err(bad(format!(
                    "quaternion ({}, {}, {}, {}) has norm {}, not within {} of 1",
                    short_number(v[0]),
                    short_number(v[1]),
                    short_number(v[2]),
                    short_number(v[3]),
                    short_number(norm),
                    QUATERNION_NORM_TOLERANCE
                )));
            }
            let rotation = UnitQuaternion::new_normalize(q);
            *pose = Isometry::from_parts(Translation::new(v[4], v[5], v[6]), rotation);
        }
        poses.push((placed, n + 1));
    }
    if poses.is_empty() {
        return Err(PoseError::Empty { path: path.into() });
    }
    Ok(poses)
}
