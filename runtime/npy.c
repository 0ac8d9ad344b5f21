/* PLACEHOLDER */
#include "runtime/tensor.h"
