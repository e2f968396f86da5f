//! `flatjoin export`: a provider's tool-declaration JSON for a manifest or schema, lowered to the
//! provider's profile.

use super::error::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use flatjoin_cli::io::read_json;
use flatjoin_cli::profiles::Severity;
use flatjoin_cli::surfaces::{self, GeminiField, Provider};

/// Arguments of `flatjoin export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The provider whose declaration format to write.
    #[arg(long, value_enum)]
    pub provider: Provider,
    /// Use the provider's strict profile (openai-strict, anthropic-strict) and mark tools strict.
    #[arg(long)]
    pub strict: bool,
    /// Gemini only: the declaration field for the schema, `parameters` (OpenAPI subset, the
    /// default) or `parametersJsonSchema` (JSON Schema).
    #[arg(long, value_enum, default_value = "parameters")]
    pub gemini_field: GeminiField,
    /// A manifest (`tools/list` result) or a single schema (one tool named after the file); `-`
    /// or nothing reads standard input.
    pub file: Option<PathBuf>,
}

/// Runs `export`: prints the declarations; narrowings, the definitions copied in place of their
/// references and anything the provider would still reject go to standard error, and the last
/// makes the exit code 1.
pub fn run(args: &ExportArgs) -> Result<ExitCode, CliError> {
    if args.strict && args.provider == Provider::Gemini {
        return Err("export: gemini has no strict mode".into());
    }
    let input = read_json(args.file.as_deref())?;
    let tools = surfaces::tools_of(&input, args.file.as_deref())?;
    if args.gemini_field != GeminiField::Parameters && args.provider != Provider::Gemini {
        return Err("export: --gemini-field applies to --provider gemini only".into());
    }
    let exported = surfaces::export_with(
        &tools,
        args.provider,
        args.strict,
        args.gemini_field,
        &flatjoin::Options::default(),
    )?;
    let text = serde_json::to_string_pretty(&exported.declarations)
        .map_err(|e| format!("cannot print: {e}"))?;
    println!("{text}");
    for (tool, n) in &exported.narrowings {
        let pointer = if n.pointer.is_empty() {
            "/"
        } else {
            &n.pointer
        };
        eprintln!(
            "flatjoin export: {tool}: {pointer} narrowing[{}]: {}",
            n.rule, n.detail
        );
    }
    for (tool, i) in &exported.inlined {
        eprintln!(
            "flatjoin export: {tool}: {} inlined[{}]: {}",
            i.definition, i.rule, i.detail
        );
    }
    let mut rejected = false;
    for f in &exported.residual {
        rejected |= f.severity == Severity::Error;
        let pointer = if f.pointer.is_empty() {
            "/"
        } else {
            &f.pointer
        };
        eprintln!(
            "flatjoin export: {}: {pointer} still rejected[{}]: {}",
            f.tool, f.rule, f.message
        );
    }
    Ok(if rejected {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
