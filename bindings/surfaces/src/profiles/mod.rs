//! Provider profiles: what each provider accepts as a tool input schema (`lint`), and how the flat
//! presentation is lowered to that provider's dialect (`lower`).
//!
//! One module per profile; each documents its rules with their source. A lowering is either sound
//! (the lowered schema accepts every value the presentation accepts) or lists each place where it
//! narrows in [`Lowered::narrowings`], with the argument normalizer that undoes what it can
//! ([`normalize_arguments`]). A profile that takes no `$ref` (gemini, cursor) copies each
//! definition into the places that refer to it, and lists in [`Lowered::inlined`] every one it
//! copied into two or more places and every union the flat join wrote once for sharing (SPEC §6
//! decision 73): sound, but each copy is size the provider receives. Lint is an independent
//! check: it never asks the lowering, so "passes lint after lowering" is a real test of the
//! lowering.

pub mod anthropic;
pub mod anthropic_strict;
pub mod cursor;
pub mod gemini;
pub mod mcp;
pub mod openai;
pub mod openai_strict;
pub mod steps;
pub mod walk;
pub mod widen;

use serde_json::{Value, json};

/// A provider dialect a presentation can be checked against and lowered to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Profile {
    /// OpenAI function tools, non-strict.
    Openai,
    /// OpenAI function tools with `strict: true` (Structured Outputs).
    OpenaiStrict,
    /// Anthropic Messages API tools.
    Anthropic,
    /// Anthropic tools with `strict: true` (structured outputs).
    AnthropicStrict,
    /// Gemini `functionDeclarations[].parameters` (an OpenAPI 3.0 schema subset).
    Gemini,
    /// An MCP `tools/list` entry as the MCP TypeScript SDK client validates it.
    Mcp,
    /// Cursor's tool loader: no `anyOf`/`oneOf`/`allOf` at any depth.
    Cursor,
}

impl Profile {
    /// Every profile, in the order reports list them.
    pub const ALL: [Profile; 7] = [
        Profile::Openai,
        Profile::OpenaiStrict,
        Profile::Anthropic,
        Profile::AnthropicStrict,
        Profile::Gemini,
        Profile::Mcp,
        Profile::Cursor,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Openai => "openai",
            Profile::OpenaiStrict => "openai-strict",
            Profile::Anthropic => "anthropic",
            Profile::AnthropicStrict => "anthropic-strict",
            Profile::Gemini => "gemini",
            Profile::Mcp => "mcp",
            Profile::Cursor => "cursor",
        }
    }

    /// The draft whose words the provider reads a tool's schema in (SPEC §6 decision 36): 2020-12
    /// for Anthropic, whose API rejects a schema the 2020-12 meta-schema does not accept ("JSON
    /// schema is invalid. It must match JSON Schema draft 2020-12"); draft-07 and later words for
    /// the others, which read `$schema` where they read it at all.
    pub fn reads(self) -> flatjoin::Draft {
        match self {
            Profile::Anthropic | Profile::AnthropicStrict => flatjoin::Draft::Draft202012,
            _ => flatjoin::Draft::Draft7,
        }
    }
}

/// How bad a finding is: an `Error` is something the provider rejects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The provider rejects the tool (or the whole request).
    Error,
    /// The provider accepts the tool but ignores or degrades part of it.
    Warning,
}

/// One problem a provider would have with one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The tool's name.
    pub tool: String,
    /// Where, as a JSON pointer into the tool's input schema.
    pub pointer: String,
    /// The rule's stable identifier (for example `array-items`).
    pub rule: &'static str,
    /// Whether the provider rejects the tool.
    pub severity: Severity,
    /// What the provider would say.
    pub message: String,
    /// What `flatjoin export` does about it.
    pub fix: String,
}

impl Finding {
    /// The finding as a JSON object (the `--format json` record).
    pub fn to_json(&self) -> Value {
        json!({
            "tool": self.tool,
            "pointer": self.pointer,
            "rule": self.rule,
            "severity": match self.severity { Severity::Error => "error", Severity::Warning => "warning" },
            "message": self.message,
            "fix": self.fix,
        })
    }
}

/// A place where a lowering accepts fewer values than the presentation.
#[derive(Debug, Clone, PartialEq)]
pub struct Narrowing {
    /// Where, as a JSON pointer into the lowered schema.
    pub pointer: String,
    /// What kind of narrowing (for example `required-all`).
    pub rule: &'static str,
    /// A sentence saying which values no longer pass, and what undoes it.
    pub detail: String,
}

/// A definition a lowering copied into the places that refer to it, because the profile takes no
/// `$ref`: sound (a copy accepts what its reference did), but each copy is size the provider
/// receives. Listed for every flattened union the join wrote once for its sites (`shared-union`,
/// SPEC §6 decision 73) and every other definition copied into two or more places
/// (`shared-definition`).
#[derive(Debug, Clone, PartialEq)]
pub struct Inlined {
    /// The definition, as a JSON pointer into the presentation (`/$defs/flatjoin_union_1`).
    pub definition: String,
    /// `shared-union` (a `flatjoin_union_N` the join wrote) or `shared-definition`.
    pub rule: &'static str,
    /// How many `$ref`s to it the presentation has.
    pub sites: usize,
    /// How many copies of it the lowered schema holds: more than `sites` where a site is inside
    /// a definition that is itself copied into several places.
    pub copies: usize,
    /// Its size in minified JSON bytes, as it was copied (a reference inside it counted as the
    /// reference: its target's copies are its own record's).
    pub bytes: usize,
    /// A sentence saying what was copied how often, and what that costs.
    pub detail: String,
}

/// A property the lowering made required and nullable: a `null` sent for it means "absent".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NullableField {
    /// JSON pointer of the object schema (in the lowered schema) that declares the property.
    pub object: String,
    /// The property's name.
    pub field: String,
}

/// A presentation lowered to one profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Lowered {
    /// The schema to show the provider.
    pub schema: Value,
    /// Every place where `schema` accepts less than the presentation did.
    pub narrowings: Vec<Narrowing>,
    /// The properties the lowering made nullable (the argument normalizer's input).
    pub made_nullable: Vec<NullableField>,
    /// Optional properties that already accepted `null` and were made required: a model sends
    /// `null` where it means "absent", and that `null` is passed on as it is (the original accepts
    /// it: the property is nullable).
    pub required_nullable: Vec<NullableField>,
    /// The definitions the lowering copied into the places that refer to them (a profile that
    /// takes no `$ref`), each with its sites, copies and size: the size cost of inlining.
    pub inlined: Vec<Inlined>,
}

impl Lowered {
    /// A lowering that only replaced the schema, soundly.
    pub fn sound(schema: Value) -> Self {
        Lowered::with_narrowings(schema, Vec::new())
    }

    /// A lowering with these narrowings and no argument normalization.
    pub fn with_narrowings(schema: Value, narrowings: Vec<Narrowing>) -> Self {
        Lowered {
            schema,
            narrowings,
            made_nullable: Vec::new(),
            required_nullable: Vec::new(),
            inlined: Vec::new(),
        }
    }

    /// This lowering, with the definitions it copied into the places that refer to them.
    pub fn with_inlined(self, inlined: Vec<Inlined>) -> Self {
        Lowered { inlined, ..self }
    }
}

/// Collects the findings of one tool, for the profiles' `lint` functions.
pub struct Findings {
    tool: String,
    list: Vec<Finding>,
}

impl Findings {
    /// An empty collection for `tool`.
    pub fn new(tool: &str) -> Self {
        Findings {
            tool: tool.to_owned(),
            list: Vec::new(),
        }
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Records something the provider rejects.
    pub fn error(&mut self, pointer: &str, rule: &'static str, message: String, fix: &str) {
        self.push(pointer, rule, Severity::Error, message, fix);
    }

    /// Records one error per exceeded limit: each check is `(rule, measured, limit, what)`, and
    /// `message(measured, what, limit)` words the provider's refusal.
    pub fn limits(
        &mut self,
        checks: &[(&'static str, usize, usize, &str)],
        message: impl Fn(usize, &str, usize) -> String,
        fix: &str,
    ) {
        for &(rule, got, max, what) in checks {
            if got > max {
                self.error("", rule, message(got, what, max), fix);
            }
        }
    }

    /// Records something the provider accepts but degrades.
    pub fn warning(&mut self, pointer: &str, rule: &'static str, message: String, fix: &str) {
        self.push(pointer, rule, Severity::Warning, message, fix);
    }

    fn push(
        &mut self,
        pointer: &str,
        rule: &'static str,
        severity: Severity,
        message: String,
        fix: &str,
    ) {
        self.list.push(Finding {
            tool: self.tool.clone(),
            pointer: pointer.to_owned(),
            rule,
            severity,
            message,
            fix: fix.to_owned(),
        });
    }

    /// The findings, in the order recorded.
    pub fn into_vec(self) -> Vec<Finding> {
        self.list
    }
}

/// Lints one tool's input schema against `profile`.
pub fn lint(profile: Profile, tool: &str, schema: &Value) -> Vec<Finding> {
    let mut findings = Findings::new(tool);
    steps::check_tool_name(profile, tool, &mut findings);
    steps::check_root_union_kept(schema, &mut findings);
    match profile {
        Profile::Openai => openai::lint(schema, &mut findings),
        Profile::OpenaiStrict => openai_strict::lint(schema, &mut findings),
        Profile::Anthropic => anthropic::lint(schema, &mut findings),
        Profile::AnthropicStrict => anthropic_strict::lint(schema, &mut findings),
        Profile::Gemini => gemini::lint(schema, &mut findings),
        Profile::Mcp => mcp::lint(schema, &mut findings),
        Profile::Cursor => cursor::lint(schema, &mut findings),
    }
    findings.into_vec()
}

/// The names of the tools that `findings` rejects (at least one error), in `tools` order: what
/// `flatjoin lint` reports as `rejected_tools`, and what the packages' `lint` returns.
pub fn rejected_tools<'a>(tools: &'a [(String, Value)], findings: &[Finding]) -> Vec<&'a str> {
    tools
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| {
            findings
                .iter()
                .any(|f| f.tool == *n && f.severity == Severity::Error)
        })
        .collect()
}

/// Lints every tool of a manifest (name, input schema) against `profile`, including the limits a
/// provider counts across all tools of one request.
pub fn lint_tools(profile: Profile, tools: &[(String, Value)]) -> Vec<Finding> {
    let mut all: Vec<Finding> = tools
        .iter()
        .flat_map(|(name, schema)| lint(profile, name, schema))
        .collect();
    if profile == Profile::AnthropicStrict {
        all.extend(anthropic_strict::lint_request(tools));
    }
    all
}

/// Lowers a presentation (the output of the flat join) to `profile`, first spelled in the words
/// the profile's provider reads ([`Profile::reads`], [`steps::respell`]) and in positive form
/// ([`steps::positive_form`]).
pub fn lower(profile: Profile, presentation: &Value) -> Lowered {
    let mut modern = presentation.clone();
    steps::hoist_ref_targets(&mut modern);
    steps::respell(&mut modern, profile.reads());
    steps::positive_form(&mut modern);
    let presentation = &modern;
    match profile {
        Profile::Openai => openai::lower(presentation),
        Profile::OpenaiStrict => openai_strict::lower(presentation),
        Profile::Anthropic => anthropic::lower(presentation),
        Profile::AnthropicStrict => anthropic_strict::lower(presentation),
        Profile::Gemini => gemini::lower(presentation),
        Profile::Mcp => mcp::lower(presentation),
        Profile::Cursor => cursor::lower(presentation),
    }
}

/// The argument normalizer: undoes the narrowings of `lowered` on arguments a model sent for it,
/// so the runtime of the original schema sees what the original expects. Today that is one rule
/// (openai-strict): a `null` for exactly a property the lowering made nullable becomes absent.
/// Every other value is returned unchanged.
pub fn normalize_arguments(lowered: &Lowered, arguments: &Value) -> Value {
    if lowered.made_nullable.is_empty() {
        return arguments.clone();
    }
    let mut out = arguments.clone();
    openai_strict::normalize(
        &lowered.schema,
        "",
        &lowered.schema,
        &lowered.made_nullable,
        &mut out,
        0,
    );
    out
}

/// The normalizer as the MCP proxy applies it, given the original's runtime check `accepts`:
/// first [`normalize_arguments`]; where the original rejects that but accepts the call as the
/// model sent it, the call as sent (a `null` dropped for a field made nullable can make a member
/// of a `oneOf` the value did not mean match beside the one it did); then, only if the original
/// rejects both, a `null` sent for a property in [`Lowered::required_nullable`] (optional and
/// nullable in the presentation, made required by the lowering, so `null` is all a model can send
/// for "absent") is taken as absent when that makes the original accept the call. An accepted
/// call is never changed by the second rule.
pub fn normalize_arguments_checked(
    lowered: &Lowered,
    arguments: &Value,
    accepts: &dyn Fn(&Value) -> bool,
) -> Value {
    let first = normalize_arguments(lowered, arguments);
    if accepts(&first) {
        return first;
    }
    if first != *arguments && accepts(arguments) {
        return arguments.clone();
    }
    if lowered.required_nullable.is_empty() {
        return first;
    }
    let mut second = first.clone();
    openai_strict::normalize(
        &lowered.schema,
        "",
        &lowered.schema,
        &lowered.required_nullable,
        &mut second,
        0,
    );
    if second != first && accepts(&second) {
        second
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_passed_on_null_becomes_absent_only_when_the_original_needs_it() {
        let presentation = json!({
            "type": "object",
            "properties": {"kind": {"enum": ["a", "b"]}, "tags": {"type": ["array", "null"], "items": {"type": "string"}}},
            "required": ["kind"]
        });
        let lowered = lower(Profile::OpenaiStrict, &presentation);
        assert_eq!(lowered.required_nullable.len(), 1);
        // The original: branch "a" forbids `tags`, branch "b" takes `tags: null`.
        let accepts = |v: &Value| match v["kind"].as_str() {
            Some("a") => v.get("tags").is_none(),
            _ => true,
        };
        let a = json!({"kind": "a", "tags": null});
        assert_eq!(
            normalize_arguments_checked(&lowered, &a, &accepts),
            json!({"kind": "a"})
        );
        let b = json!({"kind": "b", "tags": null});
        assert_eq!(normalize_arguments_checked(&lowered, &b, &accepts), b);
        assert_eq!(normalize_arguments(&lowered, &a), a);
    }
}
