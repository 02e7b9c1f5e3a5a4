file(REMOVE_RECURSE
  "CMakeFiles/mgbench.dir/src/cli/main.cpp.o"
  "CMakeFiles/mgbench.dir/src/cli/main.cpp.o.d"
  "mgbench"
  "mgbench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mgbench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
