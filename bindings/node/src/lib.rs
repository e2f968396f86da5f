//! flatjoin-node: the native half of the Node.js package (`bindings/node`). Each export takes JSON
//! text (the package's `index.js` prints the caller's objects with `JSON.stringify`) and returns
//! the envelope of [`flatjoin_edge::run`], which `index.js` parses and turns into a result or a
//! thrown `FlatjoinError` with `kind` and `pointer`. All the work is the edge's, which calls what
//! the `flatjoin` binary calls; nothing here can panic into Node (the edge catches panics).

/// mimalloc for the addon's Rust code, as in the `flatjoin` binary: parsing the JSON text, the join,
/// printing and freeing the result allocate and free many small maps and strings, which the system
/// allocator made slower (`reports/join-cost.md`, In process). Node.js's own heap is untouched.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// napi-derive's `#[napi]` expands to `extern "C"` callbacks and unsafe N-API calls, which the
// workspace's `deny(unsafe_code)` would reject: the lint is allowed in this one module of
// generated shims, which hold no hand-written unsafe code.
#[allow(unsafe_code)]
/// The native functions the Node.js package's wrapper calls.
pub mod exports {
    use flatjoin_edge as edge;
    use napi::{
        Env, Task,
        bindgen_prelude::{AsyncTask, Either},
    };
    use napi_derive::napi;

    /// One call of the edge run on libuv's thread pool (napi `AsyncTask`), so a large manifest
    /// does not block the event loop: the `…Async` exports. The answer is the same envelope the
    /// synchronous export returns (the edge catches panics, so `compute` never fails).
    pub struct EdgeCall(Option<Box<dyn FnOnce() -> String + Send>>);

    impl EdgeCall {
        fn new(call: impl FnOnce() -> String + Send + 'static) -> AsyncTask<EdgeCall> {
            AsyncTask::new(EdgeCall(Some(Box::new(call))))
        }
    }

    impl Task for EdgeCall {
        type Output = String;
        type JsValue = String;

        fn compute(&mut self) -> napi::Result<String> {
            Ok(self.0.take().map(|call| call()).unwrap_or_default())
        }

        fn resolve(&mut self, _env: Env, output: String) -> napi::Result<String> {
            Ok(output)
        }
    }

    /// `flatten(schema, {scope, openBranches})`: `{schema, diagnostics}`.
    #[napi]
    pub fn flatten(schema: String, scope: Option<String>, open_branches: Option<String>) -> String {
        edge::run(|| {
            let options = edge::join_options(scope.as_deref(), open_branches.as_deref())?;
            edge::flatten(&schema, &options)
        })
    }

    /// `flattenManifest(toolsListResult, {scope, openBranches, profile})`:
    /// `{manifest, diagnostics, narrowings, inlined}`.
    #[napi]
    pub fn flatten_manifest(
        manifest: String,
        scope: Option<String>,
        open_branches: Option<String>,
        profile: Option<String>,
    ) -> String {
        edge::run(|| {
            let options = edge::join_options(scope.as_deref(), open_branches.as_deref())?;
            edge::flatten_manifest(&manifest, &options, profile.as_deref())
        })
    }

    /// `flattenAsync`: [`flatten`] on the thread pool.
    #[napi]
    pub fn flatten_async(
        schema: String,
        scope: Option<String>,
        open_branches: Option<String>,
    ) -> AsyncTask<EdgeCall> {
        EdgeCall::new(move || flatten(schema, scope, open_branches))
    }

    /// `flattenManifestAsync`: [`flatten_manifest`] on the thread pool.
    #[napi]
    pub fn flatten_manifest_async(
        manifest: String,
        scope: Option<String>,
        open_branches: Option<String>,
        profile: Option<String>,
    ) -> AsyncTask<EdgeCall> {
        EdgeCall::new(move || flatten_manifest(manifest, scope, open_branches, profile))
    }

    /// `validate(original, value, {assertFormats})`: `{valid, branch, errors, message}`.
    #[napi]
    pub fn validate(original: String, value: String, assert_formats: Option<bool>) -> String {
        edge::run(|| edge::validate(&original, &value, assert_formats.unwrap_or(false)))
    }

    /// The compiled original schema behind the package's `Validator` class: compiled once by
    /// [`compile_validator`], then `validate(valueJson)` answers as [`validate`] does.
    #[napi]
    pub struct NativeValidator {
        inner: edge::Validator,
    }

    #[napi]
    impl NativeValidator {
        /// The envelope of `{valid, branch, errors, message}` for one value's JSON text.
        #[napi]
        pub fn validate(&self, value: String) -> String {
            edge::run(|| self.inner.validate(&value))
        }
    }

    /// `new Validator(original, {assertFormats})`: the compiled validator, or the error envelope
    /// of a schema that does not compile (the wrapper throws it as a `FlatjoinError`).
    #[napi]
    pub fn compile_validator(
        original: String,
        assert_formats: Option<bool>,
    ) -> Either<NativeValidator, String> {
        match edge::Validator::new(&original, assert_formats.unwrap_or(false)) {
            Ok(inner) => Either::A(NativeValidator { inner }),
            Err(failure) => Either::B(edge::run(|| Err(failure))),
        }
    }

    /// `lint(schemaOrManifest, profile)`: `{profile, tools, rejected_tools, findings}`.
    #[napi]
    pub fn lint(input: String, profile: String) -> String {
        edge::run(|| edge::lint(&input, &profile))
    }

    /// `exportTools(schemaOrManifest, provider, {strict, geminiField})`:
    /// `{declarations, narrowings, inlined, residual}`.
    #[napi]
    pub fn export_tools(
        input: String,
        provider: String,
        strict: Option<bool>,
        gemini_field: Option<String>,
    ) -> String {
        edge::run(|| {
            edge::export_tools(
                &input,
                &provider,
                strict.unwrap_or(false),
                gemini_field.as_deref(),
            )
        })
    }

    /// `exportToolsAsync`: [`export_tools`] on the thread pool.
    #[napi]
    pub fn export_tools_async(
        input: String,
        provider: String,
        strict: Option<bool>,
        gemini_field: Option<String>,
    ) -> AsyncTask<EdgeCall> {
        EdgeCall::new(move || export_tools(input, provider, strict, gemini_field))
    }

    /// The measured alternative to text (feature `bench-object-conversion`): the document
    /// converted object by object both ways. Returns the presentation (of a schema or a manifest), or throws.
    #[cfg(feature = "bench-object-conversion")]
    #[napi]
    pub fn bench_flatten_object(schema: serde_json::Value) -> napi::Result<serde_json::Value> {
        let options = edge::Options::default();
        // A manifest (an object with `tools`) or one schema, as the benchmark's inputs are.
        let out = if schema.get("tools").is_some() {
            edge::flatten_manifest_value(schema, &options, None).map(|mut o| o["manifest"].take())
        } else {
            edge::flatten_value(schema, &options).map(|mut o| o["schema"].take())
        };
        match out {
            Ok(out) => Ok(out),
            Err(f) => Err(napi::Error::from_reason(f.message)),
        }
    }

    /// Where `flatten`/`flattenManifest` spend their time (feature `bench-phases`, for
    /// `bench/bench.mjs`'s breakdown only): the same edge calls as the exports, each timed —
    /// `[parse_ms, join_ms, print_ms, free_ms]` for the document's JSON text (`manifest`: as
    /// `flattenManifest` without a profile). The napi conversions of the argument and the answer
    /// are timed from JavaScript with [`bench_take`] and [`bench_give`].
    #[cfg(feature = "bench-phases")]
    #[napi]
    pub fn bench_phases(text: String, manifest: bool) -> napi::Result<Vec<f64>> {
        let ms = |since: std::time::Instant| since.elapsed().as_secs_f64() * 1e3;
        let failed = |f: edge::Failure| napi::Error::from_reason(f.message);
        let options = edge::Options::default();
        let start = std::time::Instant::now();
        let value = edge::parse(&text, "document").map_err(failed)?;
        let parsed = ms(start);
        let start = std::time::Instant::now();
        let out = if manifest {
            edge::flatten_manifest_value(value, &options, None)
        } else {
            edge::flatten_value(value, &options)
        }
        .map_err(failed)?;
        let joined = ms(start);
        // `edge::envelope` prints the answer and frees it; timed apart here.
        let start = std::time::Instant::now();
        let printed =
            serde_json::to_vec(&out).map_err(|e| napi::Error::from_reason(e.to_string()))?;
        let printing = ms(start);
        let start = std::time::Instant::now();
        drop(out);
        let freeing = ms(start);
        drop(printed);
        Ok(vec![parsed, joined, printing, freeing])
    }

    /// The argument's conversion alone (feature `bench-phases`): a JavaScript string into a Rust
    /// `String`, as every export takes its JSON text; returns its length in bytes.
    #[cfg(feature = "bench-phases")]
    #[napi]
    pub fn bench_take(text: String) -> u32 {
        u32::try_from(text.len()).unwrap_or(u32::MAX)
    }

    /// The argument's conversion and the answer's (feature `bench-phases`): the string back as a
    /// JavaScript string, as every export returns its envelope.
    #[cfg(feature = "bench-phases")]
    #[napi]
    pub fn bench_give(text: String) -> String {
        text
    }
}
