
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/backend/backend.cpp" "CMakeFiles/mg_backend.dir/src/backend/backend.cpp.o" "gcc" "CMakeFiles/mg_backend.dir/src/backend/backend.cpp.o.d"
  "/work/main/src/backend/cpu/cpu_backend.cpp" "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_backend.cpp.o" "gcc" "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_backend.cpp.o.d"
  "/work/main/src/backend/cpu/cpu_layers.cpp" "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_layers.cpp.o" "gcc" "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_layers.cpp.o.d"
  "/work/main/src/backend/cpu/cpu_stream.cpp" "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_stream.cpp.o" "gcc" "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_stream.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/CMakeFiles/mg_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
