# couplet_add_fmu(): builds an FMI 2.0 or 3.0 FMU (a .fmu zip archive) from C sources
# that use only the FMI API. Used by tests/fmus/ for the project's own test
# FMUs; a user includes this file to build their own (docs/fmu-build.md).
#
#   couplet_add_fmu(<name>
#     MODEL_IDENTIFIER <id>              # C identifier: binaries/linux64/<id>.so
#     MODEL_DESCRIPTION <xml file>       # modelDescription.xml or a template of it
#     SOURCES <c files...>
#     [GUID <guid>]                      # -> @COUPLET_FMU_GUID@ and COUPLET_FMU_GUID="<guid>"
#     [DEFINITIONS <defs...>]            # compile definitions, e.g. MY_OPTION=1
#     [INCLUDE_DIRECTORIES <dirs...>]
#     [LINK_LIBRARIES <libs...>]         # linked privately into the .so (static ones, ideally)
#     [FMI_VERSION 2|3]                  # default 2; 3: binaries/x86_64-linux, fmi3.h
#     [FMI_INCLUDE_DIR <dir>]            # where fmi2.h/fmi3.h is; default: ${COUPLET_FMI_INCLUDE_DIR}
#     [OUTPUT_DIRECTORY <dir>])          # where <name>.fmu goes; default ${CMAKE_CURRENT_BINARY_DIR}
#
# What it makes:
#   <name>_binary   MODULE library <id>.so: C99, -fvisibility=hidden (export the
#                   fmi2 functions with __attribute__((visibility("default")))),
#                   no "lib" prefix, -Wall -Wextra, linked with --no-undefined and
#                   libm; compiled with COUPLET_FMU_MODEL_IDENTIFIER=<id> (a bare
#                   identifier) and, if GUID is given, COUPLET_FMU_GUID="<guid>".
#   <name>          custom target in ALL that writes <OUTPUT_DIRECTORY>/<name>.fmu:
#                   modelDescription.xml at the root and binaries/linux64/<id>.so
#                   (FMI 3.0: binaries/x86_64-linux/<id>.so),
#                   zipped with `cmake -E tar cf <name>.fmu --format=zip
#                   modelDescription.xml binaries` in a staging directory.
#   The XML is configured with configure_file(@ONLY) at configure time, in the
#   caller's variable scope plus @COUPLET_FMU_NAME@, @COUPLET_FMU_MODEL_IDENTIFIER@,
#   @COUPLET_FMU_GUID@ and @COUPLET_FMU_PLATFORM@; a file without @VAR@ is copied as is.
#
# Where the result is: target properties of <name>
#   COUPLET_FMU_FILE               absolute path of <name>.fmu
#   COUPLET_FMU_MODEL_IDENTIFIER   <id>
#   COUPLET_FMU_BINARY_TARGET      <name>_binary
#   COUPLET_FMU_MODEL_DESCRIPTION  the configured modelDescription.xml
# and the global property COUPLET_FMUS, the list of every <name> made so far.
# Needs CMake 3.17 or later.
include_guard(GLOBAL)

# Default place of fmi2.h: couplet's models/fmi beside this file (cmake/..).
# A user building out of tree sets COUPLET_FMI_INCLUDE_DIR (or passes
# FMI_INCLUDE_DIR) to the directory of their couplet's fmi2.h.
get_filename_component(_couplet_fmu_default_fmi_dir "${CMAKE_CURRENT_LIST_DIR}/../models/fmi" ABSOLUTE)
set(COUPLET_FMI_INCLUDE_DIR "${_couplet_fmu_default_fmi_dir}"
    CACHE PATH "Directory of fmi2.h for couplet_add_fmu()")

function(couplet_add_fmu name)
  cmake_parse_arguments(PARSE_ARGV 1 arg ""
    "MODEL_IDENTIFIER;MODEL_DESCRIPTION;GUID;FMI_VERSION;FMI_INCLUDE_DIR;OUTPUT_DIRECTORY"
    "SOURCES;DEFINITIONS;INCLUDE_DIRECTORIES;LINK_LIBRARIES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "couplet_add_fmu(${name}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required MODEL_IDENTIFIER MODEL_DESCRIPTION SOURCES)
    if(NOT arg_${required})
      message(FATAL_ERROR "couplet_add_fmu(${name}): ${required} is required")
    endif()
  endforeach()
  set(id "${arg_MODEL_IDENTIFIER}")
  # FMI 2.0 §2.2.1: the model identifier is the binary's file name and a C prefix.
  if(NOT id MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "couplet_add_fmu(${name}): MODEL_IDENTIFIER '${id}' is not a C identifier")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages)
    message(FATAL_ERROR "couplet_add_fmu(${name}): enable C first (project(... LANGUAGES C ...))")
  endif()

  if(NOT arg_FMI_VERSION)
    set(arg_FMI_VERSION 2)
  endif()
  if(NOT arg_FMI_VERSION MATCHES "^[23]$")
    message(FATAL_ERROR "couplet_add_fmu(${name}): FMI_VERSION '${arg_FMI_VERSION}' is neither 2 nor 3")
  endif()
  # binaries/<platform>: FMI 2.0 §2.3, FMI 3.0 §2.5.1.4. Only Linux is built and tested here.
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    if(arg_FMI_VERSION EQUAL 3)
      if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
        message(FATAL_ERROR "couplet_add_fmu(${name}): FMI 3.0 FMUs are built for x86_64-linux only (not ${CMAKE_SYSTEM_PROCESSOR})")
      endif()
      set(platform x86_64-linux)
    elseif(CMAKE_SIZEOF_VOID_P EQUAL 8)
      set(platform linux64)
    else()
      set(platform linux32)
    endif()
  else()
    message(FATAL_ERROR "couplet_add_fmu(${name}): only Linux FMUs are supported (not ${CMAKE_SYSTEM_NAME})")
  endif()

  if(arg_FMI_INCLUDE_DIR)
    set(fmi_dir "${arg_FMI_INCLUDE_DIR}")
  else()
    set(fmi_dir "${COUPLET_FMI_INCLUDE_DIR}")
  endif()
  if(NOT EXISTS "${fmi_dir}/fmi${arg_FMI_VERSION}.h")
    message(FATAL_ERROR "couplet_add_fmu(${name}): no fmi${arg_FMI_VERSION}.h in '${fmi_dir}' "
                        "(set FMI_INCLUDE_DIR or COUPLET_FMI_INCLUDE_DIR)")
  endif()
  if(arg_OUTPUT_DIRECTORY)
    get_filename_component(output_dir "${arg_OUTPUT_DIRECTORY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(output_dir "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set(fmu_file "${output_dir}/${name}.fmu")
  set(work_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.fmu.d")  # configured XML, the .so
  set(stage "${work_dir}/stage")                               # what goes into the zip

  # The shared library.
  set(binary_target ${name}_binary)
  add_library(${binary_target} MODULE ${arg_SOURCES})
  set_target_properties(${binary_target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME "${id}"
    SUFFIX ".so"
    C_STANDARD 99
    C_STANDARD_REQUIRED ON
    C_EXTENSIONS OFF
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON
    LIBRARY_OUTPUT_DIRECTORY "${work_dir}")
  target_include_directories(${binary_target} PRIVATE "${fmi_dir}" ${arg_INCLUDE_DIRECTORIES})
  target_compile_definitions(${binary_target} PRIVATE COUPLET_FMU_MODEL_IDENTIFIER=${id} ${arg_DEFINITIONS})
  if(DEFINED arg_GUID)
    target_compile_definitions(${binary_target} PRIVATE "COUPLET_FMU_GUID=\"${arg_GUID}\"")
  endif()
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${binary_target} PRIVATE -Wall -Wextra)
  endif()
  # Undefined symbols fail the link, not the importer's dlopen. Not under
  # clang's ThreadSanitizer, whose runtime only the loading program carries
  # (its ASan build links everything to the shared runtime instead:
  # cmake/CoupletSanitizers.cmake).
  if(NOT (COUPLET_SANITIZE MATCHES "thread" AND CMAKE_C_COMPILER_ID STREQUAL "Clang"))
    target_link_options(${binary_target} PRIVATE "LINKER:--no-undefined")
  endif()
  target_link_libraries(${binary_target} PRIVATE ${arg_LINK_LIBRARIES} m)

  # modelDescription.xml, configured now (re-run on edit: configure_file tracks its input).
  set(COUPLET_FMU_NAME "${name}")
  set(COUPLET_FMU_MODEL_IDENTIFIER "${id}")
  set(COUPLET_FMU_GUID "${arg_GUID}")
  set(COUPLET_FMU_PLATFORM "${platform}")
  get_filename_component(xml_in "${arg_MODEL_DESCRIPTION}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(xml "${work_dir}/modelDescription.xml")
  configure_file("${xml_in}" "${xml}" @ONLY)

  # The archive: a fresh staging directory each time, then zip it from inside.
  add_custom_command(
    OUTPUT "${fmu_file}"
    COMMAND ${CMAKE_COMMAND} -E rm -rf "${stage}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${stage}/binaries/${platform}" "${output_dir}"
    COMMAND ${CMAKE_COMMAND} -E copy "${xml}" "${stage}/modelDescription.xml"
    COMMAND ${CMAKE_COMMAND} -E copy "$<TARGET_FILE:${binary_target}>" "${stage}/binaries/${platform}/${id}.so"
    COMMAND ${CMAKE_COMMAND} -E rm -f "${fmu_file}"
    COMMAND ${CMAKE_COMMAND} -E chdir "${stage}"
            ${CMAKE_COMMAND} -E tar cf "${fmu_file}" --format=zip modelDescription.xml binaries
    DEPENDS "${xml}" ${binary_target} "$<TARGET_FILE:${binary_target}>"
    WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
    COMMENT "FMU ${name}.fmu (${id}.so)"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS "${fmu_file}")
  set_target_properties(${name} PROPERTIES
    COUPLET_FMU_FILE "${fmu_file}"
    COUPLET_FMU_MODEL_IDENTIFIER "${id}"
    COUPLET_FMU_BINARY_TARGET "${binary_target}"
    COUPLET_FMU_MODEL_DESCRIPTION "${xml}")
  set_property(GLOBAL APPEND PROPERTY COUPLET_FMUS ${name})
endfunction()
