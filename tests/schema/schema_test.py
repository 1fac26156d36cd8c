#!/usr/bin/env python3
"""The study files' JSON Schema (docs/study.schema.json) against the loader (`sao check`).

1. Every study of problems/, and every document of the study loader's fuzz corpus that
   `sao check` accepts, validates against the schema (a valid Draft 2020-12 schema).
2. Mutated studies: each mutation of a valid study (an unknown key, a wrong type, a missing
   required key, a word outside its choices) is rejected by the loader (exit 2, its message
   naming the place) AND by the schema.
3. The limits of the schema: mutations only the loader can see (a name that is not declared,
   lower > upper) are rejected by the loader; the schema's verdict is printed, not required.
4. A "$schema" key (the editor's reference) is accepted by both.

Usage: schema_test.py SAO SCHEMA SOURCE_DIR RESTRAINT_SLED WORK_DIR
Python's jsonschema is Debian's python3-jsonschema (scripts/bootstrap).
"""
import copy
import glob
import json
import os
import shutil
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed (scripts/bootstrap installs it)")
    sys.exit(77)

sao, schema_file, source, restraint_sled, work = map(os.path.abspath, sys.argv[1:6])
schema = json.load(open(schema_file))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
failures = []


def schema_errors(doc):
    return sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))


def check(path):
    """`sao check PATH`: exit code and its output (stdout + stderr)."""
    p = subprocess.run([sao, "check", path], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


# 1. Every shipped study.
studies = sorted(f for f in glob.glob(os.path.join(source, "problems", "*", "*.json"))
                 if not f.endswith(os.path.join("suite", "optima.json")))
for f in studies:
    for e in schema_errors(json.load(open(f))):
        failures.append(f"{os.path.relpath(f, source)}: /{'/'.join(map(str, e.absolute_path))}: "
                        f"{e.message[:200]}")
print(f"{len(studies)} studies of problems/ checked against the schema")
# ... and every document of the study loader's fuzz corpus that `sao check` accepts: the schema
# must not refuse a study the loader takes.
accepted = 0
for f in sorted(glob.glob(os.path.join(source, "tests", "fuzz", "corpus", "study_loader", "*"))):
    try:
        doc = json.load(open(f))
    except (ValueError, UnicodeDecodeError):
        continue
    if check(f)[0] != 0:
        continue
    accepted += 1
    for e in schema_errors(doc):
        failures.append(f"{os.path.relpath(f, source)} (sao check: valid): "
                        f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
print(f"{accepted} documents of the loader's fuzz corpus that sao check accepts, checked too")

# The base studies of the mutations, copied with their folders into WORK_DIR (so that templates
# and programs resolve; the restraint study's crash code by its absolute path).
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
bases = {}
for name, rel in [("absorber", "impact-absorber/max-acceleration.json"),
                  ("multibody", "slider-crank/path-multibody.json"),
                  ("truck", "truck-damper/quarter-car-multibody.json"),
                  ("restraint", "vehicle-restraint/two-variables.json")]:
    folder = os.path.join(work, name)
    shutil.copytree(os.path.join(source, "problems", os.path.dirname(rel)), folder,
                    ignore=shutil.ignore_patterns("code"))
    doc = json.load(open(os.path.join(folder, os.path.basename(rel))))
    if doc["simulator"]["type"] == "external":
        doc["simulator"]["command"][0] = restraint_sled
    bases[name] = (folder, doc)


def write(base, label, doc):
    folder = bases[base][0]
    path = os.path.join(folder, label + ".json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    return path


for name, (folder, doc) in bases.items():
    rc, out = check(write(name, "base", doc))
    if rc != 0 or schema_errors(doc):
        failures.append(f"base study {name} is not valid (sao check exit {rc}): {out.strip()}")


def mutate(base, edit):
    doc = copy.deepcopy(bases[base][1])
    edit(doc)
    return doc


def setitem(path, value):
    def edit(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    edit.path = path
    return edit


def delitem(path):
    def edit(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    edit.path = path
    return edit


def at_the_mutation(error, path):
    """Whether a schema error points at the mutated entry, inside it (a mutated object), or at
    an object holding it (an unknown or missing key is reported on its object), not at
    something else of the study."""
    where = list(error.absolute_path)
    n = min(len(where), len(path))
    return where[:n] == path[:n]


# (label, base, edit, a fragment the loader's message must hold)
MUTATIONS = [
    # unknown keys
    ("unknown-top-level-key", "absorber", setitem(["objectivs"], {}), "objectivs: unknown key"),
    ("objective-and-objectives", "absorber",
     setitem(["objectives"], [{"name": "a", "minimize": "x"}, {"name": "b", "minimize": "x"}]),
     "objectives: give \"objective\" (one) or \"objectives\" (two or more), not both"),
    ("unknown-setting", "absorber", setitem(["settings", "cuttoff"], 0.5), "settings.cuttoff: unknown key"),
    ("unknown-variable-key", "absorber", setitem(["design_variables", 0, "intial"], 1.0), "design_variables[0].intial: unknown key"),
    ("unknown-constraint-key", "absorber", setitem(["constraints", 0, "uper"], 1.0), "constraints[0].uper: unknown key"),
    ("unknown-simulator-key", "absorber", setitem(["simulator", "rtoll"], 1e-6), "simulator.rtoll"),
    ("unknown-body-key", "multibody", setitem(["simulator", "multibody", "bodies", 0, "masss"], 1.0), "masss"),
    ("unknown-external-key", "restraint", setitem(["simulator", "comand"], ["x"]), "simulator.comand"),
    # wrong types
    ("bound-as-string", "absorber", setitem(["design_variables", 0, "lower"], "0.1"), "design_variables[0].lower"),
    ("cycles-not-integer", "absorber", setitem(["settings", "max_cycles"], 2.5), "settings.max_cycles"),
    ("points-as-string", "absorber", setitem(["load_cases", 0, "time", "points"], "100"), "load_cases[0].time.points"),
    ("flag-as-number", "absorber", setitem(["settings", "regionalisation"], 1), "settings.regionalisation"),
    ("design-variables-object", "absorber", setitem(["design_variables"], {"b1": 1}), "design_variables"),
    ("timeout-as-string", "restraint", setitem(["simulator", "timeout"], "60"), "simulator.timeout"),
    # missing required keys
    ("no-initial", "absorber", delitem(["design_variables", 0, "initial"]), "design_variables[0].initial"),
    ("no-objective", "absorber", delitem(["objective"]), "objective: missing"),
    ("no-response-kind", "absorber", delitem(["responses", 0, "kind"]), "responses[0].kind"),
    ("no-constraint-quantity", "absorber", delitem(["constraints", 0, "of"]), "constraints[0].of: missing"),
    ("no-simulator", "absorber", delitem(["simulator"]), "simulator: missing"),
    ("no-command", "restraint", delitem(["simulator", "command"]), "simulator.command"),
    # words outside their choices
    ("bad-strategy", "absorber", setitem(["settings", "strategy"], "trust-region"), "settings.strategy"),
    ("bad-sizing", "absorber", setitem(["design_variables", 0, "sizing"], "absolute"), "design_variables[0].sizing"),
    ("bad-response-kind", "absorber", setitem(["responses", 0, "kind"], "vector"), "responses[0].kind"),
    ("bad-model", "absorber", setitem(["simulator", "model"], "impact_absorber"), "simulator.model"),
    ("bad-form", "absorber", setitem(["settings", "form"], "cubic"), "settings.form"),
    ("bad-joint-type", "multibody", setitem(["simulator", "multibody", "joints", 0, "type"], "hinge"), "joints[0].type"),
    ("bad-integrator", "truck", setitem(["simulator", "integrator"], "rk4"), "simulator.integrator"),
    ("bad-gradient-method", "absorber", setitem(["simulator", "gradients"], {"method": "backward"}), "simulator.gradients.method"),
    ("bad-parser", "restraint", setitem(["simulator", "responses", 0, "parser"], "csv"), "simulator.responses[0].parser"),
    ("unknown-parser-key", "restraint", setitem(["simulator", "responses", 0, "colum"], 2), "simulator.responses[0].colum"),
    ("unknown-template-key", "restraint", setitem(["simulator", "templates", 0, "targt"], "x"), "simulator.templates[0].targt"),
    ("external-direct-gradients", "restraint", setitem(["simulator", "gradients"], {"method": "direct"}), "simulator.gradients.method"),
    ("bad-executor", "absorber", setitem(["simulator", "executor"], {"type": "pbs"}), "simulator.executor.type"),
    ("unknown-executor-key", "absorber", setitem(["simulator", "executor"], {"type": "local", "partiton": "x"}), "simulator.executor.partiton"),
    ("column-zero", "restraint", setitem(["simulator", "responses", 0, "value"], 0), "simulator.responses[0].value"),
]
# Only the loader can see these (names declared elsewhere, relations between numbers).
LOADER_ONLY = [
    ("unknown-response", "absorber", setitem(["constraints", 0, "of"], {"response": "z", "abs": True}), "unknown response \"z\""),
    ("lower-above-upper", "absorber", setitem(["design_variables", 0, "lower"], 1e9), "lower 1e+09 > upper"),
    ("unknown-name-in-expression", "absorber", setitem(["constraints", 0, "of"], "yy"), "unknown name \"yy\""),
]

rejected_by_schema = 0
for label, base, edit, fragment in MUTATIONS + LOADER_ONLY:
    doc = mutate(base, edit)
    rc, out = check(write(base, label, doc))
    errors = schema_errors(doc)
    where = "; ".join(f"/{'/'.join(map(str, e.absolute_path))}" for e in errors[:2])
    print(f"{label:28} sao check exit {rc}, schema: "
          + (f"{len(errors)} error(s) at {where}" if errors else "valid"))
    if rc != 2:
        failures.append(f"{label}: sao check exit {rc}, expected 2: {out.strip()}")
    elif fragment not in out:
        failures.append(f"{label}: sao check does not say '{fragment}': {out.strip()}")
    if (label, base, edit, fragment) in MUTATIONS:
        if any(at_the_mutation(e, edit.path) for e in errors):
            rejected_by_schema += 1
        else:
            failures.append(f"{label}: the loader rejects it, the schema does not "
                            f"(errors elsewhere: {where or 'none'})")

# 4. The "$schema" key.
doc = mutate("absorber", setitem(["$schema"], "../../docs/study.schema.json"))
rc, out = check(write("absorber", "with-schema-key", doc))
if rc != 0 or schema_errors(doc):
    failures.append(f"a \"$schema\" key: sao check exit {rc} ({out.strip()}), "
                    f"schema errors {len(schema_errors(doc))}")
doc = mutate("absorber", setitem(["$schema"], 3))
rc, out = check(write("absorber", "with-schema-number", doc))
if rc != 2 or not schema_errors(doc):
    failures.append(f"\"$schema\": 3: sao check exit {rc}, schema errors {len(schema_errors(doc))}")

print(f"{rejected_by_schema} of {len(MUTATIONS)} mutations rejected by loader and schema; "
      f"{len(LOADER_ONLY)} only the loader can see")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
