file(REMOVE_RECURSE
  "CMakeFiles/mg_backend.dir/src/backend/backend.cpp.o"
  "CMakeFiles/mg_backend.dir/src/backend/backend.cpp.o.d"
  "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_backend.cpp.o"
  "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_backend.cpp.o.d"
  "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_layers.cpp.o"
  "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_layers.cpp.o.d"
  "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_stream.cpp.o"
  "CMakeFiles/mg_backend.dir/src/backend/cpu/cpu_stream.cpp.o.d"
  "libmg_backend.a"
  "libmg_backend.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mg_backend.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
