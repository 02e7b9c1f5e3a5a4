# Empty dependencies file for mg_backend.
# This may be replaced when dependencies are built.
