//! The bundled adapters (SPEC §6 decision 71): `--implementation 'node FILE#EXPORT'` and
//! `--implementation 'python -m MODULE:FUNCTION'` (or `'python FILE.py:FUNCTION'`) judge a plain
//! function, with the adapter of `protocol/adapters/` that the binary carries written to a
//! temporary file and put in front of the argument. So a TypeScript or Python author who got `flatjoin` from npm
//! or PyPI judges their flattener with one line and no checkout. Any other command is run as
//! written (it speaks the protocol itself).

use std::path::{Path, PathBuf};

/// `protocol/adapters/node/run.mjs`, embedded by the build script through the crate's
/// `protocol/adapters` (a symbolic link to the repository's `protocol/adapters/`, which `cargo
/// package` follows, so the published crate carries the file itself; where Git checked the link out as a file, the
/// repository's folder directly).
pub const NODE: &str = super::ADAPTER_NODE;

/// `protocol/adapters/python/run.py`, embedded as [`NODE`] is.
pub const PYTHON: &str = super::ADAPTER_PYTHON;

/// The program's name without directory or `.exe`: `node`, `python3.11`, …
fn program_name(program: &str) -> String {
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    name.strip_suffix(".exe")
        .unwrap_or(name)
        .to_ascii_lowercase()
}

/// Which adapter a command asks for, and the argument it takes: `node FILE#EXPORT` (a `#` in the
/// one argument: a module path with an export, which `node` itself would refuse as a missing
/// file), `python -m MODULE:FUNCTION` and `python FILE.py:FUNCTION` (a `:` that Python would
/// refuse as a module or file name). `None`: the command is a protocol speaker, run as written.
fn shorthand(argv: &[String]) -> Option<(&'static str, &'static str, String)> {
    let name = program_name(argv.first()?);
    let target = match argv {
        [_, one] if !one.starts_with('-') => one,
        [_, flag, one] if flag == "-m" && !one.starts_with('-') => one,
        _ => return None,
    };
    if (name == "node" || name == "nodejs") && argv.len() == 2 && target.contains('#') {
        return Some(("run.mjs", NODE, target.clone()));
    }
    let python = name.starts_with("python") || name == "py";
    let spec_ok = match target.rsplit_once(':') {
        Some((module, function)) => {
            !module.is_empty()
                && !function.is_empty()
                && (argv.len() == 3 || module.ends_with(".py"))
        }
        None => false,
    };
    if python && spec_ok {
        return Some(("run.py", PYTHON, target.clone()));
    }
    None
}

/// Where an adapter is written: a file named by its content's hash under the temporary
/// directory, so runs of different flatjoin versions never share one and a partly written file is
/// never run (written beside, then renamed).
fn written(file: &str, text: &str) -> Result<PathBuf, String> {
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(text, &mut hasher);
    let digest = std::hash::Hasher::finish(&hasher);
    let dir = std::env::temp_dir().join("flatjoin-adapters");
    let path = dir.join(format!("{digest:016x}-{file}"));
    if std::fs::read_to_string(&path).is_ok_and(|t| t == text) {
        return Ok(path);
    }
    let fail = |e: std::io::Error| format!("cannot write the adapter {}: {e}", path.display());
    std::fs::create_dir_all(&dir).map_err(fail)?;
    let partial = dir.join(format!("{digest:016x}-{}-{file}", std::process::id()));
    std::fs::write(&partial, text).map_err(fail)?;
    std::fs::rename(&partial, &path).map_err(fail)?;
    Ok(path)
}

/// The command to start for `argv`: the shorthands with their adapter in front of the argument,
/// anything else unchanged.
pub fn expand(argv: Vec<String>) -> Result<Vec<String>, String> {
    let Some((file, text, target)) = shorthand(&argv) else {
        return Ok(argv);
    };
    let adapter = written(file, text)?;
    Ok(vec![argv[0].clone(), adapter.display().to_string(), target])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn the_shorthands_get_their_adapter_and_other_commands_run_as_written() {
        for (command, adapter) in [
            ("node ./my.mjs#flatten", Some("run.mjs")),
            ("/usr/bin/node lib/f.cjs#default", Some("run.mjs")),
            ("python -m my:flatten", Some("run.py")),
            ("python3.11 -m pkg.mod:flatten", Some("run.py")),
            ("target/venv/bin/python ./f.py:flatten", Some("run.py")),
            ("node server.mjs", None),
            ("node protocol/adapters/node/run.mjs ./my.mjs#flatten", None),
            ("python3 -m my_server", None),
            ("python3 protocol/adapters/python/run.py my:flatten", None),
            ("python3 my:flatten", None),
            ("flatjoin serve-protocol", None),
            ("node --inspect x.mjs#f", None),
        ] {
            let got = shorthand(&words(command)).map(|(file, _, _)| file);
            assert_eq!(got, adapter, "{command}");
        }
        let argv = expand(words("node ./my.mjs#flatten")).expect("written");
        assert_eq!(argv[0], "node");
        assert_eq!(argv[2], "./my.mjs#flatten");
        assert_eq!(std::fs::read_to_string(&argv[1]).expect("readable"), NODE);
        let argv = expand(words("python3 -m my:flatten")).expect("written");
        assert_eq!(argv[2], "my:flatten");
        assert_eq!(std::fs::read_to_string(&argv[1]).expect("readable"), PYTHON);
        assert_eq!(
            expand(words("node server.mjs")).expect("as written"),
            words("node server.mjs")
        );
    }
}
