# Empty compiler generated dependencies file for mgbench.
# This may be replaced when dependencies are built.
