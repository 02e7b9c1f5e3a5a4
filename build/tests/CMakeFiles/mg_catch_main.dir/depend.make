# Empty dependencies file for mg_catch_main.
# This may be replaced when dependencies are built.
