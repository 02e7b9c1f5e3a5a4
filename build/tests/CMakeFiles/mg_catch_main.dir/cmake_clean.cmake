file(REMOVE_RECURSE
  "CMakeFiles/mg_catch_main.dir/catch_main.cpp.o"
  "CMakeFiles/mg_catch_main.dir/catch_main.cpp.o.d"
  "libmg_catch_main.a"
  "libmg_catch_main.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mg_catch_main.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
