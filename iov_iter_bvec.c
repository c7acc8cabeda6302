// SPDX-License-Identifier: GPL-2.0
/*
 * Build a bvec-backed iov_iter straight from a bio's bio_vec table.
 *
 * The iterator points into the bio's own table: no copy of the data, no
 * kmap, no copy of the table.  It starts at the bio's current position
 * (bi_iter.bi_idx and bi_iter.bi_bvec_done, so split and partially
 * advanced bios work) and spans bi_iter.bi_size bytes.  Table entries may
 * be multi-page; the iterator handles them as they are.
 */
#include <linux/bio.h>

#include "compat.h"
#include "aioloop.h"

/* Number of table entries, from bi_idx on, that hold the bio's data. */
static unsigned int aioloop_bio_nr_bvecs(struct bio *bio)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	unsigned int nr = 0;

	bio_for_each_bvec(bv, bio, iter)
		nr++;
	return nr;
}

/**
 * aioloop_bio_iter - point @iter at the data of @bio
 * @bio: a READ or WRITE bio
 * @iter: iterator to initialise
 * @dir: ITER_DEST to read into the bio's pages, ITER_SOURCE to write them
 *
 * Returns the number of bytes the iterator spans.
 */
size_t aioloop_bio_iter(struct bio *bio, struct iov_iter *iter,
			unsigned int dir)
{
	struct bio_vec *bv = &bio->bi_io_vec[bio->bi_iter.bi_idx];
	unsigned int nr = aioloop_bio_nr_bvecs(bio);

	/*
	 * Entries are not trimmed: the first one is entered at bi_bvec_done
	 * and the count stops the iterator inside the last one.
	 */
	iov_iter_bvec(iter, dir, bv, nr,
		      bio->bi_iter.bi_size + bio->bi_iter.bi_bvec_done);
	iov_iter_advance(iter, bio->bi_iter.bi_bvec_done);
	return iov_iter_count(iter);
}
