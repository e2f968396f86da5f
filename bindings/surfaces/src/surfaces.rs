//! The one owning implementation behind every surface (SPEC I8): the manifest command, the agent
//! export and the MCP proxy all call [`present`] (flat join, then the profile's lowering), so the
//! same input and profile yield byte-identical schemas everywhere.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::profiles::{self, Finding, Inlined, Lowered, Narrowing, Profile};

/// The diagnostics of a flattened manifest (`flatjoin manifest --diagnostics`, and the Node.js and
/// Python packages' `flattenManifest`): the `flatten` format, with pointers inside each tool's
/// input schema and the tool named on each entry.
pub fn manifest_diagnostics(tools: &[(String, flatjoin::Diagnostics)]) -> Value {
    let mut flattened = Vec::new();
    let mut skipped = Vec::new();
    for (tool, d) in tools {
        // Each entry as `Diagnostics::to_json` writes it (one format), the tool named first.
        let json = d.to_json();
        for (list, out) in [("flattened", &mut flattened), ("skipped", &mut skipped)] {
            for entry in json[list].as_array().into_iter().flatten() {
                if let Value::Object(mut entry) = entry.clone() {
                    entry.shift_insert(0, "tool".into(), Value::String(tool.clone()));
                    out.push(Value::Object(entry));
                }
            }
        }
    }
    json!({"flattened": flattened, "skipped": skipped})
}

/// One tool as the surfaces see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInput {
    /// The tool's name.
    pub name: String,
    /// The tool's description, when it has one.
    pub description: Option<String>,
    /// The original input schema.
    pub schema: Value,
}

/// The presentation of one input schema for `profile` (no profile: the flat join alone). This is
/// the function every surface calls.
pub fn present(
    original: &Value,
    profile: Option<Profile>,
    options: &flatjoin::Options,
) -> Result<Lowered, String> {
    present_flagging(original, profile, options, &mut profiles::Findings::new(""))
}

/// [`present`], recording in `findings` a root union the join kept, which no lowering can show
/// (SPEC §6 decision 69): what `export` reports beside the lowered schema's own findings.
pub fn present_flagging(
    original: &Value,
    profile: Option<Profile>,
    options: &flatjoin::Options,
    findings: &mut profiles::Findings,
) -> Result<Lowered, String> {
    let flat = flatjoin::flatten(original, options).map_err(|e| e.to_string())?;
    profiles::steps::root_union_kept(&flat, findings);
    Ok(match profile {
        Some(p) => profiles::lower(p, &flat.schema),
        None => Lowered::sound(flat.schema),
    })
}

/// The tools of an input: a manifest (an object with a `tools` array of MCP tool entries), or a
/// single schema taken as one tool named after its file (`file`'s stem; `tool` for stdin).
pub fn tools_of(input: &Value, file: Option<&Path>) -> Result<Vec<ToolInput>, String> {
    if let Some(tools) = input.get("tools") {
        let Value::Array(tools) = tools else {
            return Err("/tools: expected an array of tools".into());
        };
        return tools
            .iter()
            .enumerate()
            .map(|(i, tool)| {
                let name = tool
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("/tools/{i}/name: expected a string"))?;
                Ok(ToolInput {
                    name: name.to_owned(),
                    description: tool
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    schema: tool
                        .get("inputSchema")
                        .cloned()
                        .unwrap_or_else(|| json!({"type": "object"})),
                })
            })
            .collect();
    }
    let name = file
        .filter(|p| p.as_os_str() != "-")
        .and_then(Path::file_stem)
        .and_then(|s| s.to_str())
        .unwrap_or("tool");
    Ok(vec![ToolInput {
        name: name.to_owned(),
        description: input
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
        schema: input.clone(),
    }])
}

/// What [`apply_profile`] made of an input.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// The manifest with every `inputSchema` replaced by its lowered presentation, or the lowered
    /// presentation of a single schema.
    pub output: Value,
    /// Every narrowing of every tool, with the tool's name.
    pub narrowings: Vec<(String, Narrowing)>,
    /// Every definition the lowering copied into the places that refer to it (a profile that
    /// takes no `$ref`), with the tool's name.
    pub inlined: Vec<(String, Inlined)>,
    /// What the provider would still reject after lowering (lint of the output).
    pub residual: Vec<Finding>,
}

/// The manifest surface with a profile: flattens a manifest (through [`flatjoin::flatten_manifest`])
/// or a single schema, and lowers every input schema to `profile`. The `manifest --profile P`
/// option calls this; `profile: None` is the plain flat join.
pub fn apply_profile(
    input: &Value,
    profile: Option<Profile>,
    options: &flatjoin::Options,
) -> Result<Applied, String> {
    let mut narrowings = Vec::new();
    let mut inlined = Vec::new();
    let mut lowered_tools: Vec<(String, Value)> = Vec::new();
    let output = if input.get("tools").is_some() {
        let flat = flatjoin::flatten_manifest(input, options).map_err(|e| e.to_string())?;
        let mut manifest = flat.manifest;
        if let Some(Value::Array(tools)) = manifest.get_mut("tools") {
            for tool in tools.iter_mut() {
                let name = tool
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let Some(schema) = tool.get_mut("inputSchema") else {
                    continue;
                };
                if let Some(p) = profile {
                    let lowered = profiles::lower(p, schema);
                    narrowings.extend(lowered.narrowings.into_iter().map(|n| (name.clone(), n)));
                    inlined.extend(lowered.inlined.into_iter().map(|i| (name.clone(), i)));
                    *schema = lowered.schema;
                }
                lowered_tools.push((name, schema.clone()));
            }
        }
        manifest
    } else {
        let name = "tool".to_owned();
        let lowered = present(input, profile, options)?;
        narrowings.extend(lowered.narrowings.into_iter().map(|n| (name.clone(), n)));
        inlined.extend(lowered.inlined.into_iter().map(|i| (name.clone(), i)));
        lowered_tools.push((name, lowered.schema.clone()));
        lowered.schema
    };
    let residual = match profile {
        Some(p) => profiles::lint_tools(p, &lowered_tools),
        None => Vec::new(),
    };
    Ok(Applied {
        output,
        narrowings,
        inlined,
        residual,
    })
}

/// An agent provider's tool-declaration format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Provider {
    /// `[{"type": "function", "function": {"name", "description", "parameters"}}]`.
    Openai,
    /// `[{"name", "description", "input_schema"}]`.
    Anthropic,
    /// `{"functionDeclarations": [{"name", "description", "parameters"}]}`.
    Gemini,
}

impl Provider {
    /// The profile whose lowering the export applies (`strict` picks the strict variant).
    pub fn profile(self, strict: bool) -> Profile {
        match (self, strict) {
            (Provider::Openai, false) => Profile::Openai,
            (Provider::Openai, true) => Profile::OpenaiStrict,
            (Provider::Anthropic, false) => Profile::Anthropic,
            (Provider::Anthropic, true) => Profile::AnthropicStrict,
            (Provider::Gemini, _) => Profile::Gemini,
        }
    }
}

/// Which field of a Gemini `FunctionDeclaration` carries the input schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum GeminiField {
    /// `parameters`: the OpenAPI 3.0 subset (`gemini` profile), types in the API's upper case.
    #[default]
    #[cfg_attr(feature = "clap", value(name = "parameters"))]
    Parameters,
    /// `parametersJsonSchema`: JSON Schema (lowered like the `openai` profile: root object, no
    /// boolean subschemas).
    #[cfg_attr(feature = "clap", value(name = "parametersJsonSchema"))]
    ParametersJsonSchema,
}

/// What [`export`] made: the declarations and what the provider would still reject.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    /// The provider's tool-declaration JSON.
    pub declarations: Value,
    /// Every narrowing of every tool, with the tool's name.
    pub narrowings: Vec<(String, Narrowing)>,
    /// Every definition the lowering copied into the places that refer to it (a profile that
    /// takes no `$ref`), with the tool's name.
    pub inlined: Vec<(String, Inlined)>,
    /// Lint findings of the lowered tools.
    pub residual: Vec<Finding>,
}

/// The agent surface: the provider's tool declarations for every tool of `tools`.
pub fn export(
    tools: &[ToolInput],
    provider: Provider,
    strict: bool,
    options: &flatjoin::Options,
) -> Result<Exported, String> {
    export_with(tools, provider, strict, GeminiField::Parameters, options)
}

/// [`export`], with the Gemini declaration field chosen (ignored for other providers).
pub fn export_with(
    tools: &[ToolInput],
    provider: Provider,
    strict: bool,
    gemini_field: GeminiField,
    options: &flatjoin::Options,
) -> Result<Exported, String> {
    let profile = match (provider, gemini_field) {
        (Provider::Gemini, GeminiField::ParametersJsonSchema) => Profile::Openai,
        _ => provider.profile(strict),
    };
    let mut declarations = Vec::new();
    let mut narrowings = Vec::new();
    let mut inlined = Vec::new();
    let mut lowered_tools = Vec::new();
    // What lowering cannot show: a root union the join kept (SPEC §2.9), from the join itself.
    let mut residual = Vec::new();
    for tool in tools {
        let mut kept = profiles::Findings::new(&tool.name);
        let lowered = present_flagging(&tool.schema, Some(profile), options, &mut kept)
            .map_err(|e| format!("tool {}: {e}", tool.name))?;
        residual.extend(kept.into_vec());
        narrowings.extend(
            lowered
                .narrowings
                .iter()
                .cloned()
                .map(|n| (tool.name.clone(), n)),
        );
        inlined.extend(
            lowered
                .inlined
                .iter()
                .cloned()
                .map(|i| (tool.name.clone(), i)),
        );
        lowered_tools.push((tool.name.clone(), lowered.schema.clone()));
        let mut decl = Map::new();
        decl.insert("name".into(), json!(tool.name));
        if let Some(d) = &tool.description {
            decl.insert("description".into(), json!(d));
        }
        match provider {
            Provider::Openai => {
                decl.insert("parameters".into(), lowered.schema);
                if strict {
                    decl.insert("strict".into(), json!(true));
                }
                declarations.push(json!({"type": "function", "function": decl}));
            }
            Provider::Anthropic => {
                decl.insert("input_schema".into(), lowered.schema);
                if strict {
                    decl.insert("strict".into(), json!(true));
                }
                declarations.push(Value::Object(decl));
            }
            Provider::Gemini => {
                // A function without parameters omits `parameters` (Gemini rejects an OBJECT
                // with empty properties).
                let empty = lowered
                    .schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_none_or(|p| p.is_empty());
                if !empty {
                    let mut schema = lowered.schema;
                    let field = match gemini_field {
                        GeminiField::Parameters => {
                            profiles::gemini::to_wire(&mut schema);
                            "parameters"
                        }
                        GeminiField::ParametersJsonSchema => "parametersJsonSchema",
                    };
                    decl.insert(field.into(), schema);
                }
                declarations.push(Value::Object(decl));
            }
        }
    }
    residual.extend(profiles::lint_tools(profile, &lowered_tools));
    let declarations = match provider {
        Provider::Gemini => json!({"functionDeclarations": declarations}),
        _ => Value::Array(declarations),
    };
    Ok(Exported {
        declarations,
        narrowings,
        inlined,
        residual,
    })
}

/// How many of `tools` pass `profile`'s lint as they are, and after [`present`] (flat join and
/// lowering). Request-wide limits are left out (they are not any one tool's); a tool whose
/// presentation fails does not pass after.
pub fn pass_counts(
    tools: &[ToolInput],
    profile: Profile,
    options: &flatjoin::Options,
) -> (usize, usize) {
    let passes = |name: &str, schema: &Value| {
        !profiles::lint(profile, name, schema)
            .iter()
            .any(|f| f.severity == profiles::Severity::Error)
    };
    let before = tools.iter().filter(|t| passes(&t.name, &t.schema)).count();
    let after = tools
        .iter()
        .filter(|t| {
            present(&t.schema, Some(profile), options).is_ok_and(|l| passes(&t.name, &l.schema))
        })
        .count();
    (before, after)
}
