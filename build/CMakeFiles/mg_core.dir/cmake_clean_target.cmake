file(REMOVE_RECURSE
  "libmg_core.a"
)
