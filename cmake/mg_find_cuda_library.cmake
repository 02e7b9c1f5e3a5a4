# Shared body of FindCUDNN.cmake and FindNCCL.cmake: a CUDA-side library found in <PKG>_ROOT or the CUDA toolkit,
# its version read from the MAJOR/MINOR/<patch> defines of a header, and an imported target <PKG>::<lib>.
# A macro, so the find results land in the calling Find module's scope as find_package expects.
#   mg_find_cuda_library(PKG LIB HEADER PATCH_WORD): HEADER is found and carries the version defines
macro(mg_find_cuda_library pkg lib header patch_word)
  find_path(${pkg}_INCLUDE_DIR ${header}
    HINTS ${${pkg}_ROOT} $ENV{${pkg}_ROOT} ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_ROOT}
    PATH_SUFFIXES include)
  find_library(${pkg}_LIBRARY ${lib}
    HINTS ${${pkg}_ROOT} $ENV{${pkg}_ROOT} ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_ROOT}
    PATH_SUFFIXES lib64 lib)
  if(${pkg}_INCLUDE_DIR)
    file(STRINGS ${${pkg}_INCLUDE_DIR}/${header} _mg_v REGEX "#define ${pkg}_(MAJOR|MINOR|${patch_word}) +[0-9]+")
    string(REGEX REPLACE ".*MAJOR +([0-9]+).*MINOR +([0-9]+).*${patch_word} +([0-9]+).*" "\\1.\\2.\\3"
           ${pkg}_VERSION "${_mg_v}")
  endif()
  include(FindPackageHandleStandardArgs)
  find_package_handle_standard_args(${pkg} REQUIRED_VARS ${pkg}_LIBRARY ${pkg}_INCLUDE_DIR VERSION_VAR ${pkg}_VERSION)
  if(${pkg}_FOUND AND NOT TARGET ${pkg}::${lib})
    add_library(${pkg}::${lib} UNKNOWN IMPORTED)
    set_target_properties(${pkg}::${lib} PROPERTIES IMPORTED_LOCATION ${${pkg}_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${${pkg}_INCLUDE_DIR})
  endif()
endmacro()
