//! The union-typed tool arguments of the test upstream server (`union-server`).
//!
//! The fields are read only through `Debug` (the server answers with the parsed value) and shape
//! the schemars schema, which the dead-code lint does not count.
#![allow(dead_code)]

use schemars::JsonSchema;
use serde::Deserialize;

/// A point on the canvas.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Horizontal position.
    pub x: f64,
    /// Vertical position.
    pub y: f64,
}

/// What `draw_shape` draws: a serde internally tagged enum, which schemars renders as a root
/// `oneOf` of closed objects discriminated by `kind`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// A circle around the origin.
    Circle {
        /// Radius, at least 0.
        radius: f64,
    },
    /// A closed polygon.
    Polygon {
        /// The corners, in order.
        points: Vec<Point>,
    },
    /// A text label.
    Label {
        /// The text.
        text: String,
        /// Where it goes.
        at: Point,
    },
}

/// What `send_message` sends: a union whose `to` field collides (a list in one branch, a string
/// in the other), discriminated by `channel`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "channel", rename_all = "snake_case")]
pub enum Message {
    /// An email.
    Email {
        /// Recipients.
        to: Vec<String>,
        /// Subject line.
        subject: String,
    },
    /// A text message.
    Sms {
        /// The phone number.
        to: String,
        /// The text.
        body: String,
    },
}
