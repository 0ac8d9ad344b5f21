/* PLACEHOLDER */
#include "text.h"
