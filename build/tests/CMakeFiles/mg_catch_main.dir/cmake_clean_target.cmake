file(REMOVE_RECURSE
  "libmg_catch_main.a"
)
