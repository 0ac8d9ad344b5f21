/* Winograd's F(m x m, 3 x 3) transforms (winograd.h). */
#include "winograd.h"

static const double BT2[4 * 4] = {
    1, 0, -1, 0,  //
    0, 1, 1,  0,  //
    0, -1, 1, 0,  //
    0, 1, 0,  -1,
};
static const double G2[4 * 3] = {
    1,   0,    0,    //
    0.5, 0.5,  0.5,  //
    0.5, -0.5, 0.5,  //
    0,   0,    1,
};
static const double AT2[2 * 4] = {
    1, 1, 1,  0,  //
    0, 1, -1, -1,
};

static const double BT4[6 * 6] = {
    4, 0,  -5, 0,  1, 0,  //
    0, -4, -4, 1,  1, 0,  //
    0, 4,  -4, -1, 1, 0,  //
    0, -2, -1, 2,  1, 0,  //
    0, 2,  -1, -2, 1, 0,  //
    0, 4,  0,  -5, 0, 1,
};
static const double G4[6 * 3] = {
    1.0 / 4,   0,          0,          //
    -1.0 / 6,  -1.0 / 6,   -1.0 / 6,   //
    -1.0 / 6,  1.0 / 6,    -1.0 / 6,   //
    1.0 / 24,  1.0 / 12,   1.0 / 6,    //
    1.0 / 24,  -1.0 / 12,  1.0 / 6,    //
    0,         0,          1,
};
static const double AT4[4 * 6] = {
    1, 1, 1,  1, 1,  0,  //
    0, 1, -1, 2, -2, 0,  //
    0, 1, 1,  4, 4,  0,  //
    0, 1, -1, 8, -8, 1,
};

bool ir_winograd_tile_ok(int64_t m) { return m == 2 || m == 4; }

void ir_winograd_matrices(int m, const double **bt, const double **g, const double **at) {
  *bt = m == 4 ? BT4 : BT2;
  *g = m == 4 ? G4 : G2;
  *at = m == 4 ? AT4 : AT2;
}

void ir_winograd_weights(int m, const float *w, int64_t k, int64_t c, float *u) {
  const double *bt, *g, *at;
  ir_winograd_matrices(m, &bt, &g, &at);
  int a = m + 2;
  for (int64_t ko = 0; ko < k; ko++)
    for (int64_t ci = 0; ci < c; ci++) {
      const float *f = w + (ko * c + ci) * 9;
      double t[IR_WINOGRAD_MAX_ALPHA * 3]; /* G f: a x 3 */
      for (int i = 0; i < a; i++)
        for (int j = 0; j < 3; j++) {
          double s = 0;
          for (int q = 0; q < 3; q++) s += g[i * 3 + q] * (double)f[q * 3 + j];
          t[i * 3 + j] = s;
        }
      for (int i = 0; i < a; i++)
        for (int j = 0; j < a; j++) { /* (G f) G^T */
          double s = 0;
          for (int q = 0; q < 3; q++) s += t[i * 3 + q] * g[j * 3 + q];
          u[((int64_t)(i * a + j) * c + ci) * k + ko] = (float)s;
        }
    }
}

void ir_winograd_input(int m, const double *d, double *v) {
  const double *bt, *g, *at;
  ir_winograd_matrices(m, &bt, &g, &at);
  int a = m + 2;
  double t[IR_WINOGRAD_MAX_ALPHA * IR_WINOGRAD_MAX_ALPHA]; /* B^T d */
  for (int i = 0; i < a; i++)
    for (int j = 0; j < a; j++) {
      double s = 0;
      for (int q = 0; q < a; q++) s += bt[i * a + q] * d[q * a + j];
      t[i * a + j] = s;
    }
  for (int i = 0; i < a; i++)
    for (int j = 0; j < a; j++) { /* (B^T d) B */
      double s = 0;
      for (int q = 0; q < a; q++) s += t[i * a + q] * bt[j * a + q];
      v[i * a + j] = s;
    }
}

void ir_winograd_output(int m, const double *mm, double *y) {
  const double *bt, *g, *at;
  ir_winograd_matrices(m, &bt, &g, &at);
  int a = m + 2;
  double t[IR_WINOGRAD_MAX_ALPHA * IR_WINOGRAD_MAX_ALPHA]; /* A^T mm: m x a */
  for (int i = 0; i < m; i++)
    for (int j = 0; j < a; j++) {
      double s = 0;
      for (int q = 0; q < a; q++) s += at[i * a + q] * mm[q * a + j];
      t[i * a + j] = s;
    }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) { /* (A^T mm) A */
      double s = 0;
      for (int q = 0; q < a; q++) s += t[i * a + q] * at[j * a + q];
      y[i * m + j] = s;
    }
}
