//! `flatjoin flatten` and `flatjoin manifest`: print the presentation of a schema or manifest.

use super::error::CliError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use flatjoin::{OpenBranches, Options, Scope, UnknownName};
use serde_json::Value;

use flatjoin_cli::io::{input_name, read_bytes};

/// A parser of a core option enum: the names are the core's (`NAMES`, in the order of `ALL`, read
/// back by `FromStr`), each shown in `--help` with its line of `help`.
fn core_values<T>(
    names: &'static [&'static str],
    all: &[T],
    help: fn(T) -> &'static str,
) -> impl TypedValueParser<Value = T>
where
    T: std::str::FromStr<Err = UnknownName> + Copy + Send + Sync + 'static,
{
    let values = names
        .iter()
        .zip(all)
        .map(|(name, value)| PossibleValue::new(*name).help(help(*value)));
    PossibleValuesParser::new(values).try_map(|name| name.parse::<T>())
}

/// `--scope`: which union sites to flatten.
fn scope_values() -> impl TypedValueParser<Value = Scope> {
    core_values(Scope::NAMES, &Scope::ALL, |scope| match scope {
        Scope::All => "Every discriminated union, wherever it is nested",
        Scope::Root => "Only a discriminated union at the root",
    })
}

/// `--open-branches`: how open branches take part in the join (SPEC §2.8).
fn open_branches_values() -> impl TypedValueParser<Value = OpenBranches> {
    core_values(
        OpenBranches::NAMES,
        &OpenBranches::ALL,
        |reading| match reading {
            OpenBranches::Declared => {
                "Only branches that declare a property shape its join (Pydantic/serde/Zod runtimes)"
            }
            OpenBranches::Permissive => {
                "JSON Schema's literal reading: open branches add what they accept under undeclared keys"
            }
        },
    )
}

/// Options shared by `flatten` and `manifest`.
#[derive(Args, Debug)]
pub struct JoinOptions {
    /// Which union sites to flatten.
    #[arg(long, value_parser = scope_values(), default_value_t = Scope::default())]
    pub scope: Scope,
    /// How open branches take part in the join of a property they do not declare.
    #[arg(long, value_parser = open_branches_values(), default_value_t = OpenBranches::default())]
    pub open_branches: OpenBranches,
    /// Write what happened at each union site to this file as JSON.
    #[arg(long, value_name = "OUT.json")]
    pub diagnostics: Option<PathBuf>,
}

impl JoinOptions {
    /// The library options these flags select.
    pub fn options(&self) -> Options {
        Options::new(self.scope, self.open_branches)
    }
}

/// Arguments of `flatjoin flatten`.
#[derive(Args, Debug)]
pub struct FlattenArgs {
    /// The schema file; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub join: JoinOptions,
}

/// Arguments of `flatjoin manifest`.
#[derive(Args, Debug)]
pub struct ManifestArgs {
    /// The `tools/list` result file; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub join: JoinOptions,
    /// Also lower every flattened input schema to this provider's dialect (narrowings, if the
    /// profile makes any, and the definitions it copies in place of their references are listed
    /// on stderr).
    #[arg(long, value_enum)]
    pub profile: Option<flatjoin_cli::profiles::Profile>,
}

/// Pretty-prints `value` and a newline to standard output, streamed through one buffer (no
/// whole-document string: a large presentation costs no more memory than its tree), byte for byte
/// as `serde_json::to_writer_pretty` would, with each line's indentation written at once
/// ([`flatjoin_cli::io::write_pretty`]).
/// Prints the command's output, its last work: the value is left unfreed, since the process ends
/// next and the system takes its memory back at once, where freeing a large presentation node by
/// node costs a few per cent of the command (`reports/join-cost.md`).
fn print_json(value: Value) -> Result<(), CliError> {
    use std::io::Write;
    let value = std::mem::ManuallyDrop::new(value);
    let failed = |e: &dyn std::fmt::Display| format!("cannot print: {e}");
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    flatjoin_cli::io::write_pretty(&mut out, &value).map_err(|e| failed(&e))?;
    out.write_all(b"\n").map_err(|e| failed(&e))?;
    out.flush().map_err(|e| failed(&e).into())
}

/// Where the join hands the input it only read (`flatjoin::flatten_text_with`): left unfreed,
/// as [`print_json`] leaves the output, since the process ends after printing.
fn leave_unfreed(input: Value) {
    let _ = std::mem::ManuallyDrop::new(input);
}

fn write_diagnostics(path: &Path, value: &Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| format!("cannot print: {e}"))?;
    std::fs::write(path, text + "\n")
        .map_err(|e| format!("{}: cannot write: {e}", path.display()).into())
}

/// Runs `flatjoin flatten`.
pub fn run_flatten(args: &FlattenArgs) -> Result<ExitCode, CliError> {
    let name = input_name(args.file.as_deref());
    let text = read_bytes(args.file.as_deref())?;
    let flat = flatjoin::flatten_text_with(&text, &args.join.options(), &mut leave_unfreed)
        .map_err(|e| format!("{name}: {e}"))?;
    if let Some(path) = &args.join.diagnostics {
        write_diagnostics(path, &flat.diagnostics.to_json())?;
    }
    print_json(flat.schema)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `flatjoin manifest`.
pub fn run_manifest(args: &ManifestArgs) -> Result<ExitCode, CliError> {
    let name = input_name(args.file.as_deref());
    let text = read_bytes(args.file.as_deref())?;
    let options = args.join.options();
    let Some(profile) = args.profile else {
        // Nothing else needs the input: flatten it in place instead of building a copy.
        let flat = flatjoin::flatten_manifest_text_with(&text, &options, &mut leave_unfreed)
            .map_err(|e| format!("{name}: {e}"))?;
        if let Some(path) = &args.join.diagnostics {
            write_diagnostics(
                path,
                &flatjoin_cli::surfaces::manifest_diagnostics(&flat.tools),
            )?;
        }
        print_json(flat.manifest)?;
        return Ok(ExitCode::SUCCESS);
    };
    let manifest = flatjoin::parse(&text).map_err(|e| format!("{name}: {e}"))?;
    if let Some(path) = &args.join.diagnostics {
        let flat =
            flatjoin::flatten_manifest(&manifest, &options).map_err(|e| format!("{name}: {e}"))?;
        write_diagnostics(
            path,
            &flatjoin_cli::surfaces::manifest_diagnostics(&flat.tools),
        )?;
    }
    // The same surface the MCP proxy and `export` use, so all three agree byte for byte.
    let applied = flatjoin_cli::surfaces::apply_profile(&manifest, Some(profile), &options)
        .map_err(|e| format!("{name}: {e}"))?;
    for (tool, n) in &applied.narrowings {
        eprintln!(
            "flatjoin: note: {tool}: {} narrowing at {}: {}",
            n.rule, n.pointer, n.detail
        );
    }
    for (tool, i) in &applied.inlined {
        eprintln!(
            "flatjoin: note: {tool}: {} inlined from {}: {}",
            i.rule, i.definition, i.detail
        );
    }
    print_json(applied.output)?;
    Ok(ExitCode::SUCCESS)
}
