# Sanitizer and fuzzing builds (docs/hardening.md). Included before any target
# is defined, so that every library and program of the build is instrumented
# alike (a sanitizer sees only what was compiled with it).
#
#   -DCOUPLET_SANITIZE=address,undefined   ASan + UBSan (./build.sh sanitize: build-asan)
#   -DCOUPLET_SANITIZE=thread              TSan (./build.sh sanitize: build-tsan)
#   -DCOUPLET_FUZZ=ON                      clang only: libFuzzer targets of tests/fuzz,
#                                          everything with coverage, ASan and UBSan
#                                          (./build.sh fuzz: build-fuzz)
set(COUPLET_SANITIZE "" CACHE STRING
    "Compile and link everything with -fsanitize=<this> (address,undefined or thread; empty: none)")
option(COUPLET_FUZZ "Build the libFuzzer targets of tests/fuzz (clang)" OFF)

if(COUPLET_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "COUPLET_FUZZ needs clang (libFuzzer): CC=clang CXX=clang++ cmake ...")
  endif()
  if(COUPLET_SANITIZE AND NOT COUPLET_SANITIZE STREQUAL "address,undefined")
    message(FATAL_ERROR "COUPLET_FUZZ runs with address,undefined; COUPLET_SANITIZE=${COUPLET_SANITIZE} does not mix")
  endif()
  set(COUPLET_SANITIZE "address,undefined")
  # Coverage feedback for libFuzzer in every library; only the fuzz programs
  # link libFuzzer's main (tests/fuzz/CMakeLists.txt).
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(COUPLET_SANITIZE)
  add_compile_options(-fsanitize=${COUPLET_SANITIZE} -fno-omit-frame-pointer)
  # Undefined behaviour stops the program (and fails the test) instead of
  # printing a line that nobody reads.
  if(COUPLET_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  add_link_options(-fsanitize=${COUPLET_SANITIZE})
  # clang links its ASan runtime statically into programs and leaves shared
  # libraries without it, which the FMUs' --no-undefined refuses: link every
  # program and library to the shared runtime instead (one runtime per
  # process, the Python module's included), found through the rpath.
  if(COUPLET_SANITIZE MATCHES "address" AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND NOT COUPLET_FUZZ)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so
                    OUTPUT_VARIABLE couplet_clang_asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
    get_filename_component(couplet_clang_runtime_directory ${couplet_clang_asan_runtime} DIRECTORY)
    add_link_options(-shared-libasan "LINKER:-rpath,${couplet_clang_runtime_directory}")
  endif()
endif()
