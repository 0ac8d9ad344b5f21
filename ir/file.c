/* Whole-file reads (see file.h). */
#include "ir/file.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned long long ir_memory_available(void) {
  /* Linux: MemAvailable (free memory plus the page cache and slabs the
   * kernel can reclaim); elsewhere, or without it, the free pages */
  FILE *f = fopen("/proc/meminfo", "re");
  if (f) {
    char line[128];
    unsigned long long kb = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
      found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
    fclose(f);
    if (found) return kb * 1024ull;
  }
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page : 0;
}

vkml_status ir_file_open(const char *path, int *fd_out, unsigned long long *bytes) {
  *fd_out = -1;
  *bytes = 0;
  /* non-blocking first: opening a FIFO for reading waits for a writer */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return vkml_status_make(VKML_CODE_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return vkml_status_make(VKML_CODE_IO, "%s: cannot stat: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return vkml_status_make(VKML_CODE_IO, "%s: not a regular file", path);
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  *fd_out = fd;
  *bytes = (unsigned long long)st.st_size;
  return VKML_OK;
}

vkml_status ir_file_read(const char *path, void **out, size_t *bytes) {
  *out = NULL;
  *bytes = 0;
  int fd;
  unsigned long long size;
  VKML_RETURN_IF_ERROR(ir_file_open(path, &fd, &size));
  vkml_status s = VKML_OK;
  {
    unsigned long long avail = ir_memory_available();
    if ((avail && size > avail) || size > (unsigned long long)SIZE_MAX - 1)
      s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY,
                           "%s: %llu bytes, more than the %llu bytes of memory available", path,
                           size, avail);
    char *buf = s ? NULL : malloc(size ? (size_t)size : 1);
    if (!s && !buf)
      s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of host memory reading %llu bytes",
                           path, size);
    size_t n = 0;
    while (!s && n < size) {
      ssize_t got = read(fd, buf + n, (size_t)size - n);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) s = vkml_status_make(VKML_CODE_IO, "%s: read error: %s", path, strerror(errno));
      else if (got == 0) s = vkml_status_make(VKML_CODE_IO, "%s: read error: the file shrank", path);
      else n += (size_t)got;
    }
    if (s) free(buf);
    else {
      *out = buf;
      *bytes = n;
    }
  }
  close(fd);
  return s;
}

vkml_status ir_file_fopen(const char *path, FILE **out) {
  *out = NULL;
  int fd;
  unsigned long long size;
  VKML_RETURN_IF_ERROR(ir_file_open(path, &fd, &size));
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    int e = errno;
    close(fd);
    return vkml_status_make(VKML_CODE_IO, "%s: cannot open: %s", path, strerror(e));
  }
  *out = f;
  return VKML_OK;
}

