# Shared body of FindCUDNN.cmake and FindNCCL.cmake: a CUDA-side library found in <PKG>_ROOT or the CUDA toolkit,
# its version read from the MAJOR/MINOR/<patch> defines of a header, and an imported target <PKG>::<lib>.
# A macro, so the find results land in the calling Find module's scope as find_package expects.
#   mg_find_cuda_library(PKG LIB HEADER PATCH_WORD): HEADER is found and carries the version defines
# NVIDIA's pip wheels (<site-packages>/nvidia/cudnn, nvidia/nccl: set <PKG>_ROOT there) ship only the versioned
# file (libcudnn.so.9, libnccl.so.2), so the header's major names the file too. A library built for another CUDA
# major than the toolkit's (nvidia-cudnn-cu12 beside CUDA 13) is refused with the reason, not linked.

# The CUDA major a cuDNN or NCCL build was made for, from its files; "" when they do not say. cuDNN dlopens CUDA's
# libraries and NCCL links cudart statically, so neither has a NEEDED entry naming one; cuDNN's libraries carry the
# versioned names they open (libcublasLt.so.13) and NCCL's its banner ("NCCL version 2.28.9+cuda13.0") whatever
# way they were installed (wheel, tarball, package), where wheel directory names and dist-info exist for wheels only.
function(mg_cuda_major_of_library library out_var)
  set(major "")
  find_program(MG_GREP grep)
  get_filename_component(real "${library}" REALPATH)
  get_filename_component(dir "${real}" DIRECTORY)
  get_filename_component(name "${library}" NAME)
  string(REGEX REPLACE "\\.so.*$" "" stem "${name}")
  file(GLOB siblings "${dir}/${stem}_*.so*")
  get_filename_component(given_dir "${library}" DIRECTORY)
  file(GLOB given_siblings "${given_dir}/${stem}_*.so*")
  foreach(f "${library}" ${given_siblings} ${siblings})
    if(MG_GREP AND EXISTS "${f}")
      execute_process(COMMAND ${MG_GREP} -a -o -m1 -E "\\+cuda[0-9]+\\.|lib(cublasLt|cublas|nvrtc|cudart)\\.so\\.[0-9]+"
                      "${f}" OUTPUT_VARIABLE hit ERROR_QUIET)
      if(hit MATCHES "(\\+cuda|\\.so\\.)([0-9]+)")
        set(major "${CMAKE_MATCH_2}")
        break()
      endif()
    endif()
  endforeach()
  set(${out_var} "${major}" PARENT_SCOPE)
endfunction()

macro(mg_find_cuda_library pkg lib header patch_word)
  find_path(${pkg}_INCLUDE_DIR ${header}
    HINTS ${${pkg}_ROOT} $ENV{${pkg}_ROOT} ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_ROOT}
    PATH_SUFFIXES include)
  set(_mg_names ${lib})
  if(${pkg}_INCLUDE_DIR)
    file(STRINGS ${${pkg}_INCLUDE_DIR}/${header} _mg_v REGEX "#define ${pkg}_(MAJOR|MINOR|${patch_word}) +[0-9]+")
    string(REGEX REPLACE ".*MAJOR +([0-9]+).*MINOR +([0-9]+).*${patch_word} +([0-9]+).*" "\\1.\\2.\\3"
           ${pkg}_VERSION "${_mg_v}")
    string(REGEX REPLACE "\\..*" "" ${pkg}_VERSION_MAJOR "${${pkg}_VERSION}")
    list(APPEND _mg_names lib${lib}.so.${${pkg}_VERSION_MAJOR})
  endif()
  find_library(${pkg}_LIBRARY NAMES ${_mg_names}
    HINTS ${${pkg}_ROOT} $ENV{${pkg}_ROOT} ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_ROOT}
    PATH_SUFFIXES lib64 lib)
  set(${pkg}_CUDA_MAJOR "")
  set(_mg_cuda_ok TRUE)
  set(_mg_reason "")
  if(${pkg}_LIBRARY AND CUDAToolkit_VERSION_MAJOR)
    mg_cuda_major_of_library("${${pkg}_LIBRARY}" ${pkg}_CUDA_MAJOR)
    if(${pkg}_CUDA_MAJOR STREQUAL "")
      message(STATUS "${pkg}: could not tell which CUDA major ${${pkg}_LIBRARY} was built for; assuming the toolkit's")
    elseif(NOT ${pkg}_CUDA_MAJOR STREQUAL CUDAToolkit_VERSION_MAJOR)
      set(_mg_cuda_ok FALSE)
      set(_mg_reason "${${pkg}_LIBRARY} was built for CUDA ${${pkg}_CUDA_MAJOR}, but the toolkit is CUDA \
${CUDAToolkit_VERSION_MAJOR}: install its cu${CUDAToolkit_VERSION_MAJOR} build and point ${pkg}_ROOT at it")
      # Shown even under QUIET: a library refused for this reason is never what the user meant to be missing.
      message(WARNING "${pkg} refused: ${_mg_reason}")
    endif()
  endif()
  set(${pkg}_CUDA_MAJOR_MATCHES ${_mg_cuda_ok})
  include(FindPackageHandleStandardArgs)
  find_package_handle_standard_args(${pkg}
    REQUIRED_VARS ${pkg}_LIBRARY ${pkg}_INCLUDE_DIR ${pkg}_CUDA_MAJOR_MATCHES
    VERSION_VAR ${pkg}_VERSION
    REASON_FAILURE_MESSAGE "${_mg_reason}")
  if(${pkg}_FOUND AND NOT TARGET ${pkg}::${lib})
    add_library(${pkg}::${lib} UNKNOWN IMPORTED)
    set_target_properties(${pkg}::${lib} PROPERTIES IMPORTED_LOCATION ${${pkg}_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${${pkg}_INCLUDE_DIR})
  endif()
endmacro()
