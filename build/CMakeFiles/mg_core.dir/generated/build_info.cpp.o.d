CMakeFiles/mg_core.dir/generated/build_info.cpp.o: \
 /work/main/build/generated/build_info.cpp /usr/include/stdc-predef.h \
 /work/main/src/core/build_info.h
