# Empty custom commands generated dependencies file for mg_build_info.
# This may be replaced when dependencies are built.
