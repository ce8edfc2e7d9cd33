#!/usr/bin/env python3
"""Consistency checks of an FMI 2.0 modelDescription.xml (used by check_fmus.sh).

Not a schema validation: the rules of FMI 2.0 §2.2 that matter to an importer
(fmiVersion, GUID, interfaces and their flags, unique value references,
allowed causality/variability/initial combinations, start values where
required, derivative indices, ModelStructure: every output listed, indices in
range, Derivatives = the variables with a derivative attribute, dependencies
of Outputs/Derivatives on inputs and states only, of InitialUnknowns on
inputs and initial="exact" variables only)."""
import sys
import xml.etree.ElementTree as ET

BOOLEAN_FLAGS = {
    "CoSimulation": ["needsExecutionTool", "canHandleVariableCommunicationStepSize", "canInterpolateInputs",
                     "canRunAsynchronuously", "canBeInstantiatedOnlyOncePerProcess",
                     "canNotUseMemoryManagementFunctions", "canGetAndSetFMUstate", "canSerializeFMUstate",
                     "providesDirectionalDerivative"],
    "ModelExchange": ["needsExecutionTool", "completedIntegratorStepNotNeeded", "canBeInstantiatedOnlyOncePerProcess",
                      "canNotUseMemoryManagementFunctions", "canGetAndSetFMUstate", "canSerializeFMUstate",
                      "providesDirectionalDerivative"],
}
# FMI 2.0 §2.2.7, table of causality x variability: allowed initial values (first = default).
INITIAL = {
    ("parameter", "fixed"): ["exact"], ("parameter", "tunable"): ["exact"],
    ("input", "continuous"): [None], ("input", "discrete"): [None],
    ("output", "continuous"): ["calculated", "exact", "approx"], ("output", "discrete"): ["calculated", "exact", "approx"],
    ("local", "continuous"): ["calculated", "exact", "approx"], ("local", "discrete"): ["calculated", "exact", "approx"],
    ("calculatedParameter", "fixed"): ["calculated", "approx"], ("independent", "continuous"): [None],
}


def main(path):
    errors = []
    root = ET.parse(path).getroot()
    err = errors.append
    if root.tag != "fmiModelDescription":
        err("root element is not fmiModelDescription")
    if root.get("fmiVersion") != "2.0":
        err("fmiVersion is not 2.0")
    if not root.get("guid") or "@" in root.get("guid"):
        err("guid missing or unconfigured")
    if root.get("variableNamingConvention", "flat") != "flat":
        err("variableNamingConvention is not flat")
    interfaces = [e for e in root if e.tag in BOOLEAN_FLAGS]
    if not interfaces:
        err("neither CoSimulation nor ModelExchange")
    order = [e.tag for e in root]
    expected_order = ["ModelExchange", "CoSimulation", "UnitDefinitions", "TypeDefinitions", "LogCategories",
                      "DefaultExperiment", "VendorAnnotations", "ModelVariables", "ModelStructure"]
    if order != sorted(order, key=expected_order.index):
        err(f"child elements out of the schema's order: {order}")
    identifiers = {e.get("modelIdentifier") for e in interfaces}
    if len(identifiers) != 1:
        err(f"model identifiers differ: {identifiers}")
    for e in interfaces:
        for flag in BOOLEAN_FLAGS[e.tag]:
            if e.get(flag, "false") not in ("true", "false"):
                err(f"{e.tag}.{flag} is not a boolean")
    units = {u.get("name") for u in root.iter("Unit")}
    categories = {c.get("name") for c in root.iter("Category")}
    if not categories >= {"logError"}:
        err("no logError log category")

    variables = root.find("ModelVariables").findall("ScalarVariable")
    value_references = set()
    kinds = {}
    for index, v in enumerate(variables, 1):
        name = v.get("name")
        kinds[index] = v
        vr = int(v.get("valueReference"))
        typ = v[0]
        if (typ.tag, vr) in value_references:
            err(f"{name}: duplicate {typ.tag} value reference {vr}")
        value_references.add((typ.tag, vr))
        causality = v.get("causality", "local")
        variability = v.get("variability", "continuous")
        allowed = INITIAL.get((causality, variability))
        if allowed is None:
            err(f"{name}: causality {causality} with variability {variability}")
            continue
        initial = v.get("initial", allowed[0])
        if initial not in allowed:
            err(f"{name}: initial={initial} not allowed for {causality}/{variability}")
        has_start = typ.get("start") is not None
        if (initial in ("exact", "approx") or causality == "input") and not has_start:
            err(f"{name}: start value required")
        if initial == "calculated" and has_start:
            err(f"{name}: start value given for initial=calculated")
        unit = typ.get("unit")
        if unit is not None and unit not in units:
            err(f"{name}: unit {unit} not in UnitDefinitions")
        derivative = typ.get("derivative")
        if derivative is not None and not 1 <= int(derivative) <= len(variables):
            err(f"{name}: derivative index {derivative} out of range")

    structure = root.find("ModelStructure")

    def unknowns(tag):
        element = structure.find(tag)
        return [] if element is None else element.findall("Unknown")

    def deps(u):
        text = u.get("dependencies")
        return None if text is None else [int(d) for d in text.split()]

    def cause(i):
        return kinds[i].get("causality", "local")

    states = set()
    for u in unknowns("Derivatives"):
        index = int(u.get("index"))
        derivative = kinds[index][0].get("derivative")
        if derivative is None:
            err(f"Derivatives: {kinds[index].get('name')} has no derivative attribute")
        else:
            states.add(int(derivative))
    with_derivative = {i for i, v in kinds.items() if v[0].get("derivative") is not None}
    if with_derivative != {int(u.get("index")) for u in unknowns("Derivatives")}:
        err("Derivatives do not list exactly the variables with a derivative attribute")
    outputs = [int(u.get("index")) for u in unknowns("Outputs")]
    if outputs != sorted(i for i in kinds if cause(i) == "output"):
        err(f"Outputs {outputs} are not all outputs in index order")
    for tag in ("Outputs", "Derivatives"):
        for u in unknowns(tag):
            for d in deps(u) or []:
                if not (cause(d) == "input" or d in states or cause(d) == "independent"):
                    err(f"{tag}: {kinds[int(u.get('index'))].get('name')} depends on {kinds[d].get('name')}, "
                        "neither an input nor a state")
    initial_unknowns = [int(u.get("index")) for u in unknowns("InitialUnknowns")]
    if initial_unknowns != sorted(initial_unknowns):
        err("InitialUnknowns not in index order")
    required = {i for i in outputs if kinds[i].get("initial", "calculated") in ("calculated", "approx")}
    required |= {i for i in states | with_derivative if kinds[i].get("initial", "calculated") in ("calculated", "approx")}
    if set(initial_unknowns) != required:
        err(f"InitialUnknowns {initial_unknowns} should be {sorted(required)}")
    for u in unknowns("InitialUnknowns"):
        for d in deps(u) or []:
            v = kinds[d]
            if not (cause(d) == "input" or v.get("initial") == "exact" or cause(d) == "independent"
                    or (cause(d) == "parameter" and v.get("initial", "exact") == "exact")):
                err(f"InitialUnknowns: {kinds[int(u.get('index'))].get('name')} depends on {v.get('name')}")
    if int(root.get("numberOfEventIndicators", "0")) and not any(e.tag == "ModelExchange" for e in interfaces):
        err("event indicators without ModelExchange")
    for message in errors:
        print(f"{path}: {message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
