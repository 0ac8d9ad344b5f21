/* The .vkir text form: parser, printer, verifier.
 *
 * print(parse(print(g))) == print(g), byte for byte. Parse errors and
 * verifier errors read "FILE:LINE:COL: message". */
#ifndef IR_TEXT_H
#define IR_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "graph.h"

/* Parses text (need not be NUL-terminated) into a new graph. filename is used
 * in messages only (NULL: "<input>"). The graph has no blob attached; constants
 * that refer to one are checked by ir_verify once it is. *out is owned by the
 * caller (ir_graph_destroy); on error *out is NULL. Does not verify. */
vkml_status ir_parse(const char *text, size_t len, const char *filename,
                     ir_graph **out);

/* Reads PATH, parses it and, if any constant refers to the blob, attaches the
 * weights file PATH with its extension replaced by ".bin". Verifies. */
vkml_status ir_parse_file(const char *path, ir_graph **out);

/* Canonical text. *out is malloc'd, NUL-terminated, freed by the caller. */
vkml_status ir_print(const ir_graph *g, char **out, size_t *out_len);
vkml_status ir_print_file(const ir_graph *g, FILE *f);

/* Checks the whole graph: names unique, every use after its definition,
 * op arity, attribute kinds and names, constant ranges within the blob,
 * types legal, and each node's annotated output types equal to what shape
 * inference computes. filename (may be NULL) prefixes messages. */
vkml_status ir_verify(const ir_graph *g, const char *filename);

/* Runs the op's shape inference after checking arity and attribute kinds;
 * out receives n->n_outputs types. Uses the input values' types. */
vkml_status ir_infer_node(const ir_node *n, ir_type *out);
/* Same with explicit input types in[0..n->n_inputs). */
vkml_status ir_infer_node_types(const ir_node *n, const ir_type *in,
                                ir_type *out);

#endif
