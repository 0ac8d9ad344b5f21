#include <criterion/criterion.h>  /* PLACEHOLDER */
