/* Winograd's minimal filtering F(m x m, 3 x 3) (Lavin and Gray, "Fast
 * Algorithms for Convolutional Neural Networks", 2016): a 3x3, stride-1
 * convolution computes each m x m output tile from an a x a input tile,
 * a = m + 2, as
 *
 *   Y = A^T [ (G g G^T) (.) (B^T d B) ] A     ((.): element-wise)
 *
 * so a tile's 9 m^2 multiplies become a^2 (2.25x fewer for m = 2, 4x for
 * m = 4). vkml precomputes U = G g G^T per output and input channel at
 * compile time (pass_winograd), and conv2d_winograd transforms the input,
 * multiplies and transforms back. The matrices here are the paper's, for
 * m = 2 (a = 4: every entry 0, +-1, +-1/2) and m = 4 (a = 6, points 0, +-1,
 * +-2 and infinity); one table for the CPU reference, the pass and the GLSL
 * (codegen/glsl/conv2d_winograd.comp writes them out). libc only. */
#ifndef IR_WINOGRAD_H
#define IR_WINOGRAD_H

#include <stdbool.h>
#include <stdint.h>

#define IR_WINOGRAD_MAX_ALPHA 6

/* Whether m is a supported output tile (2 or 4). */
bool ir_winograd_tile_ok(int64_t m);

/* The transforms of F(m x m, 3 x 3), row-major: bt is a x a (B^T), g is
 * a x 3, at is m x a (A^T). */
void ir_winograd_matrices(int m, const double **bt, const double **g, const double **at);

/* U[xi][c][k] = (G w[k][c] G^T)[xi] for weights w[k][c][3][3] (xi = row * a
 * + column of the a x a transform), in double, rounded once to float. */
void ir_winograd_weights(int m, const float *w, int64_t k, int64_t c, float *u);

/* v = B^T d B for one a x a input tile d (row-major, a = m + 2). */
void ir_winograd_input(int m, const double *d, double *v);

/* y = A^T mm A: the m x m output tile of the a x a product mm. */
void ir_winograd_output(int m, const double *mm, double *y);

#endif
