"""`make lab` opens on the first notebook with nothing over it: JupyterLab's question "Would
you like to get notified about official Jupyter news?" is answered in the lab's settings
overrides (tools/jupyterlab/overrides.json, copied into .venv by the Makefile). A setting
JupyterLab renamed or a value it no longer takes would be ignored without a word, and the
question would be back: this holds each one to the installed JupyterLab's own schema."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from conftest import LAB_ROOT

# The installed package's folder, found without importing it: `import jupyterlab` starts its
# server's modules (and compiles dozens of grammars on the way), over a second of CPU in each
# process that collects this file, to read a few JSON files beside it.
SCHEMAS = Path(importlib.util.find_spec("jupyterlab").origin).parent / "schemas"


def test_every_override_names_a_setting_of_this_jupyterlab_with_a_value_it_takes() -> None:
    overrides = json.loads((LAB_ROOT / "tools/jupyterlab/overrides.json").read_text("utf-8"))
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    for plugin, settings in overrides.items():
        package, name = plugin.split(":")
        schema = json.loads((SCHEMAS / package / f"{name}.json").read_text("utf-8"))
        for key, value in settings.items():
            assert key in schema["properties"], f"{plugin} has no setting {key!r}"
            spec = schema["properties"][key]
            allowed = [choice["const"] for choice in spec.get("oneOf", [])]
            if allowed:
                assert value in allowed, f"{plugin}:{key} takes {allowed}, not {value!r}"
            else:
                assert {"boolean": bool, "string": str}[spec["type"]] is type(value)


def test_make_lab_installs_the_overrides_before_it_starts() -> None:
    makefile = (LAB_ROOT / "Makefile").read_text("utf-8")
    assert "lab: $(INSTALLED) $(LAB_OVERRIDES)" in makefile
    assert "$(VENV)/share/jupyter/lab/settings/overrides.json" in makefile
