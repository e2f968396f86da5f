//! `flatjoin validate`: the runtime check of arguments against the original schema.

use super::error::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use flatjoin_cli::io::{input_name, read_json};

/// Arguments of `flatjoin validate`.
#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// The original schema (not the presentation: the original owns runtime validation).
    #[arg(long, value_name = "ORIGINAL.json")]
    pub schema: PathBuf,
    /// The arguments to check; `-` or nothing reads standard input.
    pub value: Option<PathBuf>,
    /// Assert `format` whatever the schema's draft, as Zod and Pydantic do (by default the draft
    /// decides: an annotation from 2019-09 on, so the verdict equals plain validation).
    #[arg(long)]
    pub assert_formats: bool,
}

/// Runs `flatjoin validate`: exit 0 and `valid` when the original accepts the value; exit 1 with
/// one error a line (naming the selected branch) when it does not.
pub fn run(args: &ValidateArgs) -> Result<ExitCode, CliError> {
    let schema_name = input_name(Some(&args.schema));
    let schema = read_json(Some(&args.schema))?;
    let value = read_json(args.value.as_deref())?;
    let options = flatjoin::RuntimeOptions {
        assert_formats: args.assert_formats,
        ..flatjoin::RuntimeOptions::default()
    };
    let runtime = flatjoin::Runtime::with_options(&schema, &options)
        .map_err(|e| format!("{schema_name}: {e}"))?;
    match runtime.validate(&value) {
        Ok(()) => {
            println!("valid");
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => {
            println!("invalid");
            println!("{errors}");
            Ok(ExitCode::from(1))
        }
    }
}
