//! flatjoin-edge: the one edge the Node.js (`bindings/node`) and Python (`bindings/python`)
//! packages share. Each function takes JSON text (what the package's wrapper made of the caller's
//! object with its runtime's own JSON printer), calls the same functions the `flatjoin` binary
//! calls — [`flatjoin::flatten_owned`] (`flatjoin flatten`), [`flatjoin::flatten_manifest_owned`]
//! and [`surfaces::apply_profile`] (`flatjoin manifest`), [`flatjoin::Runtime`] (`flatjoin
//! validate`), [`surfaces::tools_of`] with [`profiles::lint_tools`] (`flatjoin lint`) and
//! [`surfaces::export_with`] (`flatjoin export`) — and returns one JSON text, the *envelope*:
//! `{"ok": RESULT}` or `{"error": {"kind", "pointer", "message"}}` ([`run`]). Nothing here joins,
//! lowers or validates by itself.
//!
//! Why text and not converted objects: measured in `reports/join-cost.md` (the in-process
//! section); V8's and CPython's JSON printers and parsers are the fastest way across, and text
//! keeps the depth check of [`flatjoin::parse`] (SPEC §6: nesting past [`flatjoin::MAX_DEPTH`] is
//! an error with a pointer, never a stack overflow) on every input.

use std::panic::{AssertUnwindSafe, catch_unwind};

pub use flatjoin::Options;
use flatjoin::{RuntimeOptions, UnknownName};
use flatjoin_surfaces::profiles::{self, Finding, Profile};
use flatjoin_surfaces::surfaces::{self, GeminiField, Provider, ToolInput};
use serde_json::{Map, Value, json};

/// Why a call failed: what the packages raise as an error with `kind`, `pointer` and `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// A stable name: the core's [`flatjoin::ErrorKind::name`], or `invalid_option`,
    /// `not_a_manifest`, `internal`.
    pub kind: String,
    /// JSON pointer into the argument the failure is about (`""`: its root).
    pub pointer: String,
    /// The message the `flatjoin` binary prints for the same input (after its `file: ` prefix).
    pub message: String,
}

impl Failure {
    fn new(kind: &str, pointer: &str, message: impl Into<String>) -> Failure {
        Failure {
            kind: kind.to_owned(),
            pointer: pointer.to_owned(),
            message: message.into(),
        }
    }

    fn option(name: &str, value: &str, allowed: &[&str]) -> Failure {
        Failure::new(
            "invalid_option",
            "",
            format!("option {name}: {value:?} is not one of {allowed:?}"),
        )
    }

    /// A join option's value the core's `FromStr` refused; `name` is the option as the packages
    /// spell it.
    fn unknown(name: &str, e: &UnknownName) -> Failure {
        Failure::option(name, &e.value, e.accepted)
    }

    /// A message of the CLI library's surfaces (`/tools/3/name: expected a string`): the pointer
    /// is what stands before the first `: `.
    fn surface(message: String) -> Failure {
        let pointer = message
            .split_once(": ")
            .map(|(p, _)| p)
            .filter(|p| p.starts_with('/'))
            .unwrap_or_default()
            .to_owned();
        Failure {
            kind: "not_a_manifest".to_owned(),
            pointer,
            message,
        }
    }
}

impl From<flatjoin::Error> for Failure {
    fn from(e: flatjoin::Error) -> Failure {
        Failure {
            kind: e.kind.name().to_owned(),
            message: e.to_string(),
            pointer: e.pointer,
        }
    }
}

/// A call's result: the JSON the package hands back, or why there is none.
pub type Outcome = Result<Value, Failure>;

/// Runs one call and prints its envelope. A panic (a bug: the core is written not to panic on any
/// input) is caught here and becomes an `internal` error, so the host process never dies of it.
pub fn run(call: impl FnOnce() -> Outcome) -> String {
    envelope(caught(call))
}

/// `call`'s result, a panic turned into an `internal` failure (see [`run`]).
fn caught<T>(call: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(call)).unwrap_or_else(|_| {
        Err(Failure::new(
            "internal",
            "",
            "flatjoin panicked (a bug: please report the input)",
        ))
    })
}

/// `{"ok": RESULT}` or `{"error": {"kind", "pointer", "message"}}`, compact.
pub fn envelope(outcome: Outcome) -> String {
    let (tag, body) = match outcome {
        Ok(value) => ("ok", value),
        Err(f) => (
            "error",
            json!({"kind": f.kind, "pointer": f.pointer, "message": f.message}),
        ),
    };
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(b"{\"");
    out.extend_from_slice(tag.as_bytes());
    out.extend_from_slice(b"\":");
    // Printing a `Value` cannot fail (its keys are strings) and prints UTF-8.
    if serde_json::to_writer(&mut out, &body).is_err() {
        return r#"{"error":{"kind":"internal","pointer":"","message":"cannot print the result"}}"#
            .to_owned();
    }
    out.push(b'}');
    String::from_utf8(out).unwrap_or_default()
}

/// Parses one argument with the core's depth-checked parser; `what` names it in the message.
pub fn parse(text: &str, what: &str) -> Result<Value, Failure> {
    flatjoin::parse(text.as_bytes()).map_err(|e| parse_failure(e, what))
}

/// A parse error of argument `what`, named in the message.
fn parse_failure(e: flatjoin::Error, what: &str) -> Failure {
    let mut f = Failure::from(e);
    f.message = format!("{what}: {}", f.message);
    f
}

/// An error of a core call that parsed argument `what` itself (`flatjoin::flatten_text_with`):
/// named as [`parse`] names it where the text did not parse (no later stage reports these kinds:
/// the parsed document's depth is bounded), as it is otherwise.
fn text_failure(e: flatjoin::Error, what: &str) -> Failure {
    match e.kind {
        flatjoin::ErrorKind::NotJson { .. } | flatjoin::ErrorKind::TooDeep { .. } => {
            parse_failure(e, what)
        }
        _ => Failure::from(e),
    }
}

/// The join options from the packages' names (`scope: "all" | "root"`, `openBranches` /
/// `open_branches: "declared" | "permissive"`); `None` is the default, as for the CLI.
pub fn join_options(scope: Option<&str>, open_branches: Option<&str>) -> Result<Options, Failure> {
    let scope = scope
        .map(str::parse)
        .transpose()
        .map_err(|e| Failure::unknown("scope", &e))?;
    let open_branches = open_branches
        .map(str::parse)
        .transpose()
        .map_err(|e| Failure::unknown("openBranches", &e))?;
    Ok(Options::new(
        scope.unwrap_or_default(),
        open_branches.unwrap_or_default(),
    ))
}

/// `flatjoin flatten`: `{"schema": PRESENTATION, "diagnostics": {"flattened", "skipped"}}` (the
/// diagnostics in the CLI's `--diagnostics` format).
pub fn flatten(schema: &str, options: &Options) -> Outcome {
    let flat = flatjoin::flatten_text_with(schema.as_bytes(), options, &mut drop::<Value>)
        .map_err(|e| text_failure(e, "schema"))?;
    Ok(flattened(flat))
}

/// [`flatten`] of a document already converted to a [`Value`] (the packages' measured
/// alternative to text, `bench-object-conversion`; the caller owns the depth check).
pub fn flatten_value(schema: Value, options: &Options) -> Outcome {
    Ok(flattened(flatjoin::flatten_owned(schema, options)?))
}

/// The answer of [`flatten`].
fn flattened(flat: flatjoin::Flattened) -> Value {
    let mut out = Map::new();
    out.insert("schema".into(), flat.schema);
    out.insert("diagnostics".into(), flat.diagnostics.to_json());
    Value::Object(out)
}

/// `flatjoin manifest [--profile P]`: `{"manifest", "diagnostics", "narrowings", "inlined"}`; the
/// diagnostics name each tool (the CLI's `--diagnostics` format for manifests), the narrowings
/// and the definitions copied in place of their references are the profile's lowering's (none
/// without a profile).
pub fn flatten_manifest(manifest: &str, options: &Options, profile: Option<&str>) -> Outcome {
    if profile.is_none() {
        let flat =
            flatjoin::flatten_manifest_text_with(manifest.as_bytes(), options, &mut drop::<Value>)
                .map_err(|e| text_failure(e, "manifest"))?;
        return Ok(manifest_flattened(flat));
    }
    flatten_manifest_value(parse(manifest, "manifest")?, options, profile)
}

/// The answer of [`flatten_manifest`] without a profile.
fn manifest_flattened(flat: flatjoin::FlattenedManifest) -> Value {
    let mut out = Map::new();
    out.insert("manifest".into(), flat.manifest);
    out.insert(
        "diagnostics".into(),
        surfaces::manifest_diagnostics(&flat.tools),
    );
    out.insert("narrowings".into(), Value::Array(Vec::new()));
    out.insert("inlined".into(), Value::Array(Vec::new()));
    Value::Object(out)
}

/// [`flatten_manifest`] of a document already converted to a [`Value`] (see [`flatten_value`]).
pub fn flatten_manifest_value(
    manifest: Value,
    options: &Options,
    profile: Option<&str>,
) -> Outcome {
    let Some(profile) = profile else {
        let flat = flatjoin::flatten_manifest_owned(manifest, options)?;
        return Ok(manifest_flattened(flat));
    };
    let mut out = Map::new();
    let profile = profile_named(profile)?;
    let flat = flatjoin::flatten_manifest(&manifest, options)?;
    let applied =
        surfaces::apply_profile(&manifest, Some(profile), options).map_err(Failure::surface)?;
    out.insert("manifest".into(), applied.output);
    out.insert(
        "diagnostics".into(),
        surfaces::manifest_diagnostics(&flat.tools),
    );
    out.insert("narrowings".into(), narrowings_json(&applied.narrowings));
    out.insert("inlined".into(), inlined_json(&applied.inlined));
    Ok(Value::Object(out))
}

/// `flatjoin validate [--assert-formats]`: the original schema decides. `{"valid": true, "branch":
/// null, "errors": [], "message": ""}`, or `valid: false` with the branch the discriminator
/// selected (`kind "polygon"`), each error's `instancePath` and `message`, and the CLI's text.
/// Compiles the schema for this one value: a [`Validator`] compiles it once for many.
pub fn validate(original: &str, value: &str, assert_formats: bool) -> Outcome {
    let original = parse(original, "schema")?;
    let value = parse(value, "value")?;
    Ok(Validator::compile(&original, assert_formats)?.verdict(&value))
}

/// [`validate`] with the original schema compiled once ([`flatjoin::Runtime::with_options`]), for
/// the packages' reusable validators: [`Validator::validate`] returns what [`validate`] returns for
/// the same schema, value and `assert_formats`. `Send + Sync` (the compiled schema is read-only),
/// so a package may share one across threads and validate without its runtime's lock.
pub struct Validator {
    runtime: flatjoin::Runtime,
}

impl Validator {
    /// Parses and compiles the original schema; the failure is the one [`validate`] reports for
    /// it (kind, pointer, message). A panic is caught and becomes an `internal` failure, as in
    /// [`run`].
    pub fn new(original: &str, assert_formats: bool) -> Result<Validator, Failure> {
        caught(|| Validator::compile(&parse(original, "schema")?, assert_formats))
    }

    /// Compiles an original schema already parsed.
    pub fn compile(original: &Value, assert_formats: bool) -> Result<Validator, Failure> {
        let options = RuntimeOptions {
            assert_formats,
            ..RuntimeOptions::default()
        };
        let runtime = flatjoin::Runtime::with_options(original, &options)?;
        Ok(Validator { runtime })
    }

    /// The verdict on one value's JSON text: `{"valid", "branch", "errors", "message"}` as
    /// [`validate`] returns it (a value that is not JSON, or nested too deeply, is a failure with
    /// kind and pointer). Call it inside [`run`] for the envelope and a caught panic.
    pub fn validate(&self, value: &str) -> Outcome {
        Ok(self.verdict(&parse(value, "value")?))
    }

    /// The verdict on a parsed value.
    pub fn verdict(&self, value: &Value) -> Value {
        match self.runtime.validate(value) {
            Ok(()) => json!({"valid": true, "branch": null, "errors": [], "message": ""}),
            Err(errors) => json!({
                "valid": false,
                "branch": errors.branch,
                "errors": errors.errors.iter().map(|e| json!({
                    "instancePath": e.instance_path,
                    "message": e.message,
                })).collect::<Vec<_>>(),
                "message": errors.to_string(),
            }),
        }
    }
}

/// `flatjoin lint --profile P --format json`, without its `file` field: `{"profile", "tools",
/// "rejected_tools", "findings"}` for a manifest or a single schema (one tool named `tool`).
pub fn lint(input: &str, profile: &str) -> Outcome {
    let profile = profile_named(profile)?;
    let input = parse(input, "schema")?;
    let tools = surfaces::tools_of(&input, None).map_err(Failure::surface)?;
    let named: Vec<(String, Value)> = tools.into_iter().map(|t| (t.name, t.schema)).collect();
    let findings = profiles::lint_tools(profile, &named);
    let rejected = profiles::rejected_tools(&named, &findings);
    Ok(json!({
        "profile": profile.name(),
        "tools": named.len(),
        "rejected_tools": rejected,
        "findings": findings.iter().map(Finding::to_json).collect::<Vec<_>>(),
    }))
}

/// `flatjoin export --provider P [--strict] [--gemini-field F]`: `{"declarations", "narrowings",
/// "inlined", "residual"}` — the declarations the CLI prints, and what it writes to stderr as
/// data.
pub fn export_tools(
    input: &str,
    provider: &str,
    strict: bool,
    gemini_field: Option<&str>,
) -> Outcome {
    let provider = match provider {
        "openai" => Provider::Openai,
        "anthropic" => Provider::Anthropic,
        "gemini" => Provider::Gemini,
        other => {
            return Err(Failure::option(
                "provider",
                other,
                &["openai", "anthropic", "gemini"],
            ));
        }
    };
    if strict && provider == Provider::Gemini {
        return Err(Failure::new(
            "invalid_option",
            "",
            "export: gemini has no strict mode",
        ));
    }
    let field = match gemini_field {
        None | Some("parameters") => GeminiField::Parameters,
        Some("parametersJsonSchema") if provider == Provider::Gemini => {
            GeminiField::ParametersJsonSchema
        }
        Some("parametersJsonSchema") => {
            return Err(Failure::new(
                "invalid_option",
                "",
                "export: geminiField applies to provider gemini only",
            ));
        }
        Some(other) => {
            return Err(Failure::option(
                "geminiField",
                other,
                &["parameters", "parametersJsonSchema"],
            ));
        }
    };
    let input = parse(input, "schema")?;
    let tools = surfaces::tools_of(&input, None).map_err(Failure::surface)?;
    let options = Options::default();
    let exported = surfaces::export_with(&tools, provider, strict, field, &options)
        .map_err(|message| typed_failure(&tools, &options, message))?;
    Ok(json!({
        "declarations": exported.declarations,
        "narrowings": narrowings_json(&exported.narrowings),
        "inlined": inlined_json(&exported.inlined),
        "residual": exported.residual.iter().map(Finding::to_json).collect::<Vec<_>>(),
    }))
}

/// The surfaces report a failed join as text; on that (rare) path the first tool whose join fails
/// is joined again for the typed error, its pointer inside that tool's input schema.
fn typed_failure(tools: &[ToolInput], options: &Options, message: String) -> Failure {
    tools
        .iter()
        .find_map(|t| flatjoin::flatten(&t.schema, options).err())
        .map_or_else(
            || Failure::new("invalid_input", "", message.clone()),
            |e| Failure {
                message: message.clone(),
                ..Failure::from(e)
            },
        )
}

fn narrowings_json(narrowings: &[(String, profiles::Narrowing)]) -> Value {
    narrowings
        .iter()
        .map(|(tool, n)| json!({"tool": tool, "pointer": n.pointer, "rule": n.rule, "detail": n.detail}))
        .collect()
}

fn inlined_json(inlined: &[(String, profiles::Inlined)]) -> Value {
    inlined
        .iter()
        .map(|(tool, i)| {
            json!({
                "tool": tool,
                "definition": i.definition,
                "rule": i.rule,
                "sites": i.sites,
                "copies": i.copies,
                "bytes": i.bytes,
                "detail": i.detail,
            })
        })
        .collect()
}

fn profile_named(name: &str) -> Result<Profile, Failure> {
    Profile::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
            Failure::option("profile", name, &names)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Value {
        let v: Value = serde_json::from_str(text).expect("an envelope is JSON");
        v.get("ok")
            .cloned()
            .unwrap_or_else(|| panic!("not ok: {text}"))
    }

    fn error(text: &str) -> Value {
        let v: Value = serde_json::from_str(text).expect("an envelope is JSON");
        v.get("error")
            .cloned()
            .unwrap_or_else(|| panic!("not an error: {text}"))
    }

    const UNION: &str = r#"{"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "number"}}, "required": ["kind", "x"]},
        {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind", "y"]}
    ]}"#;

    #[test]
    fn flatten_envelope_holds_the_presentation_and_diagnostics() {
        let out = ok(&run(|| flatten(UNION, &Options::default())));
        assert_eq!(out["schema"]["type"], "object");
        assert_eq!(
            out["schema"]["properties"]["kind"]["enum"],
            json!(["a", "b"])
        );
        assert_eq!(out["diagnostics"]["flattened"][0]["discriminator"], "kind");
    }

    #[test]
    fn errors_carry_kind_and_pointer() {
        let e = error(&run(|| {
            flatten(
                r##"{"oneOf": [{"$ref": "#/$defs/missing"}]}"##,
                &Options::default(),
            )
        }));
        assert_eq!(e["kind"], "unresolvable_ref");
        assert_eq!(e["pointer"], "/oneOf/0/$ref");
        let deep = "[".repeat(200) + &"]".repeat(200);
        let e = error(&run(|| flatten(&deep, &Options::default())));
        assert_eq!(e["kind"], "too_deep");
        assert!(e["pointer"].as_str().is_some_and(|p| p.starts_with("/0/0")));
        let e = error(&run(|| {
            join_options(Some("everywhere"), None).map(|_| Value::Null)
        }));
        assert_eq!(e["kind"], "invalid_option");
        assert_eq!(
            e["message"],
            r#"option scope: "everywhere" is not one of ["all", "root"]"#
        );
        let e = error(&run(|| {
            join_options(None, Some("lax")).map(|_| Value::Null)
        }));
        assert_eq!(
            e["message"],
            r#"option openBranches: "lax" is not one of ["declared", "permissive"]"#
        );
        assert_eq!(
            join_options(Some("root"), Some("permissive")),
            Ok(Options::new(
                flatjoin::Scope::Root,
                flatjoin::OpenBranches::Permissive
            ))
        );
    }

    #[test]
    fn a_panic_is_an_internal_error_not_an_abort() {
        let e = error(&run(|| panic!("boom")));
        assert_eq!(e["kind"], "internal");
    }

    #[test]
    fn validate_names_the_selected_branch() {
        let out = ok(&run(|| validate(UNION, r#"{"kind": "b", "x": 1}"#, false)));
        assert_eq!(out["valid"], false);
        assert_eq!(out["branch"], "kind \"b\"");
        let out = ok(&run(|| validate(UNION, r#"{"kind": "a", "x": 1}"#, false)));
        assert_eq!(out["valid"], true);
    }

    #[test]
    fn a_compiled_validator_answers_as_validate_does() {
        fn shared<T: Send + Sync>(_: &T) {}
        let values = [
            r#"{"kind": "a", "x": 1}"#,
            r#"{"kind": "b", "x": 1}"#,
            r#"{"kind": "b", "y": "s"}"#,
            r#"{"kind": "c"}"#,
            "[]",
            "{",
        ];
        let validator = Validator::new(UNION, false).expect("the union compiles");
        shared(&validator);
        for value in values {
            assert_eq!(
                run(|| validator.validate(value)),
                run(|| validate(UNION, value, false)),
                "{value}"
            );
        }
        let email = r#"{"type": "string", "format": "email"}"#;
        let asserting = Validator::new(email, true).expect("compiles");
        assert_eq!(ok(&run(|| asserting.validate(r#""nope""#)))["valid"], false);
        let annotating = Validator::new(email, false).expect("compiles");
        assert_eq!(ok(&run(|| annotating.validate(r#""nope""#)))["valid"], true);
        let Err(e) = Validator::new(r##"{"oneOf": [{"$ref": "#/$defs/missing"}]}"##, false) else {
            panic!("a missing $ref compiles");
        };
        assert_eq!(
            (e.kind.as_str(), e.pointer.as_str()),
            ("unresolvable_ref", "/oneOf/0/$ref")
        );
        let e = error(&run(|| {
            validate(r##"{"oneOf": [{"$ref": "#/$defs/missing"}]}"##, "1", false)
        }));
        assert_eq!(e["kind"], "unresolvable_ref");
    }

    /// Real Pydantic output whose presentation shares one flattened union among many sites (SPEC
    /// §6 decision 73).
    const SHARED: &str = include_str!("../../../corpus/dialects/pydantic/many_fields_union.json");

    #[test]
    fn the_envelopes_list_the_definitions_a_profile_inlines() {
        let gemini = ok(&run(|| export_tools(SHARED, "gemini", false, None)));
        let listed = gemini["inlined"].as_array().cloned().unwrap_or_default();
        let union = listed
            .iter()
            .find(|i| i["rule"] == "shared-union")
            .unwrap_or_else(|| panic!("no shared union listed: {gemini}"));
        assert_eq!(union["tool"], "tool");
        let definition = union["definition"].as_str().unwrap_or_default();
        assert!(definition.starts_with("/$defs/flatjoin_union_"), "{union}");
        let presentation = ok(&run(|| flatten(SHARED, &Options::default())))["schema"].to_string();
        let reference = format!("\"$ref\":\"#{definition}\"");
        assert_eq!(
            union["sites"],
            json!(presentation.matches(&reference).count())
        );
        assert!(
            union["copies"].as_u64() >= union["sites"].as_u64(),
            "{union}"
        );
        let anthropic = ok(&run(|| export_tools(SHARED, "anthropic", false, None)));
        assert_eq!(anthropic["inlined"], json!([]));
        let manifest = format!(r#"{{"tools": [{{"name": "draw", "inputSchema": {SHARED}}}]}}"#);
        let cursor = ok(&run(|| {
            flatten_manifest(&manifest, &Options::default(), Some("cursor"))
        }));
        let same = |i: &&Value| i["definition"] == union["definition"];
        let listed = cursor["inlined"]
            .as_array()
            .and_then(|l| l.iter().find(same));
        assert_eq!(listed.map(|i| &i["tool"]), Some(&json!("draw")), "{cursor}");
        let plain = ok(&run(|| {
            flatten_manifest(&manifest, &Options::default(), None)
        }));
        assert_eq!(plain["inlined"], json!([]));
    }

    #[test]
    fn export_and_lint_name_providers_and_profiles() {
        let out = ok(&run(|| export_tools(UNION, "anthropic", false, None)));
        assert_eq!(out["declarations"][0]["name"], "tool");
        assert_eq!(out["declarations"][0]["input_schema"]["type"], "object");
        let out = ok(&run(|| lint(UNION, "cursor")));
        assert_eq!(out["rejected_tools"], json!(["tool"]));
        let e = error(&run(|| lint(UNION, "nope")));
        assert_eq!(e["kind"], "invalid_option");
    }
}
