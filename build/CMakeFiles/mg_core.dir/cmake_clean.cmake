file(REMOVE_RECURSE
  "CMakeFiles/mg_core.dir/generated/build_info.cpp.o"
  "CMakeFiles/mg_core.dir/generated/build_info.cpp.o.d"
  "CMakeFiles/mg_core.dir/src/core/error.cpp.o"
  "CMakeFiles/mg_core.dir/src/core/error.cpp.o.d"
  "libmg_core.a"
  "libmg_core.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mg_core.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
