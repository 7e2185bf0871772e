"""Validation of a SARIF file against the 2.1.0 schema vendored in tests/golden (see its
README), shared by the case runner (run_case.py) and the launcher's test (tools/)."""
import json
import os
import sys

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "sarif-2.1.0-rtm.5.json")


def import_jsonschema():
    """jsonschema from this interpreter, or Debian's python3-jsonschema (scripts/install-deps.sh
    --test installs it) when this python3 is not Debian's own (e.g. a pyenv one)."""
    try:
        import jsonschema
        return jsonschema
    except ImportError:
        pass
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        import jsonschema
        return jsonschema
    except ImportError:
        return None


def validate_sarif(path):
    """None if the file validates against the SARIF 2.1.0 schema, else why not."""
    jsonschema = import_jsonschema()
    if jsonschema is None:
        return "python3's jsonschema module is missing (apt-get install python3-jsonschema)"
    try:
        with open(SCHEMA) as f:
            schema = json.load(f)
        with open(path) as f:
            log = json.load(f)
    except (OSError, ValueError) as e:
        return str(e)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=lambda e: list(e.path))
    return "; ".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5]) or None
