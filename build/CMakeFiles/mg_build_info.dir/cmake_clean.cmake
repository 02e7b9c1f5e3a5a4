file(REMOVE_RECURSE
  "CMakeFiles/mg_build_info"
  "generated/build_info.cpp"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/mg_build_info.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
