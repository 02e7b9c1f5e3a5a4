file(REMOVE_RECURSE
  "CMakeFiles/mg_cli_lib.dir/src/cli/lib/app.cpp.o"
  "CMakeFiles/mg_cli_lib.dir/src/cli/lib/app.cpp.o.d"
  "libmg_cli_lib.a"
  "libmg_cli_lib.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mg_cli_lib.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
