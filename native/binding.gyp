{
  "targets": [
    {
      "target_name": "witness",
      "sources": ["witness.c"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-O2"]
    }
  ]
}
