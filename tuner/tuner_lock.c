/* The per-device tuning lock (tuner_lock.h): flock on a lock file that
 * holds its holder's pid. The file is never removed (removing a lock file
 * races with a process about to lock it). */
#include "tuner/tuner_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "ir/cache_dir.h"
#include "ir/util.h"

struct tuner_lock {
  int fd; /* holds the flock; closing it releases */
};

char *tuner_lock_path(const char *device_key, int device_index) {
  const char *run = getenv("XDG_RUNTIME_DIR");
  char *dir = NULL;
  if (run && run[0] == '/') {
    size_t n = strlen(run) + 6;
    dir = malloc(n);
    if (dir) snprintf(dir, n, "%s/vkml", run);
  } else {
    dir = ir_user_cache_dir("locks");
  }
  if (!dir) return NULL;
  /* the key's ':' and anything else odd in a file name become '_' */
  size_t n = strlen(dir) + strlen(device_key) + 40;
  char *path = malloc(n);
  if (path) {
    int k = snprintf(path, n, "%s/tune-", dir);
    for (const char *c = device_key; *c; c++)
      path[k++] = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')
                      ? *c
                      : '_';
    snprintf(path + k, n - (size_t)k, "-%d.lock", device_index);
  }
  free(dir);
  return path;
}

/* The pid the holder wrote into the file; 0 when none can be read yet. */
static long holder_pid(int fd) {
  char buf[32];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = 0;
  long pid = strtol(buf, NULL, 10);
  return pid > 0 ? pid : 0;
}

vkml_status tuner_lock_acquire(const char *device_key, int device_index, const tuner_lock_opts *o,
                               tuner_lock **out) {
  static const tuner_lock_opts none = {0};
  if (!o) o = &none;
  *out = NULL;
  char *path = tuner_lock_path(device_key, device_index);
  if (!path)
    return vkml_status_make(VKML_CODE_IO, "no directory for the device lock (neither "
                                          "XDG_RUNTIME_DIR, XDG_CACHE_HOME nor HOME is set)");
  vkml_status s = VKML_OK;
  int fd = -1;
  char *slash = strrchr(path, '/');
  *slash = 0;
  bool dir_ok = ir_mkdirs(path);
  *slash = '/';
  if (dir_ok) fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    s = vkml_status_make(VKML_CODE_IO, "%s: cannot make the device lock: %s", path,
                         strerror(errno));
    goto out;
  }
  if (flock(fd, LOCK_EX | LOCK_NB)) {
    if (errno != EWOULDBLOCK) {
      s = vkml_status_make(VKML_CODE_IO, "%s: cannot lock: %s", path, strerror(errno));
      goto out;
    }
    long pid = holder_pid(fd);
    char who[48] = "";
    if (pid) snprintf(who, sizeof who, " (pid %ld)", pid);
    if (o->no_wait) {
      s = vkml_status_make(VKML_CODE_DEVICE, "device %s is in use by another tuner%s: %s is "
                           "locked", device_key, who, path);
      goto out;
    }
    if (o->on_wait) o->on_wait(o->user, pid);
    int r;
    while ((r = flock(fd, LOCK_EX)) && errno == EINTR) {
    }
    if (r) {
      s = vkml_status_make(VKML_CODE_IO, "%s: cannot lock: %s", path, strerror(errno));
      goto out;
    }
  }
  /* who holds it, for the next one's message (best effort) */
  char pid[32];
  int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  if (pwrite(fd, pid, (size_t)n, 0) != n || ftruncate(fd, n)) {
    /* the lock holds without the pid */
  }
  tuner_lock *l = malloc(sizeof *l);
  if (!l) {
    s = ir_oom("the device lock");
    goto out;
  }
  l->fd = fd;
  fd = -1;
  *out = l;
out:
  if (fd >= 0) close(fd);
  free(path);
  return s;
}

void tuner_lock_release(tuner_lock *l) {
  if (!l) return;
  close(l->fd);
  free(l);
}
