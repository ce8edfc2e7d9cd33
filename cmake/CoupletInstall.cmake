# Installation, the CMake package, the pkg-config file and the Debian packages
# (docs/deploy.md). Components, one Debian package each:
#   target  couplet-target and the shared libraries a device program needs
#   dev     public headers, CMake package, pkg-config file: building devices
#   host    couplet, couplet-netem and the Python module (not built with COUPLET_TARGET_ONLY)
include(CMakePackageConfigHelpers)
# Installing (and cpack) does not build the tests and benchmarks first: build
# the installed targets (./build.sh package does), then install.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
set(COUPLET_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/couplet)

install(TARGETS couplet_core couplet_device EXPORT coupletTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT target NAMELINK_COMPONENT dev)
install(TARGETS couplet-target RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT target)
install(FILES targets/systemd/couplet-target@.service targets/systemd/couplet-target.conf
  DESTINATION ${CMAKE_INSTALL_DATADIR}/couplet/systemd COMPONENT target)
if(TARGET couplet)
  install(TARGETS couplet couplet-netem RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT host)
  # The master as a library (docs/library.md): in the host package, its
  # development link with the headers.
  install(TARGETS couplet_master_library EXPORT coupletTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT host NAMELINK_COMPONENT dev)
endif()
# The Python module, where Debian's python3 looks in the prefix /usr; it finds
# couplet's shared libraries relative to itself, in any prefix.
set(COUPLET_PYTHON_INSTALL_DIR lib/python3/dist-packages CACHE STRING
    "Where the Python module is installed, relative to the prefix")
if(TARGET couplet_python)
  file(RELATIVE_PATH couplet_python_to_libdir /${COUPLET_PYTHON_INSTALL_DIR} /${CMAKE_INSTALL_LIBDIR})
  set_target_properties(couplet_python PROPERTIES INSTALL_RPATH "$ORIGIN/${couplet_python_to_libdir}")
  install(TARGETS couplet_python LIBRARY DESTINATION ${COUPLET_PYTHON_INSTALL_DIR} COMPONENT host)
endif()

install(FILES ${COUPLET_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/couplet COMPONENT dev)
# Users' own FMUs: couplet_add_fmu() and the FMI 2.0 declarations it compiles against.
install(FILES models/fmi/fmi2.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/couplet/fmi COMPONENT dev)
install(EXPORT coupletTargets NAMESPACE couplet:: DESTINATION ${COUPLET_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(cmake/coupletConfig.cmake.in ${PROJECT_BINARY_DIR}/installed/coupletConfig.cmake
  INSTALL_DESTINATION ${COUPLET_CMAKE_DIR} PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/coupletConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/installed/coupletConfig.cmake ${PROJECT_BINARY_DIR}/coupletConfigVersion.cmake
              cmake/CoupletFmu.cmake
  DESTINATION ${COUPLET_CMAKE_DIR} COMPONENT dev)
# The same package from the build tree, without installing:
# -DCMAKE_PREFIX_PATH=BUILD_DIR finds BUILD_DIR/coupletConfig.cmake, whose
# targets are the build's libraries with the source tree's headers.
export(EXPORT coupletTargets NAMESPACE couplet:: FILE ${PROJECT_BINARY_DIR}/coupletTargets.cmake)
set(COUPLET_BUILD_TREE_FMI_INCLUDE_DIR ${PROJECT_SOURCE_DIR}/models/fmi)
set(COUPLET_BUILD_TREE_FMU_CMAKE ${PROJECT_SOURCE_DIR}/cmake/CoupletFmu.cmake)
configure_file(cmake/coupletBuildTreeConfig.cmake.in ${PROJECT_BINARY_DIR}/coupletConfig.cmake @ONLY)
# Relocatable: the prefix is found from where the .pc file lies.
file(RELATIVE_PATH COUPLET_PC_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" COUPLET_PC_PREFIX "${COUPLET_PC_PREFIX}")
configure_file(cmake/couplet.pc.in ${PROJECT_BINARY_DIR}/couplet.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/couplet.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# Debian packages: cpack -G DEB in the build directory (./build.sh package).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME couplet)
set(CPACK_PACKAGE_VENDOR "couplet")
set(CPACK_PACKAGE_CONTACT "couplet developers <couplet@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "co-simulation runtime with hardware in the loop")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Dependencies on Debian's shared libraries come from dpkg-shlibdeps; those on
# couplet's own packages are declared below.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR})
set(CPACK_DEBIAN_TARGET_PACKAGE_NAME couplet-target)
set(CPACK_COMPONENT_TARGET_DESCRIPTION
  "couplet target side: couplet-target and the device library\n couplet-target serves a built-in model or an FMU as a co-simulation slave\n over UDP or a serial line; devices built with the couplet SDK link the\n device library.")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME couplet-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "couplet-target (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "couplet device SDK: headers, CMake package and pkg-config file\n Build your own device (real I/O behind a couplet link) with\n find_package(couplet) and couplet::device.")
set(CPACK_DEBIAN_HOST_PACKAGE_NAME couplet)
# couplet loads matio (export --mat) itself, so dpkg-shlibdeps does not see it:
# libmatio.so.11 is Debian's libmatio11.
string(REGEX REPLACE "^lib(.*)\\.so\\.([0-9]+)$" "lib\\1\\2" COUPLET_MATIO_PACKAGE "${COUPLET_MATIO_SONAME}")
set(CPACK_DEBIAN_HOST_PACKAGE_DEPENDS "couplet-target (= ${PROJECT_VERSION}), ${COUPLET_MATIO_PACKAGE}")
# The Python module needs them; the command line does not.
set(CPACK_DEBIAN_HOST_PACKAGE_RECOMMENDS "python3, python3-numpy")
# mpirun couplet run (docs/mpi.md): couplet loads Open MPI then.
set(CPACK_DEBIAN_HOST_PACKAGE_SUGGESTS "python3-pandas, openmpi-bin")
set(CPACK_COMPONENT_HOST_DESCRIPTION
  "couplet co-simulation master and tools\n couplet runs, validates, replays and reports co-simulations of built-in\n models, FMUs and devices behind links; couplet-netem impairs UDP links;\n the Python module couplet runs scenarios and reads run logs as NumPy arrays.")
if(TARGET couplet)
  set(CPACK_COMPONENTS_ALL target dev host)
else()
  set(CPACK_COMPONENTS_ALL target dev)
endif()
include(CPack)
