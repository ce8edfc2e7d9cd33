#!/usr/bin/env bash
# The embedded core built for a Cortex-M4 with Debian's gcc-arm-none-eabi:
#   - the core, the generated schema code, nanopb and the example model compile
#     with -std=c99 -Wall -Wextra -Werror -pedantic at -Os;
#   - no object references an allocator or printf (nm);
#   - prints .text/.data/.bss of the library objects and of a linked image of
#     examples/bare_metal_main.c (docs/embedded.md, docs/results.md).
# Usage: cross_check.sh SOURCE_DIR GENERATED_DIR NANOPB_SOURCE_DIR OUT_DIR [-DNAME=VALUE ...]
# Exit 77 (skipped) when the cross compiler or nanopb's sources are missing
# (./build.sh test sets both up).
set -euo pipefail
source_dir=$1 generated_dir=$2 nanopb_dir=$3 out_dir=$4
shift 4
config=("$@")

if ! command -v arm-none-eabi-gcc >/dev/null; then
  echo "skipped: arm-none-eabi-gcc not found (Debian packages gcc-arm-none-eabi, libnewlib-arm-none-eabi)"
  exit 77
fi
if [ ! -f "$nanopb_dir/pb_decode.c" ]; then
  echo "skipped: nanopb's C sources not in $nanopb_dir (./build.sh test fetches Debian's source package)"
  exit 77
fi

cpu=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16)
# nanopb's headers and sources, and the code it generates, are third-party:
# they build with the same options but without our warning set.
common=(-std=c99 -Os "${cpu[@]}" -ffunction-sections -fdata-sections
        -I"$source_dir/targets/embedded/include" -I"$source_dir/targets/embedded/src"
        -I"$source_dir/targets/embedded/examples" -isystem "$generated_dir" -isystem "$nanopb_dir"
        "${config[@]}")
strict=(-Wall -Wextra -Werror -pedantic)
rm -rf "$out_dir" && mkdir -p "$out_dir"

core=("$source_dir"/targets/embedded/src/*.c "$generated_dir/couplet.pb.c"
      "$nanopb_dir/pb_common.c" "$nanopb_dir/pb_decode.c" "$nanopb_dir/pb_encode.c")
example=("$source_dir/targets/embedded/examples/translational_mass.c"
         "$source_dir/targets/embedded/examples/bare_metal_main.c"
         "$source_dir/tests/embedded/board_stub.c")
objects=()
for file in "${core[@]}" "${example[@]}"; do
  object="$out_dir/$(basename "${file%.c}").o"
  case "$file" in
    "$generated_dir"/* | "$nanopb_dir"/*) arm-none-eabi-gcc "${common[@]}" -c "$file" -o "$object" ;;
    *) arm-none-eabi-gcc "${common[@]}" "${strict[@]}" -c "$file" -o "$object" ;;
  esac
  objects+=("$object")
done

status=0
for object in "${objects[@]}"; do
  forbidden=$(arm-none-eabi-nm -u "$object" |
              grep -Ew '(malloc|calloc|realloc|free|_malloc_r|_free_r|printf|sprintf|snprintf|vsnprintf|fprintf|puts|putchar)' || true)
  if [ -n "$forbidden" ]; then
    echo "FAIL: $(basename "$object") references: $forbidden"
    status=1
  fi
done

echo "Cortex-M4, -Os, ${config[*]:-default couplet_embedded_config.h}"
echo "library objects (core + generated schema + nanopb):"
core_objects=()
for file in "${core[@]}"; do core_objects+=("$out_dir/$(basename "${file%.c}").o"); done
arm-none-eabi-size -t "${core_objects[@]}" | sed 's|'"$out_dir"'/||'

# A whole image: the example main loop, the model and a stand-in board, with
# unused sections dropped, on newlib-nano without system calls.
arm-none-eabi-gcc "${cpu[@]}" --specs=nano.specs --specs=nosys.specs -Wl,--gc-sections \
  -Wl,--undefined=uart_interrupt_handler -o "$out_dir/bare_metal.elf" "${objects[@]}" -lm
echo "linked image (examples/bare_metal_main.c, --gc-sections, newlib-nano):"
arm-none-eabi-size "$out_dir/bare_metal.elf" | sed 's|'"$out_dir"'/||'
image_forbidden=$(arm-none-eabi-nm "$out_dir/bare_metal.elf" | grep -Ew '(malloc|_malloc_r|printf|_printf_r)' || true)
if [ -n "$image_forbidden" ]; then
  echo "FAIL: the image contains: $image_forbidden"
  status=1
fi
exit $status
