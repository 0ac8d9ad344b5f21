/* Reading a whole file, the one way every reader does it (.vkir text and
 * its .bin weights, ONNX models, .npy and .pb tensors): the size from fstat
 * and one allocation (never a doubling realloc over an unknown stream), a
 * regular file only (a symlink to /dev/zero or a FIFO is refused before a
 * byte is read), and a file larger than the memory the machine has
 * available is refused with both sizes instead of being read until the
 * kernel kills the process. */
#ifndef IR_FILE_H
#define IR_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "vkml_status.h"

/* *out (malloc'd, never NULL on success, freed by the caller) holds the
 * *bytes bytes of path. Errors: IO "PATH: cannot open: REASON", "PATH: not
 * a regular file", "PATH: read error: REASON"; OUT_OF_MEMORY "PATH: N
 * bytes, more than the M bytes of memory available". */
vkml_status ir_file_read(const char *path, void **out, size_t *bytes);

/* Opens path for reading (close-on-exec) and *fd_out is its descriptor,
 * *bytes its size; a regular file only: the open does not wait on a FIFO
 * (it is refused after it), nor on a device. Errors as ir_file_read. */
vkml_status ir_file_open(const char *path, int *fd_out, unsigned long long *bytes);

/* The same as a stdio stream (fclose it). */
vkml_status ir_file_fopen(const char *path, FILE **out);

/* Bytes of memory available to a new allocation now without swapping
 * (Linux: MemAvailable of /proc/meminfo, else the free pages sysconf
 * reports); 0 when unknown. */
unsigned long long ir_memory_available(void);

#endif
