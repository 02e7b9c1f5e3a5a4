# Empty dependencies file for mg_core.
# This may be replaced when dependencies are built.
