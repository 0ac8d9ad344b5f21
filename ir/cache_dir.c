/* Per-user cache directory and mkdir -p (see cache_dir.h). */
#include "cache_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *ir_user_cache_dir(const char *sub) {
  char buf[4096];
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  const char *sep = sub && *sub ? "/" : "", *s = sub ? sub : "";
  int n;
  if (xdg && xdg[0] == '/')
    n = snprintf(buf, sizeof buf, "%s/vkml%s%s", xdg, sep, s);
  else if (home && *home)
    n = snprintf(buf, sizeof buf, "%s/.cache/vkml%s%s", home, sep, s);
  else
    return NULL;
  if (n < 0 || (size_t)n >= sizeof buf) return NULL;
  return strdup(buf);
}

bool ir_mkdirs(const char *path) {
  char *p = strdup(path);
  if (!p) return false;
  for (char *c = p + 1; *c; c++) {
    if (*c != '/') continue;
    *c = '\0';
    if (mkdir(p, 0700) && errno != EEXIST) {
      free(p);
      return false;
    }
    *c = '/';
  }
  bool ok = !mkdir(p, 0700) || errno == EEXIST;
  free(p);
  return ok;
}
