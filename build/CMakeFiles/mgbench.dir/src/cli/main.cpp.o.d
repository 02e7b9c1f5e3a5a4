CMakeFiles/mgbench.dir/src/cli/main.cpp.o: /work/main/src/cli/main.cpp \
 /usr/include/stdc-predef.h /work/main/src/cli/lib/app.h
