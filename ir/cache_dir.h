/* The per-user vkml cache directory and mkdir -p: shared by the SPIR-V cache
 * (codegen/) and the pipeline cache (runtime/vk/), which may not include each
 * other. libc only. */
#ifndef IR_CACHE_DIR_H
#define IR_CACHE_DIR_H

#include <stdbool.h>

/* "$XDG_CACHE_HOME/vkml/SUB" (absolute XDG only) or "$HOME/.cache/vkml/SUB"
 * (SUB may be NULL or ""), malloc'd; NULL when neither variable helps or out
 * of memory. The caller frees it. */
char *ir_user_cache_dir(const char *sub);
/* mkdir -p with mode 0700; false (errno set) on failure. */
bool ir_mkdirs(const char *path);

#endif
