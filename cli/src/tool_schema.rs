//! The `schemars` helper: a Rust type deriving `schemars::JsonSchema` (typically a serde-tagged
//! enum, which schemars renders as a root `oneOf`) becomes a flat MCP tool input schema, so an
//! `rmcp` server can expose enum parameters to clients that require `type: "object"`.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, JsonSchema)]
//! #[serde(tag = "kind", rename_all = "snake_case")]
//! enum Shape {
//!     Circle { radius: f64 },
//!     Square { side: f64 },
//! }
//!
//! let schema = flatjoin_cli::tool_schema::flat_tool_schema::<Shape>().unwrap();
//! assert_eq!(schema["type"], "object");
//! assert_eq!(schema["properties"]["kind"]["enum"], serde_json::json!(["circle", "square"]));
//! ```

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

use crate::profiles::Profile;
use crate::surfaces;

/// The flat MCP input schema of `T`: schemars' schema, flattened and lowered to the `mcp` profile
/// by the same function every other surface uses.
pub fn flat_tool_schema<T: schemars::JsonSchema>() -> Result<JsonObject, String> {
    let schema = schemars::schema_for!(T);
    let value = serde_json::to_value(&schema).map_err(|e| format!("schemars output: {e}"))?;
    let lowered = surfaces::present(&value, Some(Profile::Mcp), &flatjoin::Options::default())?;
    match lowered.schema {
        Value::Object(map) => Ok(map),
        other => Err(format!("the presentation is not an object schema: {other}")),
    }
}

/// An `rmcp` [`Tool`] named `name` whose input schema is [`flat_tool_schema::<T>`]. The original
/// (unflattened) schema stays the runtime check: validate arguments with
/// `flatjoin::Runtime::new(&serde_json::to_value(schemars::schema_for!(T))?)`, or deserialize
/// them into `T`.
pub fn flat_tool<T: schemars::JsonSchema>(
    name: &'static str,
    description: &'static str,
) -> Result<Tool, String> {
    Ok(Tool::new(
        name,
        description,
        Arc::new(flat_tool_schema::<T>()?),
    ))
}
