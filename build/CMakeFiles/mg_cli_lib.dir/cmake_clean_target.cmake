file(REMOVE_RECURSE
  "libmg_cli_lib.a"
)
