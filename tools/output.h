/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output tables of both command lines: aligned columns, raw (one space
 * between cells) or JSON, in the formats of util-linux's libsmartcols,
 * which losetup --list, --raw and --json print.
 */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stdbool.h>

/* How a column's cells are written in JSON */
enum col_type {
	COL_STR,	/* a string */
	COL_NUM,	/* a number; an empty cell is null */
	COL_BOOL,	/* "1" is true, anything else false */
	COL_STR_NULL,	/* a string; an empty cell is null */
};

struct col {
	const char *name;	/* heading; the JSON key is it in lower case */
	bool right;		/* right-aligned in a table */
	enum col_type type;
};

/* table_print() flags */
#define OUT_NOHEADINGS	(1U << 0)
#define OUT_RAW		(1U << 1)
#define OUT_JSON	(1U << 2)

struct table {
	const struct col **cols;
	int ncols;
	char **cells;		/* row after row, ncols each */
	int nrows;
	int cap;
};

void table_init(struct table *t, const struct col **cols, int ncols);
int table_add_row(struct table *t);
__attribute__((format(printf, 4, 5)))
int table_set(struct table *t, int row, int col, const char *fmt, ...);
/* Sets cell (@row, @col) of @t from @ctx's item @row: 0, or -1 */
typedef int (*table_cell_fn)(struct table *t, int row, int col,
			     const void *ctx);
int table_fill(struct table *t, int nrows, table_cell_fn cell_fn,
	       const void *ctx);
void table_print(const struct table *t, unsigned int flags,
		 const char *json_name);
void table_free(struct table *t);

void json_string(const char *str);

#endif
