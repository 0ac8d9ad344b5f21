/* tuner_lock: one tuner measuring on a device at a time. Two tuners timing
 * kernels on one GPU slow each other's kernels down (a softmax measured at
 * 20 us alone read 88 us beside another tuner), and nothing in the numbers
 * says so. A lock file per device of the machine, held with flock: released
 * when its holder exits, crash or kill -9 included. What waits, and what it
 * says while it waits, is the caller's (vktune). */
#ifndef TUNER_TUNER_LOCK_H
#define TUNER_TUNER_LOCK_H

#include <stdbool.h>

#include "vkml_status.h"

typedef struct tuner_lock tuner_lock;

/* Valid when zeroed: wait, silently. */
typedef struct tuner_lock_opts {
  bool no_wait; /* another holder: fail (VKML_CODE_DEVICE) instead of waiting */
  /* called once before waiting, with the holder's pid (0: unknown) */
  void (*on_wait)(void *user, long holder_pid);
  void *user;
} tuner_lock_opts;

/* The lock file of device_key (tunedb_device_key) at device_index (the
 * Vulkan enumeration index: identical GPUs of one machine share a key):
 * "$XDG_RUNTIME_DIR/vkml/tune-KEY-INDEX.lock" (an absolute XDG_RUNTIME_DIR,
 * local to the machine), else in the vkml cache directory
 * (ir_user_cache_dir("locks")). malloc'd, the caller frees it; NULL when
 * neither directory is known or out of memory. */
char *tuner_lock_path(const char *device_key, int device_index);

/* Takes the device's lock, waiting for another holder unless o->no_wait
 * (o may be NULL). Errors: the lock file cannot be made (IO, naming it), a
 * busy device with no_wait (DEVICE, naming the holder's pid). *out is
 * released with tuner_lock_release. */
vkml_status tuner_lock_acquire(const char *device_key, int device_index, const tuner_lock_opts *o,
                               tuner_lock **out);
/* Releases and frees l (NULL: nothing). */
void tuner_lock_release(tuner_lock *l);

#endif
