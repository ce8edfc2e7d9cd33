#!/bin/sh
# Hand-run check of the test FMU archives (not part of ctest).
#   tests/fmus/check_fmus.sh [<dir with the .fmu files>]   (default: build/tests/fmus)
# For every .fmu: the zip holds modelDescription.xml and binaries/linux64/<id>.so;
# the .so exports every FMI 2.0 function (missing_symbol.fmu: all but fmi2DoStep)
# and nothing else; modelDescription.xml is well-formed (xmllint, if installed)
# and consistent (python3: fmiVersion, GUID, interfaces, value references,
# causality/variability/initial, ModelStructure indices and dependencies).
set -eu
dir=${1:-build/tests/fmus}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL $*"; status=1; }

functions="GetTypesPlatform GetVersion SetDebugLogging Instantiate FreeInstance SetupExperiment
EnterInitializationMode ExitInitializationMode Terminate Reset GetReal GetInteger GetBoolean GetString
SetReal SetInteger SetBoolean SetString GetFMUstate SetFMUstate FreeFMUstate SerializedFMUstateSize
SerializeFMUstate DeSerializeFMUstate GetDirectionalDerivative EnterEventMode NewDiscreteStates
EnterContinuousTimeMode CompletedIntegratorStep SetTime SetContinuousStates GetDerivatives
GetEventIndicators GetContinuousStates GetNominalsOfContinuousStates SetRealInputDerivatives
GetRealOutputDerivatives DoStep CancelStep GetStatus GetRealStatus GetIntegerStatus GetBooleanStatus
GetStringStatus"

for name in switch_left switch_right switch_left_basic switch_right_basic bouncing_ball faulty null_instance \
            missing_symbol exiting stopping tally tally_me units units_me; do
  fmu=$dir/$name.fmu
  [ -f "$fmu" ] || { fail "$fmu: missing"; continue; }
  out=$tmp/$name
  mkdir -p "$out"
  unzip -q "$fmu" -d "$out"
  listing=$(unzip -Z1 "$fmu")
  echo "$listing" | grep -qx "modelDescription.xml" || fail "$name: no modelDescription.xml at the root"
  id=$(sed -n 's/.*modelIdentifier="\([^"]*\)".*/\1/p' "$out/modelDescription.xml" | head -n 1)
  echo "$listing" | grep -qx "binaries/linux64/$id.so" || fail "$name: no binaries/linux64/$id.so"
  exported=$(nm -D --defined-only "$out/binaries/linux64/$id.so" | awk '{print $3}' | sort)
  expected=$(for f in $functions; do
               [ "$name" = missing_symbol ] && [ "$f" = DoStep ] && continue
               echo "fmi2$f"
             done | sort)
  [ "$exported" = "$expected" ] || {
    fail "$name: exported symbols differ from the FMI 2.0 set:"
    echo "$exported" > "$tmp/got"; echo "$expected" > "$tmp/want"; diff "$tmp/want" "$tmp/got" || true
  }
  if command -v xmllint > /dev/null; then
    xmllint --noout "$out/modelDescription.xml" || fail "$name: xmllint"
  fi
  python3 "$here/check_model_description.py" "$out/modelDescription.xml" || fail "$name: modelDescription.xml"
  echo "ok   $name.fmu: $(echo "$listing" | tr '\n' ' ')($(echo "$exported" | wc -l) fmi2 symbols)"
done
[ $status -eq 0 ] && echo "all FMUs ok" || echo "FAILED"
exit $status
