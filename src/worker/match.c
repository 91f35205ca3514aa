/* SPDX-License-Identifier: ISC */
/*
 * Block sums and block matching (spec part 2 sections 7.4 and 10.3).
 *
 * The client describes its basis file as `count` blocks, each with a weak
 * rolling sum (sum1) and the first s2length bytes of a strong sum (sum2).
 * We slide a window over our file, and wherever the window's weak sum,
 * length and strong sum equal a block's, we send a reference to that block
 * instead of the bytes.
 *
 * Index.  The blocks are sorted into table_size hash buckets by sum1 and,
 * inside a bucket, by (sum1, sum2, block index).  A lookup is then two
 * binary searches, so the cost per offset does not depend on how many
 * blocks share a sum: a hostile client sending thousands of equal sums
 * cannot make the search quadratic, and stock's cap of 1024 candidates per
 * offset is not needed.  The strong sum is computed at most once per
 * offset, and only when some block of the right length has the weak sum.
 * Most offsets match nothing, so a two-hash Bloom filter with 16 bits per
 * bucket (stored after the bucket table) answers "no block has this weak
 * sum" from a small, cache-friendly array before the table is touched
 * (about 1% false hits with random data, against ~50% non-empty buckets).
 *
 * Strong-sum budget.  A client can still send weak sums that match our data
 * everywhere (e.g. all zero for a file of zeros) with strong sums that never
 * match, making us hash a whole block at every byte offset.  Failed strong
 * sums are therefore charged against a budget; once it is spent the rest of
 * the file is sent as literal data (correct, only less compact).  The
 * budget is fixed by the part of OUR file still to scan, never by what the
 * client claims: MISS_BUDGET_BASE plus MISS_BUDGET_PER_BYTE bytes of hashing
 * per byte, so the strong-sum work of any request is at most 8 MiB + 16x
 * the file, whatever count and blength say (a count of 2^20 blocks of 2^17
 * bytes once made it grow without bound).  Honest transfers stay far
 * below it: a false weak match costs blength bytes and happens about
 * count * 2^-29 times per offset, i.e. basis / 2^29 bytes per byte, which
 * reaches 16 only for bases of 8 GiB and more; there the rest of a very
 * dissimilar file may go literal, which is what it mostly is anyway.
 *
 * Window contract.  match_file reads the file through `f`, which the caller
 * must open with a window of at least blength + 1 bytes (or the file's
 * remaining size if smaller); 64 KiB more is recommended so that each
 * window serves many offsets: fmap_open(f, fd, size, blength + 65536).
 * A smaller window makes match_file fail cleanly (return -1) before it
 * emits anything.
 *
 * Statistics: *st is reset and then describes this call only.
 */
#include "match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLENGTH_30   (1 << 17)   /* protocol >= 30 */
#define MAX_BLENGTH_OLD  (1 << 29)   /* protocol < 30 */
#define MIN_TABLE_SIZE   16u
#define MAX_TABLE_SIZE   (1u << 24)  /* >= SUMS_MAX_COUNT; bucket + filter bits fit in 32 */
#define FILTER_SHIFT     4           /* 16 filter bits per bucket */
#define RUN_SELF         0x80000000u /* see build_run_info(); block indices are < 2^24 */
#define SMALL_BUCKET     16          /* insertion sort up to this size */
#define MISS_BUDGET_BASE ((int64_t)8 << 20)
#define MISS_BUDGET_PER_BYTE 16      /* see "Strong-sum budget" */

/* ---- the sum head ------------------------------------------------------ */

int sums_check_head(const struct sum_head *h, int protocol, int digest_len, const char **why)
{
	const char *unused;
	int32_t max_blength = protocol >= 30 ? MAX_BLENGTH_30 : MAX_BLENGTH_OLD;

	if (why == NULL)
		why = &unused;
	*why = NULL;
	if (digest_len < 1 || digest_len > CSUM_MAX_LEN)
		*why = "invalid checksum length for this session";
	else if (h->count < 0)
		*why = "negative block count";
	else if (h->count > SUMS_MAX_COUNT)
		*why = "too many blocks";
	else if (h->blength < 0)
		*why = "negative block length";
	else if (h->blength > max_blength)
		*why = "block length too large for this protocol";
	else if (h->count > 0 && h->blength == 0)
		*why = "zero block length with blocks";
	else if (h->s2length < 0)
		*why = "negative strong checksum length";
	else if (h->s2length > digest_len)
		/* Against the negotiated digest, never a constant: an 8-byte
		 * xxh digest with s2length 16 was CVE-2024-12084. */
		*why = "strong checksum length exceeds the digest length";
	else if (h->remainder < 0)
		*why = "negative remainder";
	else if (h->remainder > h->blength)
		*why = "remainder larger than the block length";
	else if (h->count == 0 && h->remainder != 0)
		*why = "remainder without blocks";
	else if ((uint64_t)h->count * (3 * sizeof(uint32_t) + (uint64_t)h->s2length) > SIZE_MAX / 2)
		*why = "block sums too large";       /* only possible on 32-bit hosts */
	return *why == NULL ? 0 : -1;
}

/* ---- allocation ---------------------------------------------------------- */

/* The table array: tsize + 1 bucket starts, then the filter bits. */
static size_t table_words(uint32_t tsize)
{
	return (size_t)tsize + 1 + (((size_t)tsize << FILTER_SHIFT) / 32);
}

int sums_alloc(struct sumset *s, const struct sum_head *h)
{
	memset(s, 0, sizeof *s);
	s->h = *h;
	if (h->count < 0 || h->count > SUMS_MAX_COUNT ||
	    h->s2length < 0 || h->s2length > CSUM_MAX_LEN) {
		errno = EINVAL;
		return -1;
	}
	if (h->count == 0)
		return 0;

	size_t n = (size_t)h->count;
	uint32_t tsize = MIN_TABLE_SIZE;

	while (tsize < n)
		tsize <<= 1;
	/* calloc checks n * size for overflow itself; sum2 gets at least one
	 * byte so an s2length of 0 still yields a valid pointer. */
	s->sum1 = calloc(n, sizeof *s->sum1);
	s->sum2 = calloc(n, h->s2length > 0 ? (size_t)h->s2length : 1);
	s->table = calloc(table_words(tsize), sizeof *s->table);
	s->chain = calloc(n, sizeof *s->chain);
	if (s->sum1 == NULL || s->sum2 == NULL || s->table == NULL || s->chain == NULL) {
		sums_free(s);
		errno = ENOMEM;
		return -1;
	}
	s->table_size = tsize;
	return 0;
}

void sums_free(struct sumset *s)
{
	free(s->sum1);
	free(s->sum2);
	free(s->table);
	free(s->chain);
	memset(s, 0, sizeof *s);
}

size_t sums_block_len(const struct sumset *s, int32_t i)
{
	if (i < 0 || i >= s->h.count || s->h.blength <= 0)
		return 0;
	if (i == s->h.count - 1 && s->h.remainder != 0)
		return (size_t)s->h.remainder;
	return (size_t)s->h.blength;
}

/* ---- the index ------------------------------------------------------------ */

static uint32_t table_bits(uint32_t table_size)
{
	uint32_t bits = 0;

	while ((1u << bits) < table_size)
		bits++;
	return bits;
}

/* Multiplicative hashing spreads structured sums (the low half of a weak
 * sum is concentrated near 0); the top bits of the product are the
 * well-mixed ones. */
static inline uint32_t bucket_of(uint32_t sum1, uint32_t bits)
{
	return (sum1 * 0x9E3779B1u) >> (32 - bits);
}

static inline const uint32_t *filter_of(const struct sumset *s)
{
	return s->table + s->table_size + 1;
}

/* The two filter bits of a weak sum. */
static inline uint32_t filter_bit1(uint32_t sum1, uint32_t bits)
{
	return (sum1 * 0x9E3779B1u) >> (32 - bits - FILTER_SHIFT);
}

static inline uint32_t filter_bit2(uint32_t sum1, uint32_t bits)
{
	return (sum1 * 0x85EBCA77u) >> (32 - bits - FILTER_SHIFT);
}

static inline int test_bit(const uint32_t *f, uint32_t bit)
{
	return (int)((f[bit >> 5] >> (bit & 31)) & 1);
}

static inline int filter_hit(const uint32_t *filter, uint32_t sum1, uint32_t bits)
{
	return test_bit(filter, filter_bit1(sum1, bits)) && test_bit(filter, filter_bit2(sum1, bits));
}

static inline const unsigned char *sum2_of(const struct sumset *s, uint32_t i)
{
	return s->sum2 + (size_t)i * (size_t)s->h.s2length;
}

/* Order of blocks inside a bucket: sum1, then sum2, then index. */
static int block_cmp(const struct sumset *s, uint32_t x, uint32_t y)
{
	if (s->sum1[x] != s->sum1[y])
		return s->sum1[x] < s->sum1[y] ? -1 : 1;
	int r = memcmp(sum2_of(s, x), sum2_of(s, y), (size_t)s->h.s2length);
	if (r != 0)
		return r;
	return x < y ? -1 : x > y;
}

static void insertion_sort(const struct sumset *s, uint32_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t v = a[i];
		size_t j = i;

		while (j > 0 && block_cmp(s, a[j - 1], v) > 0) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

static void sift_down(const struct sumset *s, uint32_t *a, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && block_cmp(s, a[child], a[child + 1]) < 0)
			child++;
		if (block_cmp(s, a[root], a[child]) >= 0)
			return;
		uint32_t t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
}

/* Heapsort for large buckets: O(n log n) whatever the client sent, and no
 * allocation.  A bucket already in order (the counting sort keeps block
 * order, so a run of equal sums arrives sorted) is left as it is. */
static void heap_sort(const struct sumset *s, uint32_t *a, size_t n)
{
	size_t k = 1;

	while (k < n && block_cmp(s, a[k - 1], a[k]) < 0)
		k++;
	if (k >= n)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(s, a, i, n);
	for (size_t end = n; end-- > 1;) {
		uint32_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_down(s, a, 0, end);
	}
}

/*
 * Counting sort of the block indices into buckets (table[b] .. table[b+1]
 * is bucket b's slice of chain), then sort each bucket.  Rebuilt on every
 * match_file call; it is linear in count + table_size.
 */
static void build_index(const struct sumset *s, uint32_t bits)
{
	uint32_t *t = s->table;
	uint32_t tsize = s->table_size;
	uint32_t n = (uint32_t)s->h.count;
	uint32_t acc = 0;

	uint32_t *filter = t + tsize + 1;

	memset(t, 0, table_words(tsize) * sizeof *t);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t b1 = filter_bit1(s->sum1[i], bits), b2 = filter_bit2(s->sum1[i], bits);

		filter[b1 >> 5] |= 1u << (b1 & 31);
		filter[b2 >> 5] |= 1u << (b2 & 31);
		t[bucket_of(s->sum1[i], bits)]++;
	}
	for (uint32_t b = 0; b < tsize; b++) {
		acc += t[b];
		t[b] = acc;                 /* end of bucket b for now */
	}
	t[tsize] = n;
	for (uint32_t i = n; i-- > 0;)
		s->chain[--t[bucket_of(s->sum1[i], bits)]] = i;   /* now: start */
	for (uint32_t b = 0; b < tsize; b++) {
		size_t len = t[b + 1] - t[b];

		if (len > SMALL_BUCKET)
			heap_sort(s, s->chain + t[b], len);
		else if (len > 1)
			insertion_sort(s, s->chain + t[b], len);
	}
}

/* ---- the matcher state ------------------------------------------------- */

struct matcher {
	struct fmap *f;
	const struct sumset *s;
	const struct csum_params *cp;
	const struct token_sink *sink;
	struct csum_file *fsum;
	struct match_stats *st;
	int inplace;
	int64_t size;
	size_t bl;                     /* blength */
	size_t last_len;               /* length of block count-1 */
	uint32_t bits;
	/* the current fmap window: file bytes [moff, moff + mlen) at p */
	const unsigned char *p;
	int64_t moff;
	size_t mlen;
	int64_t last;                  /* everything before this has been emitted */
	int64_t want;                  /* block after the previous match */
	int64_t miss_budget;           /* bytes of failed strong sums we still allow */
	unsigned char *self_matched;   /* in-place: bit per block matched at its own offset */
	uint32_t *run_info;            /* in-place: per weak-sum run, see run_dead() */
};

static inline int in_map(const struct matcher *m, int64_t off, size_t len)
{
	return m->p != NULL && off >= m->moff && off - m->moff <= (int64_t)m->mlen &&
	       len <= m->mlen - (size_t)(off - m->moff);
}

/* Point the window at off, as long as the buffer and file allow.  Bytes
 * before off that were not yet emitted must not be needed any more. */
static int remap(struct matcher *m, int64_t off)
{
	size_t len = m->f->buf_cap;

	if ((uint64_t)len > (uint64_t)(m->size - off))
		len = (size_t)(m->size - off);
	m->p = fmap_ptr(m->f, off, len);
	m->moff = off;
	m->mlen = len;
	return m->p != NULL ? 0 : -1;
}

static int emit_literal(struct matcher *m, const unsigned char *data, size_t len)
{
	if (m->sink->literal(m->sink->ctx, data, len) != 0)
		return -1;
	if (m->fsum != NULL)
		csum_file_update(m->fsum, data, len);
	m->st->literal_bytes += (int64_t)len;
	return 0;
}

/* Emit file bytes [last, upto) as literal data, window by window. */
static int flush_literal(struct matcher *m, int64_t upto)
{
	while (m->last < upto) {
		if (!in_map(m, m->last, 1) && remap(m, m->last) != 0)
			return -1;
		int64_t end = m->moff + (int64_t)m->mlen;

		if (end > upto)
			end = upto;
		if (emit_literal(m, m->p + (m->last - m->moff), (size_t)(end - m->last)) != 0)
			return -1;
		m->last = end;
	}
	return 0;
}

/* Make [off, off+len) addressable, first flushing the literal data before
 * off that a new window would lose. */
static int ensure(struct matcher *m, int64_t off, size_t len)
{
	if (in_map(m, off, len))
		return 0;
	if (flush_literal(m, off) != 0 || remap(m, off) != 0)
		return -1;
	return in_map(m, off, len) ? 0 : -1;
}

static inline const unsigned char *at(const struct matcher *m, int64_t off)
{
	return m->p + (off - m->moff);
}

static inline int self_matched(const struct matcher *m, uint32_t i)
{
	return (m->self_matched[i >> 3] >> (i & 7)) & 1;
}

/* Emit pending literal data and a reference to block i at file offset off. */
static int emit_block(struct matcher *m, uint32_t i, int64_t off, size_t len)
{
	if (flush_literal(m, off) != 0 || ensure(m, off, len) != 0)
		return -1;
	const unsigned char *data = at(m, off);

	if (m->sink->block(m->sink->ctx, (int32_t)i, data, len) != 0)
		return -1;
	if (m->fsum != NULL)
		csum_file_update(m->fsum, data, len);
	m->st->matched_bytes += (int64_t)len;
	m->st->matched_blocks++;
	if (m->inplace && (int64_t)i * (int64_t)m->bl == off)
		m->self_matched[i >> 3] |= (unsigned char)(1u << (i & 7));
	m->last = off + (int64_t)len;
	m->want = (int64_t)i + 1;
	return 0;
}

/* ---- lookups -------------------------------------------------------------- */

/* First position in chain[lo, hi) whose block has sum1 >= w. */
static uint32_t lower_sum1(const struct sumset *s, uint32_t lo, uint32_t hi, uint32_t w)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->sum1[s->chain[mid]] < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First position in chain[lo, hi) (all with one sum1) whose sum2 compares
 * >= strong (upper = 0) or > strong (upper = 1). */
static uint32_t bound_sum2(const struct sumset *s, uint32_t lo, uint32_t hi,
			   const unsigned char *strong, int upper)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int r = memcmp(sum2_of(s, s->chain[mid]), strong, (size_t)s->h.s2length);

		if (r < 0 || (upper && r == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First position in chain[lo, hi) (sorted by index) holding index >= i. */
static uint32_t lower_index(const struct sumset *s, uint32_t lo, uint32_t hi, int64_t i)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((int64_t)s->chain[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int run_has(const struct sumset *s, uint32_t lo, uint32_t hi, int64_t i)
{
	uint32_t q = lower_index(s, lo, hi, i);

	return q < hi && s->chain[q] == i;
}

/*
 * Pick a block from chain[c, d): blocks that all fully match at off, by
 * ascending index.  Returns the index, or -1 if the in-place rule allows
 * none of them.
 */
static int64_t choose(const struct matcher *m, uint32_t c, uint32_t d, int64_t off)
{
	const struct sumset *s = m->s;
	int64_t bl = (int64_t)m->bl;

	if (!m->inplace)
		return run_has(s, c, d, m->want) ? m->want : (int64_t)s->chain[c];

	/* In place: block i may be referenced at output offset off only if
	 * the receiver has not overwritten it yet, i.e. i*bl >= off, or if it
	 * was matched at its own offset (its bytes were left as they were).
	 * The block sitting exactly at off is best: nothing moves. */
	if (off % bl == 0 && run_has(s, c, d, off / bl))
		return off / bl;
	if (run_has(s, c, d, m->want) &&
	    (m->want * bl >= off || self_matched(m, (uint32_t)m->want)))
		return m->want;

	uint32_t q = lower_index(s, c, d, (off + bl - 1) / bl);

	if (q < d)
		return s->chain[q];
	/* Only blocks behind us are left; a few of them may be intact. */
	for (int n = 0; q > c && n < 64; n++) {
		q--;
		if (self_matched(m, s->chain[q]))
			return s->chain[q];
	}
	return -1;
}

/*
 * In place, a block behind the current offset that was not matched at its
 * own offset can never be used again (stock "forgets" such blocks).  For
 * each run of equal sum1 in chain, run_info at the run's first position
 * holds the run's highest block index, plus RUN_SELF once one of its blocks
 * was matched at its own offset.  A run whose highest block is behind us
 * and that has no such block is dead for the rest of the file: we skip it
 * without computing a strong sum.  Without this, a file with long stretches
 * equal to blocks that are already overwritten (zeros, say) would cost a
 * strong sum per byte.
 */
static void build_run_info(const struct sumset *s, uint32_t *info)
{
	uint32_t n = (uint32_t)s->h.count;

	/* Runs never cross buckets (equal sums share a bucket) and buckets
	 * are sorted by sum1, so equal sum1 values are adjacent in chain. */
	for (uint32_t a = 0; a < n;) {
		uint32_t z = a, max = 0;

		while (z < n && s->sum1[s->chain[z]] == s->sum1[s->chain[a]]) {
			if (s->chain[z] > max)
				max = s->chain[z];
			info[z++] = 0;
		}
		info[a] = max;
		a = z;
	}
}

static int run_dead(const struct matcher *m, uint32_t a, int64_t off)
{
	uint32_t info = m->run_info[a];

	return !(info & RUN_SELF) && (int64_t)(info & ~RUN_SELF) * (int64_t)m->bl < off;
}

/* Charge a strong sum that matched no block (see "Strong-sum budget"). */
static void charge_miss(struct matcher *m, size_t len)
{
	m->miss_budget -= (int64_t)len;
	m->st->missed_bytes += (int64_t)len;
}

/*
 * The block to reference at off for a full-length window with weak sum w,
 * or -1.  The strong sum is computed only when a same-length block has the
 * weak sum.
 */
static int64_t find_full(struct matcher *m, int64_t off, uint32_t w)
{
	const struct sumset *s = m->s;
	uint32_t b = bucket_of(w, m->bits);
	uint32_t lo = s->table[b], hi = s->table[b + 1];
	uint32_t last_blk = (uint32_t)s->h.count - 1;
	int short_last = m->last_len != m->bl;

	if (lo == hi)
		return -1;
	uint32_t a = lower_sum1(s, lo, hi, w);

	if (a == hi || s->sum1[s->chain[a]] != w)
		return -1;
	uint32_t z = lower_sum1(s, a, hi, w + 1);

	if (w == UINT32_MAX)
		z = hi;
	/* The short last block only matches at the end of the file. */
	if (short_last && z - a == 1 && s->chain[a] == last_blk)
		return -1;
	if (m->run_info != NULL && run_dead(m, a, off))
		return -1;

	unsigned char strong[CSUM_MAX_LEN];

	csum_block(m->cp, at(m, off), m->bl, strong);
	m->st->strong_bytes += (int64_t)m->bl;
	uint32_t c = bound_sum2(s, a, z, strong, 0);
	uint32_t d = bound_sum2(s, c, z, strong, 1);

	if (d > c && short_last && s->chain[d - 1] == last_blk)
		d--;
	if (c == d) {
		charge_miss(m, m->bl);
		return -1;
	}
	int64_t i = choose(m, c, d, off);

	/* In place, nothing usable after a strong sum costs budget too (the
	 * common honest case never gets here: see run_dead()).  Otherwise the
	 * caller emits i at once; remember that this run now has a block that
	 * stays intact in the receiver's file. */
	if (i < 0)
		charge_miss(m, m->bl);
	else if (m->run_info != NULL && i * (int64_t)m->bl == off)
		m->run_info[a] |= RUN_SELF;
	return i;
}

/* The short last block, which can only match at exactly size - remainder. */
static int try_last_block(struct matcher *m, int64_t off)
{
	const struct sumset *s = m->s;
	uint32_t i = (uint32_t)s->h.count - 1;
	size_t len = m->last_len;
	int64_t eoff = m->size - (int64_t)len;
	unsigned char strong[CSUM_MAX_LEN];

	if (len == m->bl || eoff < off || m->miss_budget < 0)
		return 0;
	if (ensure(m, eoff, len) != 0)
		return -1;
	if (csum_rolling(at(m, eoff), len) != s->sum1[i])
		return 0;
	csum_block(m->cp, at(m, eoff), len, strong);
	m->st->strong_bytes += (int64_t)len;
	if (memcmp(strong, sum2_of(s, i), (size_t)s->h.s2length) != 0)
		return 0;
	if (m->inplace && (int64_t)i * (int64_t)m->bl < eoff && !self_matched(m, i))
		return 0;
	return emit_block(m, i, eoff, len);
}

/* A byte as the signed value the rolling sum adds (see csum.c). */
static inline uint32_t sbyte(unsigned char c)
{
	return (uint32_t)(c ^ 0x80u) - 0x80u;
}

/*
 * Slide a full-length window over [last, size) looking for blocks.  The
 * inner loop rolls through as much of the current fmap window as it can
 * without a function call per byte; most offsets end at the filter test.
 */
static int search_full(struct matcher *m)
{
	int64_t off = m->last;
	const uint32_t bl = (uint32_t)m->bl;
	const uint32_t *filter = filter_of(m->s);
	const uint32_t bits = m->bits;
	uint32_t s1 = 0, s2 = 0;
	int fresh = 1;
	int tested = 0;        /* the window at off was already looked up */

	while (off + (int64_t)bl <= m->size && m->miss_budget >= 0) {
		/* Need the window plus the byte that rolls in next. */
		size_t need = off + (int64_t)bl < m->size ? (size_t)bl + 1 : (size_t)bl;

		if (ensure(m, off, need) != 0)
			return -1;
		if (fresh) {
			uint32_t sum = csum_rolling(at(m, off), bl);

			s1 = sum & 0xffff;
			s2 = sum >> 16;
			fresh = 0;
			tested = 0;
		}
		/* Offsets off .. off+steps can be examined in this window;
		 * each step rolls in the byte bl further on. */
		int64_t avail = m->moff + (int64_t)m->mlen;
		int64_t steps = (avail < m->size ? avail : m->size) - off - (int64_t)bl;
		const unsigned char *base = at(m, off);
		const unsigned char *q = base;
		const unsigned char *qend = base + (steps > 0 ? steps : 0);
		int64_t i = -1;

		for (;;) {
			if (!tested) {
				uint32_t w = (s1 & 0xffff) | (s2 << 16);

				if (filter_hit(filter, w, bits)) {
					i = find_full(m, off + (q - base), w);
					if (i >= 0 || m->miss_budget < 0)
						break;
				}
			}
			tested = 0;
			if (q == qend) {
				tested = 1;
				break;
			}
			/* Roll one byte (spec 8.1); only the low 16 bits of
			 * s1 and s2 matter. */
			uint32_t old = sbyte(q[0]);
			s1 += sbyte(q[bl]) - old;
			s2 += s1 - bl * old;
			q++;
		}
		off += q - base;
		if (i >= 0) {
			if (emit_block(m, (uint32_t)i, off, bl) != 0)
				return -1;
			off += bl;
			fresh = 1;
		} else if (off + (int64_t)bl >= m->size) {
			break;
		}
		/* else the window is used up (ensure() maps the next one) or
		 * the strong-sum budget is spent (the loop ends) */
	}
	return try_last_block(m, off);
}

/* ---- the entry point ------------------------------------------------------ */

static int sums_usable(const struct sumset *s, const struct csum_params *cp)
{
	const struct sum_head *h = &s->h;

	return cp != NULL && h->count <= SUMS_MAX_COUNT && h->blength > 0 &&
	       h->s2length >= 0 && h->s2length <= CSUM_MAX_LEN &&
	       h->remainder >= 0 && h->remainder <= h->blength &&
	       s->sum1 != NULL && s->sum2 != NULL && s->table != NULL && s->chain != NULL &&
	       s->table_size >= MIN_TABLE_SIZE && s->table_size <= MAX_TABLE_SIZE &&
	       (s->table_size & (s->table_size - 1)) == 0;
}

/* How many bytes of failed strong sums to allow for `todo` bytes of file
 * (see "Strong-sum budget"); saturates instead of overflowing. */
static int64_t miss_budget(int64_t todo)
{
	if (todo > (INT64_MAX - MISS_BUDGET_BASE) / MISS_BUDGET_PER_BYTE)
		return INT64_MAX;
	return MISS_BUDGET_BASE + todo * MISS_BUDGET_PER_BYTE;
}

static int match_blocks(struct matcher *m)
{
	const struct sumset *s = m->s;
	int64_t todo = m->size - m->last;

	if (!sums_usable(s, m->cp))
		return -1;
	m->bl = (size_t)s->h.blength;
	m->last_len = sums_block_len(s, s->h.count - 1);
	/* Fail before emitting anything if the window is too small to hold a
	 * block and the byte rolling in after it. */
	if ((uint64_t)m->f->buf_cap < (uint64_t)(todo < (int64_t)m->bl + 1 ? todo : (int64_t)m->bl + 1))
		return -1;
	m->bits = table_bits(s->table_size);
	build_index(s, m->bits);
	m->miss_budget = miss_budget(todo);
	int rc = -1;

	if (m->inplace) {
		m->self_matched = calloc(((size_t)s->h.count + 7) / 8, 1);
		m->run_info = malloc((size_t)s->h.count * sizeof *m->run_info);
		if (m->self_matched == NULL || m->run_info == NULL)
			goto out;
		build_run_info(s, m->run_info);
	}
	rc = search_full(m);
out:
	free(m->self_matched);
	free(m->run_info);
	m->self_matched = NULL;
	m->run_info = NULL;
	return rc;
}

int match_file(struct fmap *f, int64_t start, const struct sumset *s,
	       const struct csum_params *cp, const struct match_opts *mo,
	       const struct token_sink *sink, struct csum_file *file_sum,
	       struct match_stats *st)
{
	struct match_stats unused;
	struct matcher m;

	if (st == NULL)
		st = &unused;
	memset(st, 0, sizeof *st);
	if (f == NULL || f->buf == NULL || sink == NULL || start < 0 || start > f->size)
		return -1;

	memset(&m, 0, sizeof m);
	m.f = f;
	m.s = s;
	m.cp = cp;
	m.sink = sink;
	m.fsum = file_sum;
	m.st = st;
	m.inplace = mo != NULL && mo->inplace;
	m.size = f->size;
	m.last = start;
	m.moff = start;

	if (s != NULL && s->h.count > 0 && m.size > start && match_blocks(&m) != 0)
		return -1;
	if (flush_literal(&m, m.size) != 0)
		return -1;
	return sink->end(sink->ctx) != 0 ? -1 : 0;
}
