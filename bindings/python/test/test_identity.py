"""One implementation: the package's `flatten` prints, after canonical JSON printing (keys sorted,
compact), byte for byte what `flatjoin flatten` prints for the same document, on every file of the
harness's corpus walk and a generated sample (the list is written by tests/python.rs:
FLATJOIN_IDENTITY_FILES; the binary is FLATJOIN_CLI). The CLI reads the document as Python hands
it over (`json.dumps(json.loads(file))` on stdin). A file the CLI refuses the package refuses too,
with the same message."""

import json
import os
import subprocess

import pytest

import flatjoin

CLI = os.environ.get("FLATJOIN_CLI")
LIST = os.environ.get("FLATJOIN_IDENTITY_FILES")
needs_cli = pytest.mark.skipif(
    not CLI or not LIST,
    reason="FLATJOIN_CLI and FLATJOIN_IDENTITY_FILES are set by `cargo test -p flatjoin-python`",
)


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@needs_cli
def test_flatten_equals_the_flatjoin_binary_on_the_corpus_and_a_generated_sample():
    with open(LIST, encoding="utf-8") as f:
        files = json.load(f)
    assert len(files) > 150
    same = refused = not_json = 0
    for file in files:
        with open(file, "rb") as f:
            raw = f.read()
        try:
            document = json.loads(raw)
        except ValueError:
            run = subprocess.run([CLI, "flatten", file], capture_output=True)
            assert run.returncode == 2, f"{file}: Python cannot parse it, the CLI flattened it"
            not_json += 1
            continue
        run = subprocess.run(
            [CLI, "flatten", "-"], input=json.dumps(document).encode(), capture_output=True
        )
        if run.returncode == 0:
            ours = flatjoin.flatten(document)["schema"]
            assert canonical(ours) == canonical(json.loads(run.stdout)), file
            same += 1
        else:
            assert run.returncode == 2, run.stderr
            with pytest.raises(flatjoin.FlatjoinError) as caught:
                flatjoin.flatten(document)
            message = str(caught.value).removeprefix("schema: ")
            assert message in run.stderr.decode(), (file, message, run.stderr)
            refused += 1
    print(f"identity: {same} files flattened identically, {refused} refused by both, {not_json} not JSON")
    assert same > 100
