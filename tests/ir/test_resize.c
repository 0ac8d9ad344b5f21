/* The resize coordinate semantics (ir/params.h) that the CPU reference and
 * codegen's GPU resize share: the transform per coordinate mode, the left
 * neighbour and ratio, the nearest rules, scale resolution, and the mode
 * validation every consumer relies on. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ir/graph.h"
#include "ir/params.h"
#include "tests/support/test_support.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-12)

Test(resize_coord, transforms_per_mode) {
  /* 4 -> 8 (scale 2), output coordinate 3 */
  cr_assert(NEAR(ir_resize_coord(IR_COORD_HALF_PIXEL, 3, 2.0, 4, 8, 8), 1.25));
  cr_assert(NEAR(ir_resize_coord(IR_COORD_ASYMMETRIC, 3, 2.0, 4, 8, 8), 1.5));
  cr_assert(NEAR(ir_resize_coord(IR_COORD_PYTORCH_HALF_PIXEL, 3, 2.0, 4, 8, 8), 1.25));
  cr_assert(NEAR(ir_resize_coord(IR_COORD_TF_HALF_PIXEL_FOR_NN, 3, 2.0, 4, 8, 8), 1.75));
  cr_assert(NEAR(ir_resize_coord(IR_COORD_ALIGN_CORNERS, 3, 2.0, 4, 8, 8), 3.0 * 3 / 7));
  /* one output: pytorch_half_pixel and align_corners read coordinate 0 */
  cr_assert_eq(ir_resize_coord(IR_COORD_PYTORCH_HALF_PIXEL, 0, 0.25, 4, 1, 1), 0.0);
  cr_assert_eq(ir_resize_coord(IR_COORD_ALIGN_CORNERS, 0, 0.25, 4, 1, 1), 0.0);
  cr_assert(NEAR(ir_resize_coord(IR_COORD_HALF_PIXEL, 0, 0.25, 4, 1, 1), 1.5));
}

Test(resize_coord, left_neighbour_and_ratio) {
  int64_t left;
  cr_assert(NEAR(ir_resize_left(1.25, 4, &left), 0.25));
  cr_assert_eq(left, 1);
  /* an integer coordinate sits at ratio 1 on its right neighbour */
  cr_assert_eq(ir_resize_left(2.0, 4, &left), 1.0);
  cr_assert_eq(left, 1);
  cr_assert(NEAR(ir_resize_left(-0.25, 4, &left), 0.75));
  cr_assert_eq(left, -1);
  /* far outside (and NaN) clamps to one pixel beyond the edge */
  ir_resize_left(-1e30, 4, &left);
  cr_assert_eq(left, -3);
  ir_resize_left(NAN, 4, &left);
  cr_assert_eq(left, -3);
  ir_resize_left(1e30, 4, &left);
  cr_assert_eq(left, 5);
}

Test(resize_coord, nearest_rules) {
  /* a tie at 1.5 */
  cr_assert_eq(ir_resize_nearest(IR_NEAREST_ROUND_PREFER_FLOOR, 1.5, 4), 1);
  cr_assert_eq(ir_resize_nearest(IR_NEAREST_ROUND_PREFER_CEIL, 1.5, 4), 2);
  cr_assert_eq(ir_resize_nearest(IR_NEAREST_FLOOR, 1.5, 4), 1);
  cr_assert_eq(ir_resize_nearest(IR_NEAREST_CEIL, 1.5, 4), 2);
  /* off the tie */
  cr_assert_eq(ir_resize_nearest(IR_NEAREST_ROUND_PREFER_FLOOR, 1.6, 4), 2);
  cr_assert_eq(ir_resize_nearest(IR_NEAREST_ROUND_PREFER_CEIL, 1.4, 4), 1);
  cr_assert_eq(ir_resize_nearest(IR_NEAREST_FLOOR, 1.9, 4), 1);
  cr_assert_eq(ir_resize_nearest(IR_NEAREST_CEIL, 1.1, 4), 2);
  /* integers map to themselves under every rule; outside clamps */
  for (int m = IR_NEAREST_ROUND_PREFER_FLOOR; m <= IR_NEAREST_CEIL; m++) {
    cr_assert_eq(ir_resize_nearest((ir_nearest_mode)m, 3.0, 4), 3);
    cr_assert_eq(ir_resize_nearest((ir_nearest_mode)m, -0.9, 4), 0);
    cr_assert_eq(ir_resize_nearest((ir_nearest_mode)m, 7.5, 4), 3);
  }
}

/* A resize node of x [1,1,3,5] with the given attributes set by the caller. */
static ir_node *resize_node(ir_graph **g) {
  int64_t xd[4] = {1, 1, 3, 5};
  rt_tensor x = t_tensor_zeros(IR_F32, 4, xd);
  ir_type yt = ir_type_make(IR_F32, 4, xd);
  ir_node *n = t_node_make(g, IR_OP_RESIZE, &x, 1, &yt, 1);
  rt_tensor_free(&x);
  return n;
}

Test(resize_coord, axis_scale_from_sizes_and_scales) {
  ir_graph *g;
  ir_node *n = resize_node(&g);
  const int64_t sizes[4] = {1, 1, 7, 2};
  cr_assert_null(ir_node_set_ints(g, n, IR_A_SIZES, sizes, 4));
  ir_type xt = n->inputs[0]->type;
  ir_resize_params p;
  cr_assert_null(ir_resize_params_get(n, &xt, &p));
  cr_assert(p.from_sizes);
  double scale, len;
  ir_resize_axis_scale(&p, 2, 3, 7, &scale, &len);
  cr_assert_eq(scale, 7.0 / 3.0); /* the exact ratio, not the float scale */
  cr_assert_eq(len, 7.0);
  ir_graph_destroy(g);

  n = resize_node(&g);
  const float scales[4] = {1, 1, 2.5f, 0.5f};
  cr_assert_null(ir_node_set_floats(g, n, IR_A_SCALES, scales, 4));
  cr_assert_null(ir_resize_params_get(n, &xt, &p));
  cr_assert(!p.from_sizes);
  cr_assert_eq(p.out_dims[3], 2);
  ir_resize_axis_scale(&p, 3, 5, 2, &scale, &len);
  cr_assert_eq(scale, 0.5);
  cr_assert_eq(len, 2.5); /* scale * in, not the floored output size */
  ir_graph_destroy(g);
}

Test(resize_coord, params_refuse_out_of_range_modes) {
  /* what inference would refuse, refused again for nodes never inferred */
  const ir_attr_id ids[3] = {IR_A_RESIZE_MODE, IR_A_COORD_MODE, IR_A_NEAREST_MODE};
  for (int k = 0; k < 3; k++) {
    ir_graph *g;
    ir_node *n = resize_node(&g);
    const float scales[4] = {1, 1, 2, 2};
    cr_assert_null(ir_node_set_floats(g, n, IR_A_SCALES, scales, 4));
    cr_assert_null(ir_node_set_enum(g, n, ids[k], 9));
    ir_type xt = n->inputs[0]->type;
    ir_resize_params p;
    vkml_status s = ir_resize_params_get(n, &xt, &p);
    cr_assert_not_null(s, "attribute %d", k);
    cr_assert(strstr(vkml_status_message(s), "out of range"), "%s", vkml_status_message(s));
    vkml_status_free(s);
    ir_graph_destroy(g);
  }
}
