# `cmake --install`: the libraries as the CMake package Systole (find_package(Systole) gives
# Systole::isa, ::simulator, ::compiler, ::runtime and the tool Systole::systole), their public
# headers, the `systole` tool and the shipped configs (share/systole/configs, which the tool and
# isa::shippedConfigDir find beside bin/). The libraries are static, so the package also finds
# the libraries they link privately (SystoleConfig.cmake.in).
include(CMakePackageConfigHelpers)

set(SYSTOLE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Systole)

install(TARGETS systole_isa systole_sim systole_compiler systole_hostjit systole_runtime systole
        EXPORT SystoleTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir isa simulator compiler hostjit runtime)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/isa/configs/ DESTINATION ${SYSTOLE_CONFIG_INSTALL_DIR} FILES_MATCHING PATTERN "*.yaml")

install(EXPORT SystoleTargets NAMESPACE Systole:: DESTINATION ${SYSTOLE_CMAKE_INSTALL_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/SystoleConfig.cmake.in ${PROJECT_BINARY_DIR}/SystoleConfig.cmake
                              INSTALL_DESTINATION ${SYSTOLE_CMAKE_INSTALL_DIR}
                              PATH_VARS SYSTOLE_CONFIG_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/SystoleConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/SystoleConfig.cmake ${PROJECT_BINARY_DIR}/SystoleConfigVersion.cmake
        DESTINATION ${SYSTOLE_CMAKE_INSTALL_DIR})

# The Python package: the module and __init__.py under SYSTOLE_PYTHON_INSTALL_DIR/systole. The
# package finds the configs at PREFIX/share/systole/configs, the first such directory above it.
install(TARGETS systole_python LIBRARY DESTINATION ${SYSTOLE_PYTHON_INSTALL_DIR}/systole)
install(FILES ${PROJECT_SOURCE_DIR}/python/systole/__init__.py DESTINATION ${SYSTOLE_PYTHON_INSTALL_DIR}/systole)
