file(REMOVE_RECURSE
  "libmg_backend.a"
)
