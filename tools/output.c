// SPDX-License-Identifier: GPL-2.0
/*
 * Output tables: aligned, raw or JSON, as libsmartcols prints them for
 * losetup. A table's widths count the headings even with OUT_NOHEADINGS,
 * numbers are right-aligned, and the last column is not padded when it is
 * left-aligned. Raw cells encode a space, a backslash and any control
 * character as \xHH; aligned cells encode control characters.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

void table_init(struct table *t, const struct col **cols, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols;
}

/* A new row of empty cells: its index, or -1 without memory */
int table_add_row(struct table *t)
{
	int i;

	if (t->nrows == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		char **c = realloc(t->cells, (size_t)cap * t->ncols *
				   sizeof(*c));

		if (!c)
			return -1;
		t->cells = c;
		t->cap = cap;
	}
	for (i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = NULL;
	return t->nrows++;
}

int table_set(struct table *t, int row, int col, const char *fmt, ...)
{
	char **cell = &t->cells[row * t->ncols + col];
	va_list ap;
	int ret;

	free(*cell);
	va_start(ap, fmt);
	ret = vasprintf(cell, fmt, ap);
	va_end(ap);
	if (ret < 0)
		*cell = NULL;
	return ret < 0 ? -1 : 0;
}

/* Add @nrows rows, each cell set by @cell_fn: 0, or -1 without memory */
int table_fill(struct table *t, int nrows, table_cell_fn cell_fn,
	       const void *ctx)
{
	int i, c, row;

	for (i = 0; i < nrows; i++) {
		row = table_add_row(t);
		if (row < 0)
			return -1;
		for (c = 0; c < t->ncols; c++)
			if (cell_fn(t, row, c, ctx))
				return -1;
	}
	return 0;
}

static const char *cell(const struct table *t, int row, int col)
{
	const char *s = t->cells[row * t->ncols + col];

	return s ? s : "";
}

static bool must_encode(unsigned char c, bool raw)
{
	if (c < 0x20 || c == 0x7f)
		return true;
	return raw && (c == ' ' || c == '\\');
}

/* Width of @s as printed */
static int enc_width(const char *s, bool raw)
{
	int w = 0;

	for (; *s; s++)
		w += must_encode((unsigned char)*s, raw) ? 4 : 1;
	return w;
}

static void put_enc(const char *s, bool raw)
{
	for (; *s; s++) {
		if (must_encode((unsigned char)*s, raw))
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
	}
}

/* One line of an aligned table; @row -1 is the headings */
static void print_line(const struct table *t, int row, const int *width)
{
	int c, pad;
	const char *s;

	for (c = 0; c < t->ncols; c++) {
		s = row < 0 ? t->cols[c]->name : cell(t, row, c);
		pad = width[c] - enc_width(s, false);
		if (t->cols[c]->right)
			printf("%*s", pad, "");
		put_enc(s, false);
		if (!t->cols[c]->right && c < t->ncols - 1)
			printf("%*s", pad, "");
		putchar(c < t->ncols - 1 ? ' ' : '\n');
	}
}

static void print_aligned(const struct table *t, unsigned int flags)
{
	int *width, r, c, w;

	if (!t->nrows)
		return;
	width = calloc(t->ncols, sizeof(*width));
	if (!width)
		return;
	for (c = 0; c < t->ncols; c++) {
		width[c] = (int)strlen(t->cols[c]->name);
		for (r = 0; r < t->nrows; r++) {
			w = enc_width(cell(t, r, c), false);
			if (w > width[c])
				width[c] = w;
		}
	}
	if (!(flags & OUT_NOHEADINGS))
		print_line(t, -1, width);
	for (r = 0; r < t->nrows; r++)
		print_line(t, r, width);
	free(width);
}

static void print_raw(const struct table *t, unsigned int flags)
{
	int r, c;

	if (!t->nrows)
		return;
	if (!(flags & OUT_NOHEADINGS))
		for (c = 0; c < t->ncols; c++)
			printf("%s%c", t->cols[c]->name,
			       c < t->ncols - 1 ? ' ' : '\n');
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			put_enc(cell(t, r, c), true);
			putchar(c < t->ncols - 1 ? ' ' : '\n');
		}
}

/* Length of the valid UTF-8 sequence at @s, or 0 if invalid */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	unsigned int cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Print @str as a JSON string; invalid UTF-8 bytes become U+FFFD */
void json_string(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') {
			printf("\\%c", *s);
		} else if (*s == '\n') {
			fputs("\\n", stdout);
		} else if (*s == '\t') {
			fputs("\\t", stdout);
		} else if (*s < 0x20 || *s == 0x7f) {
			printf("\\u%04x", *s);
		} else if (*s < 0x80) {
			putchar(*s);
		} else if ((n = utf8_len(s))) {
			fwrite(s, 1, n, stdout);
			s += n - 1;
		} else {
			fputs("\\ufffd", stdout);
		}
	}
	putchar('"');
}

static void json_key(const char *name)
{
	putchar('"');
	for (; *name; name++)
		putchar(tolower((unsigned char)*name));
	fputs("\": ", stdout);
}

static void json_value(const struct col *col, const char *s)
{
	switch (col->type) {
	case COL_NUM:
		fputs(*s ? s : "null", stdout);
		break;
	case COL_BOOL:
		fputs(strcmp(s, "1") ? "false" : "true", stdout);
		break;
	case COL_STR_NULL:
		if (!*s) {
			fputs("null", stdout);
			break;
		}
		/* fall through */
	case COL_STR:
		json_string(s);
		break;
	}
}

static void print_json(const struct table *t, const char *name)
{
	int r, c;

	printf("{\n   \"%s\": [\n", name);
	for (r = 0; r < t->nrows; r++) {
		fputs(r ? ",{\n" : "      {\n", stdout);
		for (c = 0; c < t->ncols; c++) {
			fputs("         ", stdout);
			json_key(t->cols[c]->name);
			json_value(t->cols[c], cell(t, r, c));
			fputs(c < t->ncols - 1 ? ",\n" : "\n", stdout);
		}
		fputs("      }", stdout);
	}
	fputs("\n   ]\n}\n", stdout);
}

void table_print(const struct table *t, unsigned int flags,
		 const char *json_name)
{
	if (flags & OUT_JSON)
		print_json(t, json_name);
	else if (flags & OUT_RAW)
		print_raw(t, flags);
	else
		print_aligned(t, flags);
}

void table_free(struct table *t)
{
	int i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}
