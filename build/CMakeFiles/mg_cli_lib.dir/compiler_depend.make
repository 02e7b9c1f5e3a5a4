# Empty compiler generated dependencies file for mg_cli_lib.
# This may be replaced when dependencies are built.
