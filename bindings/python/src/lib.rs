//! flatjoin-python: the native half of the Python package (`bindings/python`), the module
//! `flatjoin._native`. Each function takes JSON text (the package's `flatjoin/__init__.py` prints
//! the caller's dicts with `json.dumps`) and returns the envelope of [`flatjoin_edge::run`], which
//! `__init__.py` parses and turns into a result or a raised `FlatjoinError` with `kind` and
//! `pointer`. All the work is the edge's, which calls what the `flatjoin` binary calls, with the
//! GIL released; nothing here can panic into Python (the edge catches panics).

/// mimalloc for the extension's Rust code, as in the `flatjoin` binary and the Node.js addon:
/// parsing the JSON text, the join, printing and freeing the result allocate and free many small
/// maps and strings, which the system allocator made slower (`reports/join-cost.md`, In process).
/// Python's own heap is untouched.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// PyO3's `#[pyfunction]`/`#[pymodule]` expand to `extern "C"` entry points and unsafe CPython
// API calls, which the workspace's `deny(unsafe_code)` would reject: the lint is allowed in this
// one module of generated shims, which hold no hand-written unsafe code.
#[allow(unsafe_code)]
/// The native functions the Python package's wrapper calls.
pub mod exports {
    use flatjoin_edge as edge;
    use pyo3::prelude::*;

    /// `flatten(schema_json, scope, open_branches)`: the envelope of `{schema, diagnostics}`.
    #[pyfunction]
    #[pyo3(signature = (schema, scope=None, open_branches=None))]
    pub fn flatten(
        py: Python<'_>,
        schema: String,
        scope: Option<String>,
        open_branches: Option<String>,
    ) -> String {
        py.detach(move || {
            edge::run(|| {
                let options = edge::join_options(scope.as_deref(), open_branches.as_deref())?;
                edge::flatten(&schema, &options)
            })
        })
    }

    /// `flatten_manifest(manifest_json, scope, open_branches, profile)`: the envelope of
    /// `{manifest, diagnostics, narrowings, inlined}`.
    #[pyfunction]
    #[pyo3(signature = (manifest, scope=None, open_branches=None, profile=None))]
    pub fn flatten_manifest(
        py: Python<'_>,
        manifest: String,
        scope: Option<String>,
        open_branches: Option<String>,
        profile: Option<String>,
    ) -> String {
        py.detach(move || {
            edge::run(|| {
                let options = edge::join_options(scope.as_deref(), open_branches.as_deref())?;
                edge::flatten_manifest(&manifest, &options, profile.as_deref())
            })
        })
    }

    /// `validate(original_json, value_json, assert_formats)`: the envelope of
    /// `{valid, branch, errors, message}`.
    #[pyfunction]
    #[pyo3(signature = (original, value, assert_formats=false))]
    pub fn validate(
        py: Python<'_>,
        original: String,
        value: String,
        assert_formats: bool,
    ) -> String {
        py.detach(move || edge::run(|| edge::validate(&original, &value, assert_formats)))
    }

    /// A compiled `validate` (SPEC §6 decision 38: the CLI's runtime check, in-process): the
    /// original schema compiled once by [`edge::Validator`], then `validate(value_json)` per
    /// value, with the GIL released. Made by [`compile_validator`] (no constructor of its own:
    /// `flatjoin.Validator` wraps it). Frozen, and `Sync` because the edge's validator is, so
    /// threads may share one.
    #[pyclass(frozen, module = "flatjoin._native")]
    pub struct Validator {
        compiled: edge::Validator,
    }

    #[pymethods]
    impl Validator {
        /// The envelope of `{valid, branch, errors, message}` for one value's JSON text, as
        /// `validate(original, value, assert_formats)` returns it.
        pub fn validate(&self, py: Python<'_>, value: String) -> String {
            py.detach(move || edge::run(|| self.compiled.validate(&value)))
        }
    }

    /// `compile_validator(original_json, assert_formats)`: a [`Validator`], or the error envelope
    /// (`{"error": {kind, pointer, message}}`) when the schema does not compile, which the
    /// wrapper raises as `FlatjoinError`.
    #[pyfunction]
    #[pyo3(signature = (original, assert_formats=false))]
    pub fn compile_validator(
        py: Python<'_>,
        original: String,
        assert_formats: bool,
    ) -> PyResult<Py<PyAny>> {
        match py.detach(move || edge::Validator::new(&original, assert_formats)) {
            Ok(compiled) => Ok(Py::new(py, Validator { compiled })?.into_any()),
            Err(failure) => {
                let envelope = edge::envelope(Err(failure));
                Ok(envelope.into_pyobject(py)?.into_any().unbind())
            }
        }
    }

    /// `lint(input_json, profile)`: the envelope of `{profile, tools, rejected_tools, findings}`.
    #[pyfunction]
    pub fn lint(py: Python<'_>, input: String, profile: String) -> String {
        py.detach(move || edge::run(|| edge::lint(&input, &profile)))
    }

    /// `export_tools(input_json, provider, strict, gemini_field)`: the envelope of
    /// `{declarations, narrowings, inlined, residual}`.
    #[pyfunction]
    #[pyo3(signature = (input, provider, strict=false, gemini_field=None))]
    pub fn export_tools(
        py: Python<'_>,
        input: String,
        provider: String,
        strict: bool,
        gemini_field: Option<String>,
    ) -> String {
        py.detach(move || {
            edge::run(|| edge::export_tools(&input, &provider, strict, gemini_field.as_deref()))
        })
    }

    /// The measured alternative to text (feature `bench-object-conversion`): the document
    /// converted object by object both ways (pythonize). Returns the presentation (of a schema or a manifest), or raises.
    #[cfg(feature = "bench-object-conversion")]
    #[pyfunction]
    pub fn bench_flatten_object<'py>(
        py: Python<'py>,
        schema: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value: serde_json::Value = pythonize::depythonize(schema)?;
        let options = edge::Options::default();
        // A manifest (an object with `tools`) or one schema, as the benchmark's inputs are.
        let out = py.detach(move || {
            if value.get("tools").is_some() {
                edge::flatten_manifest_value(value, &options, None)
                    .map(|mut o| o["manifest"].take())
            } else {
                edge::flatten_value(value, &options).map(|mut o| o["schema"].take())
            }
        });
        match out {
            Ok(out) => Ok(pythonize::pythonize(py, &out)?),
            Err(f) => Err(pyo3::exceptions::PyValueError::new_err(f.message)),
        }
    }

    /// The module `flatjoin._native`.
    #[pymodule]
    pub fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
        // The crate's version is the workspace's, which maturin writes into the wheel's metadata.
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add_class::<Validator>()?;
        m.add_function(wrap_pyfunction!(compile_validator, m)?)?;
        m.add_function(wrap_pyfunction!(flatten, m)?)?;
        m.add_function(wrap_pyfunction!(flatten_manifest, m)?)?;
        m.add_function(wrap_pyfunction!(validate, m)?)?;
        m.add_function(wrap_pyfunction!(lint, m)?)?;
        m.add_function(wrap_pyfunction!(export_tools, m)?)?;
        #[cfg(feature = "bench-object-conversion")]
        m.add_function(wrap_pyfunction!(bench_flatten_object, m)?)?;
        Ok(())
    }
}
